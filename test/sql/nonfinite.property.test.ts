/**
 * NaN and the infinities, differentially: FLOAT64 values drawn from NULL, NaN, ±inf, ±0 and a few
 * numbers, compared, bounded, listed, ordered, aggregated and grouped by a query compiled for
 * DuckDB by the one generator, run on a real DuckDB and read through the wire converter, each
 * answer checked against an oracle of GoogleSQL's rules ("Floating point semantics"; ZetaSQL's
 * comparison_functions, analytic_min_max and orderby compliance tests): a comparison with NaN is
 * FALSE (`!=` TRUE, NULL first), NaN sorts after NULL and before -inf ascending, MIN and MAX over
 * a NaN are NaN, NaNs (and 0, -0) group together, and on the wire NaN and the infinities are the
 * strings BigQuery's REST API writes. The values are FLOAT64 by the query's text (a CAST), or a
 * column of an UNNEST compared with one, as the generator's NaN rules apply there (nan.ts).
 */
import type { DuckDBConnection } from '#duckdb-api';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toWireValue } from '../../src/backends/duckdb/values.js';
import type { WireRow, WireValue } from '../../src/core/types.js';
import { wireFloat } from '../../src/core/wire-float.js';
import { duckDbDialect } from '../../src/sql/dialects/duckdb/dialect.js';
import { generate } from '../../src/sql/generator/generate.js';
import { parseQuery } from '../../src/sql/parse/to-tree.js';
import { connectDuckDB } from '../support/duckdb.js';

const RUNS = 40;
const dialect = duckDbDialect([]);
let connection: DuckDBConnection;
let close: () => void;

beforeAll(async () => {
  ({ connection, close } = await connectDuckDB());
});

afterAll(() => close?.());

/** The rows as a caller reads them: the wire values, through JSON (where -0 is 0). */
async function answer(sql: string): Promise<WireRow[]> {
  const reader = await connection.runAndReadAll(generate(parseQuery(sql), dialect).sql);
  return JSON.parse(JSON.stringify(reader.convertRowObjects(toWireValue))) as WireRow[];
}

const float = fc.constantFrom<number | null>(null, NaN, Infinity, -Infinity, 0, -0, -1.5, 2, 1e308);

/** A FLOAT64 by the query's text. */
function literal(value: number | null): string {
  if (value === null) return 'CAST(NULL AS FLOAT64)';
  if (Number.isNaN(value)) return "CAST('nan' AS FLOAT64)";
  if (!Number.isFinite(value)) return `CAST('${value > 0 ? 'inf' : '-inf'}' AS FLOAT64)`;
  return `CAST(${Object.is(value, -0) ? '-0.0' : String(value)} AS FLOAT64)`;
}

/** FLOAT64 values as an UNNEST's column, whose type the query does not say. */
function column(values: readonly (number | null)[]): string {
  return `UNNEST([${values.map(literal).join(', ')}]) AS x`;
}

const wire = (value: number | null): WireValue => (value === null ? null : JSON.parse(JSON.stringify(wireFloat(value))));

type Bool = boolean | null;

const COMPARE: Record<string, (a: number, b: number) => boolean> = {
  '=': (a, b) => a === b,
  '!=': (a, b) => a !== b,
  '<>': (a, b) => a !== b,
  '<': (a, b) => a < b,
  '<=': (a, b) => a <= b,
  '>': (a, b) => a > b,
  '>=': (a, b) => a >= b,
};

/** GoogleSQL's comparison: NULL with a NULL; with a NaN FALSE, or TRUE for `!=`; else IEEE's. */
function compare(operator: string, a: number | null, b: number | null): Bool {
  if (a === null || b === null) return null;
  // JavaScript's comparisons are IEEE 754's, GoogleSQL's: NaN is unequal to everything.
  return COMPARE[operator]!(a, b);
}

function and(a: Bool, b: Bool): Bool {
  if (a === false || b === false) return false;
  return a === null || b === null ? null : true;
}

function or(a: Bool, b: Bool): Bool {
  if (a === true || b === true) return true;
  return a === null || b === null ? null : false;
}

const not = (a: Bool): Bool => (a === null ? null : !a);

