/**
 * RANGE<DATE> on DuckDB (sql/functions/ranges.ts: a STRUCT whose unbounded bounds are infinite),
 * differentially: ranges drawn at random, built by RANGE() from columns, the query compiled for
 * DuckDB by the one generator and run on a real in-memory DuckDB, each answer checked against an
 * oracle of GoogleSQL's rules: ranges order by start then end, an unbounded start before every
 * date and an unbounded end after; RANGE_CONTAINS, RANGE_OVERLAPS and RANGE_INTERSECT over
 * [start, end); the wire writes an unbounded bound as null.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { toWireValue } from '../../src/backends/duckdb/values.js';
import type { WireRow } from '../../src/core/types.js';
import { duckDbDialect } from '../../src/sql/dialects/duckdb/dialect.js';
import { generate } from '../../src/sql/generator/generate.js';
import { parseQuery } from '../../src/sql/parse/to-tree.js';
import { serviceDuckDbForFile } from '../support/duckdb.js';

const RUNS = 30;
const dialect = duckDbDialect([]);
const duck = serviceDuckDbForFile();

async function rows(sql: string): Promise<WireRow[]> {
  const reader = await duck.connection().runAndReadAll(generate(parseQuery(sql), dialect).sql);
  return JSON.parse(JSON.stringify(reader.convertRowObjects(toWireValue))) as WireRow[];
}

/** A range of days after 2020-01-01, either bound unbounded (null), start < end. */
interface Range {
  start: number | null;
  end: number | null;
}

const range: fc.Arbitrary<Range> = fc
  .tuple(fc.option(fc.integer({ min: 0, max: 20 }), { freq: 4 }), fc.option(fc.integer({ min: 1, max: 8 }), { freq: 4 }))
  .map(([start, length]) => ({ start, end: length === null ? null : (start ?? 10) + length }));

const dayText = (day: number) => new Date(Date.UTC(2020, 0, 1 + day)).toISOString().slice(0, 10);
const dateSql = (day: number | null) => (day === null ? 'CAST(NULL AS DATE)' : `DATE '${dayText(day)}'`);
const wire = (value: Range) => ({ start: value.start === null ? null : dayText(value.start), end: value.end === null ? null : dayText(value.end) });

/** The bounds as numbers an unbounded start sorts before and an unbounded end after. */
const low = (value: Range) => value.start ?? -Infinity;
const high = (value: Range) => value.end ?? Infinity;
const compare = (a: Range, b: Range) => Math.sign(low(a) - low(b)) || Math.sign(high(a) - high(b)) || 0;

/** Rows of two ranges' bounds as DATE columns, read back by RANGE(). */
function pairs(list: readonly [Range, Range][]): string {
  const structs = list.map(([a, b], i) => `STRUCT(${i} AS i, ${dateSql(a.start)} AS s1, ${dateSql(a.end)} AS e1, ${dateSql(b.start)} AS s2, ${dateSql(b.end)} AS e2)`);
  return `(SELECT * FROM UNNEST([${structs.join(', ')}]))`;
}

describe('RANGE<DATE> on DuckDB against GoogleSQL\'s rules', () => {
  it('orders, groups and writes ranges as BigQuery does', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(range, { minLength: 1, maxLength: 8 }), async (list) => {
        const structs = list.map((value, i) => `STRUCT(${i} AS i, ${dateSql(value.start)} AS s, ${dateSql(value.end)} AS e)`);
        const answer = await rows(`SELECT r, COUNT(*) AS n FROM (SELECT RANGE(s, e) AS r FROM UNNEST([${structs.join(', ')}])) GROUP BY r ORDER BY r`);
        const groups: { value: Range; n: number }[] = [];
        for (const value of [...list].sort(compare)) {
          const last = groups[groups.length - 1];
          if (last && compare(last.value, value) === 0) last.n++;
          else groups.push({ value, n: 1 });
        }
        expect(answer).toEqual(groups.map(({ value, n }) => ({ r: wire(value), n })));
      }),
      { numRuns: RUNS },
    );
  });

  it('compares, contains, overlaps and intersects as BigQuery does', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(range, range), { minLength: 1, maxLength: 6 }), async (list) => {
        const answer = await rows(
          `SELECT i, RANGE(s1, e1) < RANGE(s2, e2) AS less, RANGE(s1, e1) = RANGE(s2, e2) AS same, ` +
            `RANGE_CONTAINS(RANGE(s1, e1), RANGE(s2, e2)) AS holds, RANGE_CONTAINS(RANGE(s1, e1), s2) AS holds_start, ` +
            `RANGE_OVERLAPS(RANGE(s1, e1), RANGE(s2, e2)) AS overlap, ` +
            `IF(RANGE_OVERLAPS(RANGE(s1, e1), RANGE(s2, e2)), RANGE_INTERSECT(RANGE(s1, e1), RANGE(s2, e2)), NULL) AS common ` +
            `FROM ${pairs(list)} ORDER BY i`,
        );
        const expected = list.map(([a, b], i) => {
          const overlap = low(a) < high(b) && low(b) < high(a);
          const start = Math.max(low(a), low(b));
          const end = Math.min(high(a), high(b));
          return {
            i,
            less: compare(a, b) < 0,
            same: compare(a, b) === 0,
            holds: low(a) <= low(b) && high(b) <= high(a),
            holds_start: b.start === null ? null : low(a) <= b.start && b.start < high(a),
            overlap,
            common: overlap ? wire({ start: Number.isFinite(start) ? start : null, end: Number.isFinite(end) ? end : null }) : null,
          };
        });
        expect(answer).toEqual(expected);
      }),
      { numRuns: RUNS },
    );
  });

  it('is an error where RANGE() of columns has start >= end, and where RANGE_INTERSECT\'s ranges do not overlap', async () => {
    await expect(rows(`SELECT RANGE(s, e) AS r FROM UNNEST([STRUCT(DATE '2020-01-02' AS s, DATE '2020-01-02' AS e)])`)).rejects.toThrow(/Range start element must be smaller than range end element/);
    await expect(rows(`SELECT RANGE_INTERSECT(RANGE(s, e), RANGE(e, NULL)) AS r FROM UNNEST([STRUCT(DATE '2020-01-01' AS s, DATE '2020-01-02' AS e)])`)).rejects.toThrow(/Provided RANGE inputs do not overlap/);
  });
});
