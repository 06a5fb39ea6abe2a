/**
 * DuckDB rows -> wire rows within the answer's byte budget, on a real DuckDB: conversion stops at
 * the value that takes the answer over the budget (the rows after it are never converted, and a
 * string longer than the whole budget is refused on its length, never copied out), rows
 * stop at max_rows, stored records are written back as they are read, and the serving backend
 * answers result_too_large naming the limit.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDuckDbBackend } from '../../../src/backends/duckdb/backend.js';
import { readWireRows } from '../../../src/backends/duckdb/result-rows.js';
import { writeBackRows } from '../../../src/backends/duckdb/write-back.js';
import type { WriteBack } from '../../../src/sql/parse/tree.js';
import type { WireValue } from '../../../src/core/types.js';
import type { Backend, QueryRequest } from '../../../src/engine/backend.js';
import { resultBudget, type ResultBudget } from '../../../src/engine/serve/result-budget.js';
import { connectDuckDB, queryRequest } from '../../support/duckdb.js';

const MIB = 1024 * 1024;

/** A budget that records the names of the values spent, in order. */
function recordingBudget(maxBytes: number): { budget: ResultBudget; spent: string[] } {
  const inner = resultBudget(maxBytes);
  const spent: string[] = [];
  return {
    spent,
    budget: {
      maxBytes,
      spend: inner.spend,
      spendMember(name: string, value: WireValue) {
        spent.push(name);
        inner.spendMember(name, value);
      },
      breathe: inner.breathe,
    },
  };
}

describe('readWireRows', () => {
  let db: Awaited<ReturnType<typeof connectDuckDB>>;
  beforeAll(async () => {
    db = await connectDuckDB();
  });
  afterAll(() => db.close());

  it('stops at the value that takes the answer over the budget: the rows after it are never converted', async () => {
    const result = await db.connection.stream("select i, case when i = 3 then repeat('x', 2 * 1024 * 1024) else 'y' end as s from range(1000) t(i)");
    const { budget, spent } = recordingBudget(MIB);
    await expect(readWireRows(result, 1000, budget)).rejects.toMatchObject({ code: 'result_too_large' });
    // Rows 0 to 2 whole, then row 3's i; its 2 MiB s is refused on DuckDB's length, never copied out.
    expect(spent).toEqual(['i', 's', 'i', 's', 'i', 's', 'i']);
  });

  it('refuses a value longer than the budget before copying it, in a list or a struct too', async () => {
    for (const sql of ["select [repeat('x', 2 * 1024 * 1024)] as s", "select {'a': repeat('x', 2 * 1024 * 1024)} as s", "select encode(repeat('x', 2 * 1024 * 1024)) as s"]) {
      const { budget, spent } = recordingBudget(MIB);
      await expect(readWireRows(await db.connection.stream(sql), 10, budget), sql).rejects.toMatchObject({ code: 'result_too_large' });
      expect(spent, sql).toEqual([]);
    }
  });

  it('converts up to max_rows rows, each value at most once', async () => {
    const result = await db.connection.stream('select i, i * 2 as twice from range(5000) t(i)');
    const { budget, spent } = recordingBudget(MIB);
    const rows = await readWireRows(result, 2500, budget);
    expect(rows).toHaveLength(2500);
    expect(rows[2499]).toEqual({ i: 2499, twice: 4998 });
    expect(spent).toHaveLength(5000);
  });

  it('keeps a column named __proto__ as a column, and suffixes a repeated name', async () => {
    const result = await db.connection.stream('select 1 as "__proto__", 2 as a, 3 as a');
    const [row] = await readWireRows(result, 10, resultBudget(MIB));
    expect(Object.keys(row!)).toEqual(['__proto__', 'a', 'a:1']);
    expect(Object.getPrototypeOf(row)).toBe(Object.prototype);
  });

  it('writes stored records back as it reads them, as writeBackRows writes the rows read without, and reads a record named constructor', async () => {
    const sql = `select
        case when i % 3 = 0 then NULL else {'a': i, 'r': case when i % 2 = 0 then NULL else {'u': 'x' || i, 'h': {'k': i}} end, 'l': [{'z': i}], 'n': i::varchar} end as meta,
        {'a': i} as "constructor",
        {'b': i} as plain
      from range(12) t(i)`;
    const writeBack: Record<string, WriteBack> = {
      meta: { list: true, fields: { r: { list: true, fields: { h: { list: true, fields: {} } } }, l: { list: true, fields: {} } } },
      plain: { list: false, fields: {} },
    };
    const rows = await readWireRows(await db.connection.stream(sql), 100, resultBudget(MIB), writeBack);
    const read = await readWireRows(await db.connection.stream(sql), 100, resultBudget(MIB));
    // Compared as the wire's text: the matchers read an own `constructor` as the object's class.
    expect(JSON.stringify(rows)).toBe(JSON.stringify(writeBackRows(read, writeBack)));
    // No record is `[]`; a record stored as a list (`l`) is left as read.
    expect(JSON.stringify(rows[0])).toBe('{"meta":[],"constructor":{"a":0},"plain":{"b":0}}');
    expect(JSON.stringify(rows[1])).toBe('{"meta":[{"a":1,"r":[{"u":"x1","h":[{"k":1}]}],"l":[{"z":1}],"n":"1"}],"constructor":{"a":1},"plain":{"b":1}}');
    expect(rows[2]!.meta).toStrictEqual([{ a: 2, r: [], l: [{ z: 2 }], n: '2' }]);
  });
});

describe('the DuckDB backend', () => {
  let backend: Backend;
  beforeAll(async () => {
    backend = await createDuckDbBackend({ path: ':memory:' });
  });
  afterAll(() => backend.close());

  const request = (sql: string, maxBytes: number): QueryRequest => queryRequest(sql, { maxBytes, timeoutMs: 10_000, endpointName: 'budget.test' });

  it('answers result_too_large for rows over the budget, naming the limit', async () => {
    const failure = backend.run(request("select repeat('x', 1000) as s from range(1000)", 256 * 1024));
    await expect(failure).rejects.toMatchObject({ code: 'result_too_large', message: expect.stringContaining('262144-byte limit') });
  });

  it('answers rows within the budget', async () => {
    const { rows } = await backend.run(request("select repeat('x', 1000) as s from range(100)", 256 * 1024));
    expect(rows).toHaveLength(100);
  });

  it('refuses one huge value without waiting for the rest of the rows', async () => {
    const failure = backend.run(request("select repeat('x', 40 * 1024 * 1024) as s from range(3)", 32 * MIB));
    await expect(failure).rejects.toMatchObject({ code: 'result_too_large' });
  });
});