/** BigQuery's ascending order of non-NULL FLOAT64 values: NaN, -inf, ..., +inf (0 and -0 tie). */
function ascending(a: number, b: number): number {
  if (Number.isNaN(a) || Number.isNaN(b)) return Number(!Number.isNaN(a)) - Number(!Number.isNaN(b));
  return a < b ? -1 : a > b ? 1 : 0;
}

describe('NaN and the infinities, as GoogleSQL defines them', () => {
  it('comparisons: FLOAT64 with FLOAT64, and a column with a FLOAT64', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...Object.keys(COMPARE)), float, float, async (operator, a, b) => {
        const expected = compare(operator, a, b);
        expect(await answer(`SELECT ${literal(a)} ${operator} ${literal(b)} AS v`)).toEqual([{ v: expected }]);
        expect(await answer(`SELECT x ${operator} ${literal(b)} AS v FROM ${column([a])}`)).toEqual([{ v: expected }]);
      }),
      { numRuns: RUNS },
    );
  });

  it('BETWEEN and IN, and their NOT', async () => {
    await fc.assert(
      fc.asyncProperty(float, float, float, fc.boolean(), async (x, low, high, negated) => {
        const between = and(compare('>=', x, low), compare('<=', x, high));
        const within = or(compare('=', x, low), compare('=', x, high));
        const n = negated ? 'NOT ' : '';
        const [row] = await answer(`SELECT x ${n}BETWEEN ${literal(low)} AND ${literal(high)} AS b, x ${n}IN (${literal(low)}, ${literal(high)}) AS i FROM ${column([x])}`);
        expect(row).toEqual({ b: negated ? not(between) : between, i: negated ? not(within) : within });
      }),
      { numRuns: RUNS },
    );
  });

  it('ORDER BY, ascending or descending, NULLS FIRST or LAST', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(float, { minLength: 1, maxLength: 7 }), fc.constantFrom('ASC', 'DESC'), fc.constantFrom('', ' NULLS FIRST', ' NULLS LAST'), async (values, direction, nulls) => {
        const nullsFirst = nulls === '' ? direction === 'ASC' : nulls === ' NULLS FIRST';
        const order = (a: number | null, b: number | null) => {
          if (a === null || b === null) return a === b ? 0 : (a === null) === nullsFirst ? -1 : 1;
          return direction === 'ASC' ? ascending(a, b) : ascending(b, a);
        };
        // Ties (0 and -0, two NaNs) are written alike on the wire, so any order of them matches.
        const expected = [...values].sort(order).map((value) => ({ x: wire(value) }));
        expect(await answer(`SELECT x FROM ${column(values)} ORDER BY CAST(x AS FLOAT64) ${direction}${nulls}`)).toEqual(expected);
      }),
      { numRuns: RUNS },
    );
  });

  it('MIN and MAX (an aggregate and over a window), and grouping: NaNs together, 0 with -0', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(float, { minLength: 1, maxLength: 7 }), async (values) => {
        const present = values.filter((value): value is number => value !== null);
        const nan = present.some(Number.isNaN);
        const extreme = (pick: (...numbers: number[]) => number) => (present.length === 0 ? null : nan ? NaN : pick(...present));
        const groups = new Set(values.map((value) => (value === null ? 'null' : Number.isNaN(value) ? 'nan' : String(value === 0 ? 0 : value))));
        const [row] = await answer(
          `SELECT MIN(CAST(x AS FLOAT64)) AS mn, MAX(CAST(x AS FLOAT64)) AS mx, (SELECT COUNT(*) FROM (SELECT DISTINCT y FROM UNNEST([${values.map(literal).join(', ')}]) AS y)) AS distinct_values FROM ${column(values)}`,
        );
        expect(row).toEqual({ mn: wire(extreme(Math.min)), mx: wire(extreme(Math.max)), distinct_values: groups.size });
        const windowed = await answer(`SELECT MIN(CAST(x AS FLOAT64)) OVER () AS mn FROM ${column(values)}`);
        expect(windowed).toEqual(values.map(() => ({ mn: wire(extreme(Math.min)) })));
      }),
      { numRuns: RUNS },
    );
  });
});
