/**
 * BIGNUMERIC on DuckDB against JavaScript's BigInt: values drawn from BIGNUMERIC's whole range (its
 * ends, values of every length, of few digits and of 38 places) as units of 10^-38, written as
 * BigQuery's literals, added, subtracted, negated, compared, cast to STRING and aggregated by a
 * query compiled for DuckDB by the one generator, run on a real DuckDB and read through the wire
 * converter; each answer is the BigInt's, or BigQuery's overflow error past the range (GoogleSQL's
 * numeric types: BIGNUMERIC is a 256-bit count of units of 10^-38). Written apart from the code
 * under test: the literal's text and the oracle's decimal are this file's own.
 */
import type { DuckDBConnection } from '#duckdb-api';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toWireValue } from '../../src/backends/duckdb/values.js';
import type { WireRow } from '../../src/core/types.js';
import { wireDecimal } from '../../src/core/wire-decimal.js';
import { duckDbDialect } from '../../src/sql/dialects/duckdb/dialect.js';
import { generate } from '../../src/sql/generator/generate.js';
import { parseQuery } from '../../src/sql/parse/to-tree.js';
import { connectDuckDB } from '../support/duckdb.js';

const RUNS = 40;
const MAX = 2n ** 255n - 1n;
const MIN = -(2n ** 255n);
const dialect = duckDbDialect([]);
let connection: DuckDBConnection;
let close: () => void;

beforeAll(async () => {
  ({ connection, close } = await connectDuckDB());
});

afterAll(() => close?.());

async function answer(sql: string): Promise<WireRow[] | { error: string }> {
  try {
    const reader = await connection.runAndReadAll(generate(parseQuery(sql), dialect).sql);
    return JSON.parse(JSON.stringify(reader.convertRowObjects(toWireValue))) as WireRow[];
  } catch (error) {
    return { error: (error as Error).message };
  }
}

/** Units of 10^-38 as a decimal's text, trailing zeros kept (`1.50000`): a literal need not be canonical. */
function decimal(units: bigint): string {
  const digits = (units < 0n ? -units : units).toString().padStart(39, '0');
  return `${units < 0n ? '-' : ''}${digits.slice(0, -38)}.${digits.slice(-38)}`;
}

function literal(units: bigint): string {
  return `BIGNUMERIC '${decimal(units)}'`;
}

/** What the wire carries for a BIGNUMERIC: its canonical decimal, as a number where a double reads it back. */
function wire(units: bigint): unknown {
  const text = decimal(units).replace(/0+$/, '').replace(/\.$/, '');
  return JSON.parse(JSON.stringify(wireDecimal(text === '-0' ? '0' : text)));
}

const inRange = (units: bigint) => units >= MIN && units <= MAX;

/** Values of the whole range: its ends, any of 256 bits, small ones, whole numbers. */
const units = fc.oneof(
  fc.constantFrom(MIN, MAX, MIN + 1n, MAX - 1n, 0n, 1n, -1n),
  fc.bigInt({ min: MIN, max: MAX }),
  fc.bigInt({ min: -(10n ** 40n), max: 10n ** 40n }),
  fc.bigInt({ min: -(10n ** 20n), max: 10n ** 20n }).map((whole) => whole * 10n ** 38n),
);

const OVERFLOW = { error: expect.stringContaining('BIGNUMERIC overflow') };

describe('BIGNUMERIC on DuckDB, against BigInt', () => {
  it('+ and - of two, unary minus: exact, or an overflow error past the range', async () => {
    await fc.assert(
      fc.asyncProperty(units, units, async (a, b) => {
        for (const [sql, expected] of [
          [`SELECT ${literal(a)} + ${literal(b)} AS v`, a + b],
          [`SELECT ${literal(a)} - ${literal(b)} AS v`, a - b],
          [`SELECT -${literal(a)} AS v`, -a],
        ] as const) {
          expect(await answer(sql)).toEqual(inRange(expected) ? [{ v: wire(expected) }] : OVERFLOW);
        }
      }),
      { numRuns: RUNS },
    );
  });

  it('comparisons and CAST to STRING', async () => {
    await fc.assert(
      fc.asyncProperty(units, units, async (a, b) => {
        const text = (value: bigint) => {
          const canonical = decimal(value).replace(/0+$/, '').replace(/\.$/, '');
          return canonical === '-0' ? '0' : canonical;
        };
        const sql = `SELECT ${literal(a)} < ${literal(b)} AS lt, ${literal(a)} = ${literal(b)} AS eq, ${literal(a)} >= ${literal(b)} AS ge, CAST(${literal(a)} AS STRING) AS s`;
        expect(await answer(sql)).toEqual([{ lt: a < b, eq: a === b, ge: a >= b, s: text(a) }]);
      }),
      { numRuns: RUNS },
    );
  });

  it('SUM, MIN and MAX of INT64 rows plus a BIGNUMERIC: exact, or an overflow error past the range', async () => {
    const int64 = fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n });
    await fc.assert(
      fc.asyncProperty(fc.array(int64, { minLength: 1, maxLength: 6 }), units, async (rows, shift) => {
        const values = rows.map((row) => row * 10n ** 38n + shift);
        const sql = `SELECT SUM(CAST(i AS BIGNUMERIC) + ${literal(shift)}) AS s, MIN(CAST(i AS BIGNUMERIC) + ${literal(shift)}) AS lo, MAX(CAST(i AS BIGNUMERIC) + ${literal(shift)}) AS hi FROM UNNEST([${rows.join(', ')}]) AS i`;
        const sum = values.reduce((total, value) => total + value, 0n);
        const expected = values.every(inRange) && inRange(sum)
          ? [{ s: wire(sum), lo: wire(values.reduce((x, y) => (y < x ? y : x))), hi: wire(values.reduce((x, y) => (y > x ? y : x))) }]
          : OVERFLOW;
        expect(await answer(sql)).toEqual(expected);
      }),
      { numRuns: RUNS },
    );
  });
});
