/**
 * The newest N rows bounded by the N-th newest time (top-n-bound.ts): for random tables (ties at
 * every boundary, fewer rows than the LIMIT, none) and random queries, DuckDB's answers with the
 * bound are exactly those of the same query without it; and the bound is written only where it
 * keeps them: a time column that may be NULL, a window function, an aggregate or a random
 * function keeps the query as it is.
 */
import type { DuckDBConnection, DuckDBInstance } from '#duckdb-api';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDuckDb } from '../../../../../src/backends/duckdb/backend.js';
import { NOT_NULL_SCALAR, SCALAR, type Columns, type Shape } from '../../../../../src/sql/analyse/shapes.js';
import { duckDbDialect } from '../../../../../src/sql/dialects/duckdb/dialect.js';
import { generate } from '../../../../../src/sql/generator/generate.js';
import { parseQuery } from '../../../../../src/sql/parse/to-tree.js';

let instance: DuckDBInstance;
let connection: DuckDBConnection;

function columns(time: Shape): Columns {
  return new Map<string, Shape>([
    ['id', SCALAR],
    ['timestamp', time],
    ['project', SCALAR],
  ]);
}

const bounded = duckDbDialect(['events'], { sourceColumns: () => columns(NOT_NULL_SCALAR) });
const plain = duckDbDialect(['events'], { sourceColumns: () => columns(SCALAR) });

beforeAll(async () => {
  instance = await openDuckDb({ path: ':memory:' });
  connection = await instance.connect();
  await connection.run("SET TimeZone = 'UTC'");
  await connection.run('CREATE TABLE events (id INTEGER, "timestamp" TIMESTAMPTZ NOT NULL, project VARCHAR)');
});
afterAll(() => {
  connection.closeSync();
  instance.closeSync();
});

async function answer(sql: string): Promise<unknown[]> {
  const reader = await connection.runAndReadAll(sql);
  return reader.getRowObjectsJson();
}

const row = fc.record({ minute: fc.integer({ min: 0, max: 12 }), project: fc.constantFrom('a', 'b', 'c') });

interface QueryCase {
  desc: boolean;
  limit: number;
  offset?: number | undefined;
  project?: string | undefined;
  viaCte: boolean;
}

const query: fc.Arbitrary<QueryCase> = fc.record({
  desc: fc.boolean(),
  limit: fc.integer({ min: 1, max: 30 }),
  offset: fc.option(fc.integer({ min: 0, max: 10 }), { nil: undefined }),
  project: fc.option(fc.constantFrom('a', 'b', 'z'), { nil: undefined }),
  viaCte: fc.boolean(),
});

function sqlOf(q: QueryCase): string {
  const where = q.project === undefined ? '' : ` where project = '${q.project}'`;
  // id breaks the ties: the order is total, so the two answers can be compared row for row.
  const order = ` order by timestamp ${q.desc ? 'desc' : 'asc'}, id limit ${q.limit}${q.offset === undefined ? '' : ` offset ${q.offset}`}`;
  return q.viaCte
    ? `with e as (select id, timestamp, project from events${where}) select id, timestamp from e${order}`
    : `select id, timestamp from events${where}${order}`;
}

describe('the newest rows bounded by time', () => {
  it('answers as the same query without the bound', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(row, { maxLength: 60 }), fc.array(query, { minLength: 1, maxLength: 8 }), async (rows, queries) => {
        await connection.run('DELETE FROM events');
        if (rows.length) {
          await connection.run(
            `INSERT INTO events VALUES ${rows.map((r, id) => `(${id}, TIMESTAMPTZ '2024-05-01 10:00:00+00' + INTERVAL ${r.minute} MINUTE, '${r.project}')`).join(', ')}`,
          );
        }
        for (const q of queries) {
          const sql = sqlOf(q);
          const withBound = generate(parseQuery(sql), bounded).sql;
          const without = generate(parseQuery(sql), plain).sql;
          expect(withBound).toContain('__cannery_top');
          expect(without).not.toContain('__cannery_top');
          expect(await answer(withBound)).toEqual(await answer(without));
        }
      }),
      { numRuns: 60 },
    );
  });

  it('keeps the times of the rows when the order leaves ties at the boundary', async () => {
    await connection.run('DELETE FROM events');
    // Five rows at 10:01, two at 10:00: the newest 3 are three of the five, whoever they are.
    await connection.run(
      `INSERT INTO events SELECT range, TIMESTAMPTZ '2024-05-01 10:00:00+00' + INTERVAL (CASE WHEN range < 5 THEN 1 ELSE 0 END) MINUTE, 'a' FROM range(7)`,
    );
    const sql = 'select timestamp from events order by timestamp desc limit 6';
    expect(await answer(generate(parseQuery(sql), bounded).sql)).toEqual(await answer(generate(parseQuery(sql), plain).sql));
  });

  it.each([
    ['a window function', 'select id, row_number() over (order by timestamp) as n from events order by timestamp desc limit 2'],
    ['a window function breaking the ties', 'select id from events order by timestamp desc, row_number() over (order by id) limit 2'],
    ['an aggregate', 'select count(*) as n from events order by max(timestamp) desc limit 1'],
    ['DISTINCT', 'select distinct project, timestamp from events order by timestamp desc limit 2'],
    ['GROUP BY', 'select project, timestamp from events group by project, timestamp order by timestamp desc limit 2'],
    ['a random function', 'select id from events where rand() < 0.5 order by timestamp desc limit 2'],
    ['an order by an expression', 'select id from events order by timestamp_add(timestamp, interval 1 minute) desc limit 2'],
    ['a RIGHT JOIN, whose time can be NULL', 'select e.id from events as e right join events as f on e.id = f.id order by e.timestamp desc limit 2'],
    ['a time renamed over by an item', 'select id, timestamp_add(timestamp, interval 1 minute) as timestamp from events order by timestamp desc limit 2'],
  ])('is not written with %s', (_what, sql) => {
    expect(generate(parseQuery(sql), bounded).sql).not.toContain('__cannery_top');
  });
});
