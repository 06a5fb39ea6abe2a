/**
 * Functions of STRING or BYTES (issue 39): BigQuery takes all STRING or all BYTES and coerces
 * neither to the other, literals included. Each mixed call, with the types in the query's text or
 * only in a column's values, must be an error on DuckDB, never an answer (EDIT_DISTANCE(b'abc',
 * 'abd') was 1, STARTS_WITH of a STRING column and b'a' was TRUE, CONCAT of a BYTES and a STRING
 * column joined them); and EDIT_DISTANCE of BYTES is the distance in bytes, checked against a
 * Levenshtein distance over the bytes drawn at random. The query is compiled by the one generator
 * and run on a real DuckDB in memory, with the backend's macros and host functions.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { inCallerTerms } from '../../src/backends/duckdb/caller-terms.js';
import { serviceDuckDbForFile } from '../support/duckdb.js';
import { toWireValue } from '../../src/backends/duckdb/values.js';
import type { WireRow } from '../../src/core/types.js';
import { duckDbDialect } from '../../src/sql/dialects/duckdb/dialect.js';
import { generate } from '../../src/sql/generator/generate.js';
import { parseQuery } from '../../src/sql/parse/to-tree.js';

const dialect = duckDbDialect([]);
const duck = serviceDuckDbForFile();

/** The rows, or the error's message (compiling, or running in the caller's terms as the service says it). */
async function outcome(sql: string): Promise<WireRow[] | string> {
  try {
    const reader = await duck.connection().runAndReadAll(generate(parseQuery(sql), dialect).sql);
    return reader.convertRowObjects(toWireValue) as WireRow[];
  } catch (error) {
    return inCallerTerms((error as Error).message);
  }
}

/** Each function of both kinds, called with `s` (a STRING) and `b` (BYTES) where one kind is wanted. */
const CALLS = [
  'EDIT_DISTANCE(s, b)', 'STARTS_WITH(s, b)', 'ENDS_WITH(b, s)', 'STRPOS(s, b)', 'INSTR(b, s)', 'REPLACE(s, b, b)', 'REPLACE(b, s, b)',
  'LPAD(s, 5, b)', 'RPAD(b, 5, s)', 'TRIM(s, b)', 'LTRIM(b, s)', 'RTRIM(s, b)', 'SPLIT(b, s)', 'CONCAT(s, b)', 'CONCAT(b, s, b)',
  'TO_HEX(s)', 'CHAR_LENGTH(b)', 'CHARACTER_LENGTH(b)',
];

describe('a call mixing STRING and BYTES', () => {
  it.each(CALLS)('%s is an error with literals, with columns, and with one of each', async (call) => {
    const literals = call.replace(/\bs\b/g, `'ab'`).replace(/\bb\b/g, `b'ab'`);
    const columnS = call.replace(/\bb\b/g, `b'ab'`);
    const columnB = call.replace(/\bs\b/g, `'ab'`);
    const literalsSql = `SELECT ${literals} AS x`;
    expect(await outcome(literalsSql), literalsSql).toMatch(/^No matching signature for function/);
    // With a column, at run time: the signature's error, or DuckDB's binder refusing a BYTES column where
    // the rendering wants a STRING (a CASE of BYTES and STRING); never rows.
    for (const sql of [`WITH t AS (SELECT 'ab' AS s) SELECT ${columnS} AS x FROM t`, `WITH t AS (SELECT b'ab' AS b) SELECT ${columnB} AS x FROM t`, `WITH t AS (SELECT 'ab' AS s, b'ab' AS b) SELECT ${call} AS x FROM t`]) {
      expect(await outcome(sql), sql).toMatch(/No matching signature|Cannot mix values of type BYTES and STRING/);
    }
  });
});

/** Levenshtein's distance between two byte sequences. */
function distance(a: Uint8Array, b: Uint8Array): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) row.push(Math.min(previous[j]! + 1, row[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1)));
    previous = row;
  }
  return previous[b.length]!;
}

/** BYTES as a BigQuery literal, every byte escaped. */
function bytesLiteral(bytes: Uint8Array): string {
  return `b'${[...bytes].map((byte) => `\\x${byte.toString(16).padStart(2, '0')}`).join('')}'`;
}

describe('EDIT_DISTANCE of BYTES', () => {
  it('is the distance in bytes (any bytes, UTF-8 or not), capped at max_distance, as literals and as columns', async () => {
    // Few distinct bytes, so that sequences share some; 0xc3 0xa9 is é.
    const bytes = fc.uint8Array({ maxLength: 8 }).map((array) => array.map((byte) => [0x61, 0x62, 0x00, 0xc3, 0xa9, 0xff][byte % 6]!));
    await fc.assert(
      fc.asyncProperty(bytes, bytes, fc.integer({ min: 0, max: 9 }), async (a, b, max) => {
        const [x, y] = [bytesLiteral(a), bytesLiteral(b)];
        const expected = distance(a, b);
        expect(await outcome(`SELECT EDIT_DISTANCE(${x}, ${y}) AS d, EDIT_DISTANCE(${x}, ${y}, max_distance => ${max}) AS m`)).toEqual([{ d: expected, m: Math.min(expected, max) }]);
        expect(await outcome(`WITH t AS (SELECT ${x} AS x, ${y} AS y) SELECT EDIT_DISTANCE(x, y) AS d FROM t`)).toEqual([{ d: expected }]);
      }),
      { numRuns: 40 },
    );
  });
});
