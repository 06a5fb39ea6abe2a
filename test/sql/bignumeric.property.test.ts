/**
 * BIGNUMERIC on DuckDB against JavaScript's BigInt: values drawn from BIGNUMERIC's whole range (its
 * ends, values of every length, of few digits and of 38 places) as units of 10^-38, written as
 * BigQuery's literals, added, subtracted, multiplied, divided, negated, compared, rounded, cast to
 * STRING and aggregated by a query compiled for DuckDB by the one generator, run on a real DuckDB
 * and read through the wire converter; each answer is the BigInt's, rounded half away from zero at
 * 38 places, or BigQuery's overflow or division by zero error (GoogleSQL's numeric types: BIGNUMERIC
 * is a 256-bit count of units of 10^-38). Written apart from the code under test: the literal's
 * text, the oracle's rounding and decimal, and a double's exact value are this file's own.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { serviceDuckDbForFile } from '../support/duckdb.js';
import { toWireValue } from '../../src/backends/duckdb/values.js';
import type { WireRow } from '../../src/core/types.js';
import { wireDecimal } from '../../src/core/wire-decimal.js';
import { duckDbDialect } from '../../src/sql/dialects/duckdb/dialect.js';
import { generate } from '../../src/sql/generator/generate.js';
import { parseQuery } from '../../src/sql/parse/to-tree.js';

const RUNS = 40;
const MAX = 2n ** 255n - 1n;
const MIN = -(2n ** 255n);
const dialect = duckDbDialect([]);
// As the service opens DuckDB: with the host functions `*`, `/` and the rounding functions call.
const duck = serviceDuckDbForFile();

async function answer(sql: string): Promise<WireRow[] | { error: string }> {
  try {
    const reader = await duck.connection().runAndReadAll(generate(parseQuery(sql), dialect).sql);
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
const BY_ZERO = { error: expect.stringContaining('division by zero') };
const ONE = 10n ** 38n;

const magnitude = (value: bigint) => (value < 0n ? -value : value);

/** n / d (d not 0) rounded half away from zero: the quotient of the magnitudes, signed after. */
function halfAway(n: bigint, d: bigint): bigint {
  const q = magnitude(n) / magnitude(d);
  const rounded = 2n * (magnitude(n) % magnitude(d)) >= magnitude(d) ? q + 1n : q;
  return n < 0n !== d < 0n ? -rounded : rounded;
}

