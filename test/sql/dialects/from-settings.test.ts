/**
 * A dialect rebuilt from its settings, after a trip through JSON (as a worker thread gets them,
 * and as the compile cache keys on them), writes every golden case exactly as the dialect does.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import * as YAML from '#yaml';
import { BUILT_IN_SOURCES, sourceNames } from '../../../src/config/sources.js';
import { bigQueryDialect } from '../../../src/sql/dialects/bigquery/dialect.js';
import { sourceTables } from '../../../src/sql/dialects/bigquery/tables.js';
import { duckDbDialect } from '../../../src/sql/dialects/duckdb/dialect.js';
import { dialectFromSettings } from '../../../src/sql/dialects/from-settings.js';
import type { Dialect } from '../../../src/sql/generator/dialect.js';
import { generate } from '../../../src/sql/generator/generate.js';
import { parseQuery } from '../../../src/sql/parse/to-tree.js';
import { sourceColumnsLookup } from '../../../src/sql/analyse/shapes.js';

const GOLDEN = fileURLToPath(new URL('../golden/', import.meta.url));
const queries = readdirSync(GOLDEN)
  .filter((file) => file.endsWith('.yaml') && file !== 'fixture.yaml')
  .flatMap((file) => (YAML.parse(readFileSync(GOLDEN + file, 'utf8')) as { name: string; sql: string }[]).map((entry) => ({ name: `${file} ${entry.name}`, sql: entry.sql })));

const sources = sourceNames(BUILT_IN_SOURCES);
const dialects: Record<string, Dialect> = {
  'DuckDB, strict names over the tables': duckDbDialect(sources, { sourceColumns: sourceColumnsLookup(BUILT_IN_SOURCES), strictNames: true }),
  'DuckDB, columns unknown': duckDbDialect(['t', ...sources]),
  'BigQuery, one table overridden': bigQueryDialect(sourceTables(sources, { project: 'p', dataset: 'd' }, { 'postgres.logs': { project: 'other', dataset: 'logs', table: 'pg' } })),
};

/** The SQL or the refusal: a rebuilt dialect must refuse what the original refuses, with the same words. */
function written(query: string, dialect: Dialect): string {
  try {
    return generate(parseQuery(query), dialect, { rowCap: 100 }).sql;
  } catch (error) {
    return `refused: ${(error as Error).message}`;
  }
}

describe.each(Object.entries(dialects))('%s', (_label, dialect) => {
  const rebuilt = dialectFromSettings(JSON.parse(JSON.stringify(dialect.settings)));

  it('has the same settings when rebuilt', () => {
    expect(rebuilt.settings).toEqual(dialect.settings);
  });

  it('writes every golden case as the dialect does', () => {
    expect(queries.length).toBeGreaterThan(50);
    for (const { name, sql } of queries) expect(written(sql, rebuilt), name).toBe(written(sql, dialect));
  });
});
