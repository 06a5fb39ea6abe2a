/**
 * A differential check of the embedded engine against BigQuery's documented answers: expressions
 * are generated over the operators and functions whose semantics issue 25 pinned down, compiled
 * for DuckDB by the one generator, run on a real DuckDB and read through the wire converter, and
 * compared with an oracle computed here from the GoogleSQL reference's rules (64-bit two's
 * complement bit operations and logical shifts, three-valued comparisons, NULL-propagating
 * GREATEST/LEAST/CONCAT, INTERVAL's canonical text, subscripts that fail past the end).
 * A disagreement is a silent difference; an error where BigQuery has an answer is a failure too.
 */
import type { DuckDBConnection } from '#duckdb-api';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toWireValue } from '../../src/backends/duckdb/values.js';
import { writeBackRows } from '../../src/backends/duckdb/write-back.js';
import type { WireRow, WireValue } from '../../src/core/types.js';
import { wireInteger } from '../../src/core/wire-integer.js';
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

/** The one row of a BigQuery query, as the DuckDB backend answers it on the wire. */
async function answer(sql: string): Promise<WireRow> {
  const compiled = generate(parseQuery(sql), dialect);
  const reader = await connection.runAndReadAll(compiled.sql);
  return writeBackRows(reader.convertRowObjects(toWireValue) as WireRow[], compiled.writeBack)[0]!;
}

/** Whether the query fails, as BigQuery's does, rather than answering. */
async function fails(sql: string): Promise<boolean> {
  return answer(sql).then(
    () => false,
    () => true,
  );
}

const INT64_MAX = 2n ** 63n - 1n;
const int64 = fc.bigInt({ min: -INT64_MAX, max: INT64_MAX });
const small = fc.bigInt({ min: -1000n, max: 1000n });
const anyInt = fc.oneof(int64, small);
const nullableInt = fc.option(fc.integer({ min: -5, max: 5 }), { nil: null });

/** An INT64 as a BigQuery literal: a negative one is a minus sign before its magnitude. */
function literal(value: bigint | number | null): string {
  if (value === null) return 'CAST(NULL AS INT64)';
  return value < 0 ? `(-${-BigInt(value)})` : String(value);
}

const wire = (value: bigint): WireValue => wireInteger(BigInt.asIntN(64, value));

describe('bitwise operators against 64-bit two\'s complement', () => {
  it('&, |, ^ and ~', async () => {
    await fc.assert(
      fc.asyncProperty(anyInt, anyInt, async (a, b) => {
        const row = await answer(`select ${literal(a)} & ${literal(b)} as x, ${literal(a)} | ${literal(b)} as o, ${literal(a)} ^ ${literal(b)} as e, ~${literal(a)} as n`);
        expect(row).toEqual({ x: wire(a & b), o: wire(a | b), e: wire(a ^ b), n: wire(~a) });
      }),
      { numRuns: RUNS },
    );
  });

  it('<< and >> shift within 64 bits, >> filling with zeros, 0 from a shift of 64 or more', async () => {
    await fc.assert(
      fc.asyncProperty(anyInt, fc.integer({ min: 0, max: 70 }), async (a, by) => {
        const row = await answer(`select ${literal(a)} << ${by} as l, ${literal(a)} >> ${by} as r`);
        const left = by >= 64 ? 0n : BigInt.asIntN(64, a << BigInt(by));
        const right = by >= 64 ? 0n : BigInt.asIntN(64, BigInt.asUintN(64, a) >> BigInt(by));
        expect(row).toEqual({ l: wire(left), r: wire(right) });
      }),
      { numRuns: RUNS },
    );
  });
});