/** What a query answers for one BIGNUMERIC value: the wire's decimal, or the overflow error. */
const answered = (units: bigint) => (inRange(units) ? [{ v: wire(units) }] : OVERFLOW);

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

  it('* and /: exact products and quotients rounded half away from zero at 38 places, or BigQuery\'s errors', async () => {
    await fc.assert(
      fc.asyncProperty(units, units, async (a, b) => {
        expect(await answer(`SELECT ${literal(a)} * ${literal(b)} AS v`)).toEqual(answered(halfAway(a * b, ONE)));
        expect(await answer(`SELECT ${literal(a)} / ${literal(b)} AS v`)).toEqual(b === 0n ? BY_ZERO : answered(halfAway(a * ONE, b)));
      }),
      { numRuns: RUNS },
    );
  });

  it('DIV and MOD: the truncated quotient as a BIGNUMERIC, the remainder with the dividend\'s sign', async () => {
    await fc.assert(
      fc.asyncProperty(units, units, async (a, b) => {
        // BigInt's / truncates toward zero and its % keeps the dividend's sign, as GoogleSQL's DIV and MOD.
        expect(await answer(`SELECT DIV(${literal(a)}, ${literal(b)}) AS v`)).toEqual(b === 0n ? BY_ZERO : answered((a / b) * ONE));
        expect(await answer(`SELECT MOD(${literal(a)}, ${literal(b)}) AS v`)).toEqual(b === 0n ? BY_ZERO : answered(a % b));
      }),
      { numRuns: RUNS },
    );
  });

  it('ROUND (both modes), TRUNC, CEIL, FLOOR and SIGN, at any places: exact, or an overflow error past the range', async () => {
    await fc.assert(
      fc.asyncProperty(units, fc.integer({ min: -80, max: 45 }), async (a, places) => {
        const step = places >= 38 ? 1n : 10n ** BigInt(38 - places);
        const truncated = a / step;
        const rest = a - truncated * step;
        const halfEven = 2n * magnitude(rest) === step && truncated % 2n === 0n ? truncated : halfAway(a, step);
        const cases: [string, bigint][] = [
          [`ROUND(${literal(a)}, ${places})`, halfAway(a, step) * step],
          [`ROUND(${literal(a)}, ${places}, 'ROUND_HALF_EVEN')`, halfEven * step],
          [`TRUNC(${literal(a)}, ${places})`, truncated * step],
          [`ROUND(${literal(a)})`, halfAway(a, ONE) * ONE],
          [`CEIL(${literal(a)})`, (a / ONE + (a % ONE > 0n ? 1n : 0n)) * ONE],
          [`FLOOR(${literal(a)})`, (a / ONE - (a % ONE < 0n ? 1n : 0n)) * ONE],
          [`SIGN(${literal(a)})`, (a > 0n ? 1n : a < 0n ? -1n : 0n) * ONE],
        ];
        for (const [call, expected] of cases) expect(await answer(`SELECT ${call} AS v`), call).toEqual(answered(expected));
      }),
      { numRuns: RUNS },
    );
  });

  it('AVG of INT64 rows plus a BIGNUMERIC: the exact sum over the count, rounded half away from zero', async () => {
    const int64 = fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n });
    await fc.assert(
      fc.asyncProperty(fc.array(int64, { minLength: 1, maxLength: 7 }), units, async (rows, shift) => {
        const values = rows.map((row) => row * ONE + shift);
        const sql = `SELECT AVG(CAST(i AS BIGNUMERIC) + ${literal(shift)}) AS v FROM UNNEST([${rows.join(', ')}]) AS i`;
        const sum = values.reduce((total, value) => total + value, 0n);
        // The sum may pass the range; the mean of values within it never does.
        expect(await answer(sql)).toEqual(values.every(inRange) ? [{ v: wire(halfAway(sum, BigInt(values.length))) }] : OVERFLOW);
      }),
      { numRuns: RUNS },
    );
  });

  it('CAST of a FLOAT64 to BIGNUMERIC: the double\'s exact value rounded half away from zero, or an error', async () => {
    const view = new DataView(new ArrayBuffer(8));
    /** The double as mantissa * 2^exponent, read from its bits. */
    const binary = (value: number): [bigint, bigint] => {
      view.setFloat64(0, value);
      const bits = view.getBigUint64(0);
      const field = (bits >> 52n) & 0x7ffn;
      const fraction = bits & ((1n << 52n) - 1n);
      const mantissa = field === 0n ? fraction : fraction | (1n << 52n);
      return [bits >> 63n === 1n ? -mantissa : mantissa, (field === 0n ? 1n : field) - 1075n];
    };
    const doubles = fc.oneof(
      fc.double(),
      fc.double({ min: -1e40, max: 1e40 }),
      fc.double({ min: -1e-30, max: 1e-30 }),
      // Odd multiples of 2^-39: exactly half a unit of 10^-38 away from a multiple of one.
      fc.integer({ min: -(2 ** 30), max: 2 ** 30 }).map((m) => (2 * m + 1) * 2 ** -39),
    );
    await fc.assert(
      fc.asyncProperty(doubles, async (value) => {
        const text = Number.isNaN(value) ? 'nan' : value === Infinity ? 'inf' : value === -Infinity ? '-inf' : String(value);
        const result = await answer(`SELECT CAST(CAST('${text}' AS FLOAT64) AS BIGNUMERIC) AS v`);
        if (!Number.isFinite(value)) {
          // Not `return expect(...)`: fast-check reads a returned false as the property failing.
          expect(result).toEqual({ error: expect.stringContaining('Illegal conversion of non-finite floating point number to BIGNUMERIC') });
          return;
        }
        const [mantissa, exponent] = binary(value);
        const units = exponent >= 0n ? mantissa * 2n ** exponent * ONE : halfAway(mantissa * ONE, 2n ** -exponent);
        expect(result).toEqual(inRange(units) ? [{ v: wire(units) }] : { error: expect.stringContaining('BIGNUMERIC out of range') });
      }),
      { numRuns: RUNS * 3 },
    );
  });

  it('IN, BETWEEN, CASE, IF, COALESCE, NULLIF, GREATEST and LEAST: exact comparisons and choices, an INT64 coerced', async () => {
    const small = fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n });
    await fc.assert(
      fc.asyncProperty(units, units, small, async (a, b, i) => {
        const [x, y] = [literal(a), literal(b)];
        const sql =
          `SELECT ${x} IN (${y}, ${i}) AS inside, ${x} BETWEEN ${y} AND ${i} AS within, ` +
          `CASE WHEN ${x} < ${y} THEN ${x} ELSE ${i} END AS chosen, IF(${x} = ${y}, ${y}, ${i}) AS picked, ` +
          `COALESCE(${x}, ${i}) AS first, NULLIF(${x}, ${y}) AS unless, GREATEST(${x}, ${y}, ${i}) AS most, LEAST(${x}, ${y}, ${i}) AS fewest`;
        const whole = i * ONE;
        const max = [a, b, whole].reduce((m, v) => (v > m ? v : m));
        const min = [a, b, whole].reduce((m, v) => (v < m ? v : m));
        expect(await answer(sql)).toEqual([
          {
            inside: a === b || a === whole,
            within: b <= a && a <= whole,
            chosen: wire(a < b ? a : whole),
            picked: wire(a === b ? b : whole),
            first: wire(a),
            unless: a === b ? null : wire(a),
            most: wire(max),
            fewest: wire(min),
          },
        ]);
      }),
      { numRuns: RUNS },
    );
  });

  it('* / and < with an INT64 column the query does not type: coerced when it runs, exact', async () => {
    const int64 = fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n });
    await fc.assert(
      fc.asyncProperty(units, int64, async (a, i) => {
        const whole = i * ONE;
        const product = halfAway(a * whole, ONE);
        const quotient = i === 0n ? undefined : halfAway(a * ONE, whole);
        const result = await answer(`SELECT ${literal(a)} * i AS p FROM UNNEST([${i}]) AS i`);
        expect(result).toEqual(inRange(product) ? [{ p: wire(product) }] : OVERFLOW);
        const divided = await answer(`SELECT ${literal(a)} / i AS q, ${literal(a)} < i AS lt FROM UNNEST([${i}]) AS i`);
        expect(divided).toEqual(quotient === undefined ? BY_ZERO : inRange(quotient) ? [{ q: wire(quotient), lt: a < whole }] : OVERFLOW);
      }),
      { numRuns: RUNS },
    );
  });

  it('a BIGNUMERIC carried out of a CTE and a FROM subquery keeps its value', async () => {
    await fc.assert(
      fc.asyncProperty(units, units, async (a, b) => {
        expect(await answer(`WITH t AS (SELECT ${literal(a)} AS x) SELECT x FROM (SELECT *, 1 AS k FROM t) WHERE x IS NOT NULL`)).toEqual([{ x: wire(a) }]);
        expect(await answer(`SELECT x FROM (SELECT ${literal(b)} - ${literal(a)} AS x) GROUP BY x ORDER BY x`)).toEqual(inRange(b - a) ? [{ x: wire(b - a) }] : OVERFLOW);
      }),
      { numRuns: RUNS },
    );
  });
});
