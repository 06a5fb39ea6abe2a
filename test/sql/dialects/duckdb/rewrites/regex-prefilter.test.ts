/**
 * REGEXP_CONTAINS on DuckDB with its substring prefilter: for random patterns, literal or bound,
 * exactly the answers of DuckDB's own regexp_matches on every text (NULL included); and with the
 * values bound, DuckDB's plan runs no regular expression for a pattern of exact literals.
 */
import type { DuckDBConnection, DuckDBInstance } from '#duckdb-api';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDuckDb } from '../../../../../src/backends/duckdb/backend.js';
import { withDerivedValues } from '../../../../../src/sql/analyse/derived-parameters.js';
import { duckDbDialect } from '../../../../../src/sql/dialects/duckdb/dialect.js';
import { quoteString } from '../../../../../src/sql/dialects/duckdb/quote.js';
import type { CompiledSql } from '../../../../../src/sql/generator/dialect.js';
import { generate } from '../../../../../src/sql/generator/generate.js';
import { parseQuery } from '../../../../../src/sql/parse/to-tree.js';

const TEXTS = [null, '', 'a', 'ab', 'abc', 'ba', 'A.b', 'https://alpha.cannery.dev/rest/v1', 'https://beta.cannery.dev/auth/v1', 'x{y}', 'aaab', 'c c', '1.5', 'AB'];

let instance: DuckDBInstance;
let connection: DuckDBConnection;
const dialect = duckDbDialect(['texts']);

beforeAll(async () => {
  instance = await openDuckDb({ path: ':memory:' });
  connection = await instance.connect();
  await connection.run('CREATE TABLE texts (n INTEGER, t VARCHAR)');
  await connection.run(`INSERT INTO texts VALUES ${TEXTS.map((text, n) => `(${n}, ${text === null ? 'NULL' : quoteString(text)})`).join(', ')}`);
});
afterAll(() => {
  connection.closeSync();
  instance.closeSync();
});

function compile(sql: string): CompiledSql {
  return generate(parseQuery(sql), dialect);
}

async function answers(compiled: CompiledSql, values: Record<string, string>): Promise<unknown[]> {
  const all = withDerivedValues(compiled.derived, values);
  const bound = Object.fromEntries(compiled.parameters.map((name) => [name, all[name] ?? null]));
  const reader = await connection.runAndReadAll(compiled.sql, bound);
  return reader.getRowObjectsJS().map((row) => row.m);
}

/** DuckDB's own answer, without the rewrite; undefined where its RE2 refuses the pattern. */
async function plainAnswers(pattern: string): Promise<unknown[] | undefined> {
  try {
    const reader = await connection.runAndReadAll('SELECT regexp_matches(t, $p) AS m FROM texts ORDER BY n', { p: pattern });
    return reader.getRowObjectsJS().map((row) => row.m);
  } catch {
    return undefined;
  }
}

const pattern = fc.oneof(
  fc.constantFrom('a', 'ab', 'ab|ba', 'https?://alpha', 'cannery\\.dev/(rest|auth)', '(?i)ab', '^a', 'b$', 'a+b', 'x\\{y\\}', '[ab]c', '\\.', 'c c|zz', '(a|b){2}', 'a{', 'a(?i){2}', ''),
  fc.array(fc.constantFrom('a', 'b', 'c', '.', '|', '(', ')', '*', '+', '?', '\\.', '[ab]', '{2}', '(?i)', 'A', '^', '$'), { maxLength: 8 }).map((parts) => parts.join('')),
);

describe('the REGEXP_CONTAINS prefilter on DuckDB', () => {
  it('answers as regexp_matches does, for a bound pattern and for a literal one', async () => {
    const bound = compile('select regexp_contains(t, @p) as m from texts order by n');
    expect(Object.keys(bound.derived)).toHaveLength(5);
    await fc.assert(
      fc.asyncProperty(pattern, async (source) => {
        const expected = await plainAnswers(source);
        if (expected === undefined) return;
        expect(await answers(bound, { p: source }), source).toEqual(expected);
        const literal = compile(`select regexp_contains(t, ${JSON.stringify(source)}) as m from texts order by n`);
        expect(await answers(literal, {}), source).toEqual(expected);
      }),
      { numRuns: 400 },
    );
  });

  it('leaves no regular expression in the plan for a pattern of exact literals, and tests the literal first otherwise', async () => {
    const compiled = compile('select n from texts where regexp_contains(t, @p)');
    const plan = async (p: string) => {
      const all = withDerivedValues(compiled.derived, { p });
      const reader = await connection.runAndReadAll(`EXPLAIN ${compiled.sql}`, Object.fromEntries(compiled.parameters.map((name) => [name, all[name] ?? null])));
      // The plan's boxes wrap long expressions: read it without them.
      return reader.getRows().map((row) => String(row[1])).join('').replace(/[│─┌┐└┘┬┴├┤\s]/g, '');
    };
    const exact = await plan('alpha|beta');
    expect(exact).toContain("(contains(t,'alpha')ORcontains(t,'beta'))");
    expect(exact).not.toContain('regexp');
    const required = await plan('cannery\\.dev/(rest|auth)/v[0-9]');
    expect(required).toContain("contains(t,'cannery.dev/')");
    expect(required).toContain('regexp_matches(t,');
  });
});