describe('NULL-aware comparisons and functions', () => {
  it('IS [NOT] DISTINCT FROM is never NULL', async () => {
    await fc.assert(
      fc.asyncProperty(nullableInt, nullableInt, async (a, b) => {
        const row = await answer(`select ${literal(a)} is distinct from ${literal(b)} as d, ${literal(a)} is not distinct from ${literal(b)} as n`);
        expect(row).toEqual({ d: a !== b, n: a === b });
      }),
      { numRuns: RUNS },
    );
  });

  it('GREATEST and LEAST are NULL when any argument is', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(nullableInt, { minLength: 1, maxLength: 4 }), async (values) => {
        const args = values.map(literal).join(', ');
        const row = await answer(`select greatest(${args}) as g, least(${args}) as l`);
        const known = values.every((value) => value !== null) ? (values as number[]) : undefined;
        expect(row).toEqual({ g: known ? Math.max(...known) : null, l: known ? Math.min(...known) : null });
      }),
      { numRuns: RUNS },
    );
  });

  it('CONCAT casts INT64 to STRING and is NULL when any argument is', async () => {
    const part = fc.oneof(nullableInt, fc.stringMatching(/^[a-z ]{0,4}$/));
    await fc.assert(
      fc.asyncProperty(fc.array(part, { minLength: 1, maxLength: 4 }), async (parts) => {
        const args = parts.map((part) => (typeof part === 'string' ? `'${part}'` : literal(part))).join(', ');
        const row = await answer(`select concat(${args}) as c`);
        expect(row).toEqual({ c: parts.includes(null) ? null : parts.map(String).join('') });
      }),
      { numRuns: RUNS },
    );
  });

  it('COUNTIF counts the TRUE conditions, 0 when there is none', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.option(fc.boolean(), { nil: null }), { maxLength: 6 }), async (conditions) => {
        const list = conditions.map((value) => (value === null ? 'CAST(NULL AS BOOL)' : String(value))).join(', ');
        const row = await answer(`select countif(c) as n from unnest(array<bool>[${list}]) as c`);
        expect(row).toEqual({ n: conditions.filter((value) => value === true).length });
      }),
      { numRuns: RUNS },
    );
  });
});

const DAY = 86_400_000;

function dateText(days: number): string {
  return new Date(days * DAY).toISOString().slice(0, 10);
}

function timestampText(micros: bigint): string {
  const millis = Number(micros / 1000n);
  return `${new Date(millis).toISOString().slice(0, 19).replace('T', ' ')}.${String(((micros % 1_000_000n) + 1_000_000n) % 1_000_000n).padStart(6, '0')}+00`;
}

/** BigQuery's canonical text of an INTERVAL of micros alone (`0-0 0 36:34:56.789`). */
function timeInterval(micros: bigint): string {
  const sign = micros < 0n ? '-' : '';
  const magnitude = micros < 0n ? -micros : micros;
  const seconds = magnitude / 1_000_000n;
  const fraction = magnitude % 1_000_000n;
  return `0-0 0 ${sign}${seconds / 3600n}:${(seconds / 60n) % 60n}:${seconds % 60n}${fraction ? `.${String(fraction).padStart(6, '0').replace(/0+$/, '')}` : ''}`;
}

describe('date and time differences are BigQuery\'s INTERVALs', () => {
  it('DATE - DATE is days alone', async () => {
    const day = fc.integer({ min: -20_000, max: 40_000 });
    await fc.assert(
      fc.asyncProperty(day, day, async (a, b) => {
        const row = await answer(`select date '${dateText(a)}' - date '${dateText(b)}' as d`);
        expect(row).toEqual({ d: `0-0 ${a - b} 0:0:0` });
      }),
      { numRuns: RUNS },
    );
  });

  it('TIMESTAMP - TIMESTAMP is a time alone, never days', async () => {
    const instant = fc.bigInt({ min: 0n, max: 4_000_000_000_000_000n });
    await fc.assert(
      fc.asyncProperty(instant, instant, async (a, b) => {
        const row = await answer(`select timestamp '${timestampText(a)}' - timestamp '${timestampText(b)}' as d, timestamp '${timestampText(a)}' as t`);
        expect(row).toEqual({ d: timeInterval(a - b), t: wireInteger(a) });
      }),
      { numRuns: RUNS },
    );
  });
});

describe('subscripts', () => {
  it('OFFSET, ORDINAL and a bare index fail past the end; SAFE_ forms are NULL there', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.integer({ min: 0, max: 99 }), { maxLength: 4 }), fc.integer({ min: -2, max: 5 }), async (elements, index) => {
        const array = `array<int64>[${elements.join(', ')}]`;
        const offset = index >= 0 && index < elements.length ? elements[index]! : undefined;
        const ordinal = index >= 1 && index <= elements.length ? elements[index - 1]! : undefined;
        expect(await answer(`select ${array}[safe_offset(${literal(index)})] as o, ${array}[safe_ordinal(${literal(index)})] as r`)).toEqual({ o: offset ?? null, r: ordinal ?? null });
        for (const [form, expected] of [[`offset(${literal(index)})`, offset], [literal(index), offset], [`ordinal(${literal(index)})`, ordinal]] as const) {
          if (expected === undefined) expect(await fails(`select ${array}[${form}] as x`), form).toBe(true);
          else expect(await answer(`select ${array}[${form}] as x`), form).toEqual({ x: expected });
        }
      }),
      { numRuns: RUNS },
    );
  });
});
