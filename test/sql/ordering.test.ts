/**
 * ORDER BY inside a CTE or subquery promises nothing in BigQuery unless a LIMIT makes it
 * matter; the translation keeps exactly the orders that matter (DuckDB would sort anyway).
 */
import { describe, expect, it } from 'vitest';
import { duckDbDialect } from '../../src/sql/dialects/duckdb/dialect.js';
import { generate } from '../../src/sql/generator/generate.js';
import { parseQuery } from '../../src/sql/parse/to-tree.js';

const dialect = duckDbDialect(['t']);
const translate = (sql: string) => generate(parseQuery(sql), dialect, { rowCap: 1000 }).sql;

describe('ORDER BY below the outermost query', () => {
  it('is dropped from a CTE without LIMIT', () => {
    expect(translate('with c as (select x from t order by x desc) select x from c')).toBe('WITH "c" AS (SELECT "x" FROM "t" AS "t") SELECT "x" FROM "c" LIMIT 1000');
  });

  it('is kept in a CTE with LIMIT (it decides which rows)', () => {
    expect(translate('with c as (select x from t order by x desc limit 5) select x from c')).toContain('ORDER BY "x" DESC LIMIT 5');
  });

  it('is dropped from a subquery in FROM without LIMIT, kept on the outermost query', () => {
    expect(translate('select x from (select x from t order by x) s order by x desc')).toBe('SELECT "x" FROM (SELECT "x" FROM "t" AS "t") AS "s" ORDER BY "x" DESC LIMIT 1000');
  });
});
