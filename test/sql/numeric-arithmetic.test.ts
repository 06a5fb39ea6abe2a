/**
 * NUMERIC division, multiplication, AVG and CAST from FLOAT64 on the embedded engine against exact
 * arithmetic done here with BigInt: random NUMERIC operands (units of 10^-9, up to NUMERIC's 38
 * digits), BigQuery's rule (the exact quotient, product, mean or double's value rounded half away
 * from zero to 9 decimal places, still a NUMERIC), compiled by the one
 * generator and run on a real DuckDB. The answers are read as DuckDB's DECIMAL text, every digit,
 * not through the wire's double, so a last-place difference fails.
 */
import type { DuckDBConnection } from '#duckdb-api';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { duckDbDialect } from '../../src/sql/dialects/duckdb/dialect.js';
import { generate } from '../../src/sql/generator/generate.js';
import { parseQuery } from '../../src/sql/parse/to-tree.js';
import { connectDuckDB } from '../support/duckdb.js';

const SCALE = 10n ** 9n;
const LIMIT = 10n ** 38n;
const dialect = duckDbDialect([]);
let connection: DuckDBConnection;
let close: () => void;

beforeAll(async () => {
  ({ connection, close } = await connectDuckDB());
});

afterAll(() => close?.());

/** A NUMERIC's text from its units (`-0.000000001`), as a NUMERIC literal takes it. */
function text(units: bigint): string {
  const digits = (units < 0n ? -units : units).toString().padStart(10, '0');
  return `${units < 0n ? '-' : ''}${digits.slice(0, -9)}.${digits.slice(-9)}`;
}

/** n / d rounded half away from zero. */
function divideRounded(n: bigint, d: bigint): bigint {
  const negative = n < 0n !== d < 0n;
  const [a, b] = [n < 0n ? -n : n, d < 0n ? -d : d];
  const q = a / b + (2n * (a % b) >= b ? 1n : 0n);
  return negative ? -q : q;
}

/** Units of up to `digits` digits, either sign, small and large magnitudes alike. */
function units(digits: number): fc.Arbitrary<bigint> {
  return fc.tuple(fc.integer({ min: 1, max: digits }), fc.bigInt({ min: 0n, max: 10n ** BigInt(digits) - 1n }), fc.boolean())
    .map(([length, value, negative]) => (negative ? -1n : 1n) * (value % 10n ** BigInt(length)));
}

async function decimals(sql: string): Promise<string[]> {
  const compiled = generate(parseQuery(sql), dialect, { rowCap: 1000 }).sql;
  const reader = await connection.runAndReadAll(compiled);
  return reader.getRowObjectsJson().map((row) => String(row.q));
}

describe('NUMERIC division', () => {
  it('is the exact quotient rounded half away from zero to 9 decimal places', async () => {
    // Divisors below 10^20 (the embedded engine refuses a larger one, by name, when the remainder needs more than 128 bits).
    const pair = fc.tuple(units(38), units(29)).filter(([n, d]) => d !== 0n && (divideRounded(n * SCALE, d) < LIMIT && divideRounded(n * SCALE, d) > -LIMIT));
    await fc.assert(
      fc.asyncProperty(fc.array(pair, { minLength: 1, maxLength: 40 }), async (pairs) => {
        const rows = pairs.map(([n, d]) => `select numeric '${text(n)}' as x, numeric '${text(d)}' as y`).join(' union all ');
        const got = await decimals(`select x / y as q from (${rows})`);
        expect(got).toEqual(pairs.map(([n, d]) => text(divideRounded(n * SCALE, d))));
      }),
      { numRuns: 15 },
    );
  });

  it('rounds the halfway cases away from zero, either sign', async () => {
    const got = await decimals("select x / y as q from (select numeric '0.000000001' as x, numeric '2' as y union all select numeric '-0.000000001', numeric '2' union all select numeric '0.000000003', numeric '-2')");
    expect(got).toEqual(['0.000000001', '-0.000000001', '-0.000000002']);
  });
});

describe('AVG of NUMERIC', () => {
  it('is the exact mean rounded half away from zero to 9 decimal places', async () => {
    const values = fc.array(units(30), { minLength: 1, maxLength: 7 });
    await fc.assert(
      fc.asyncProperty(values, async (group) => {
        const rows = group.map((n) => `select numeric '${text(n)}' as x`).join(' union all ');
        const got = await decimals(`select avg(x) as q from (${rows})`);
        const sum = group.reduce((a, b) => a + b, 0n);
        expect(got).toEqual([text(divideRounded(sum, BigInt(group.length)))]);
      }),
      { numRuns: 30 },
    );
  });
});

describe('NUMERIC multiplication', () => {
  it('is the exact product rounded half away from zero to 9 decimal places', async () => {
    const pair = fc.tuple(units(38), units(38)).filter(([a, b]) => {
      const product = divideRounded(a * b, SCALE);
      return product < LIMIT && product > -LIMIT;
    });
    await fc.assert(
      fc.asyncProperty(fc.array(pair, { minLength: 1, maxLength: 40 }), async (pairs) => {
        const rows = pairs.map(([a, b]) => `select numeric '${text(a)}' as x, numeric '${text(b)}' as y`).join(' union all ');
        const got = await decimals(`select x * y as q from (${rows})`);
        expect(got).toEqual(pairs.map(([a, b]) => text(divideRounded(a * b, SCALE))));
      }),
      { numRuns: 15 },
    );
  });
});

/** A double's exact value as a fraction: numerator and a power-of-two denominator. */
function exactFraction(value: number): [bigint, bigint] {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, value);
  const bits = view.getBigUint64(0);
  const exponent = Number((bits >> 52n) & 0x7ffn);
  const mantissa = bits & ((1n << 52n) - 1n);
  const sign = bits >> 63n ? -1n : 1n;
  const [m, e] = exponent === 0 ? [mantissa, -1074] : [mantissa | (1n << 52n), exponent - 1075];
  return e >= 0 ? [sign * m * 2n ** BigInt(e), 1n] : [sign * m, 2n ** BigInt(-e)];
}

describe('CAST of a FLOAT64 to NUMERIC', () => {
  it("is the double's exact value rounded half away from zero to 9 decimal places", async () => {
    // Doubles near the ninth place and across NUMERIC's range, each written with every digit JavaScript needs.
    const double = fc.oneof(fc.double({ min: -1e-6, max: 1e-6, noNaN: true }), fc.double({ min: -1e28, max: 1e28, noNaN: true }), fc.integer({ min: -2_000_000, max: 2_000_000 }).map((n) => (n + 0.5) / 1e9));
    await fc.assert(
      fc.asyncProperty(fc.array(double, { minLength: 1, maxLength: 40 }), async (values) => {
        const rows = values.map((value) => `select cast('${value}' as float64) as x`).join(' union all ');
        const got = await decimals(`select cast(x as numeric) as q from (${rows})`);
        expect(got).toEqual(values.map((value) => {
          const [numerator, denominator] = exactFraction(value);
          return text(divideRounded(numerator * SCALE, denominator));
        }));
      }),
      { numRuns: 15 },
    );
  });
});
