/**
 * A record stored as one STRUCT that every row holds (`present`, from DuckDB's statistics) is
 * unnested without `x IS NOT NULL`, which makes DuckDB read every field of the record, answering
 * as the same query compiled without the knowledge; and where the record can still be NULL (a
 * relation an outer join pads, an element picked by a subscript) the knowledge changes nothing.
 */
import type { DuckDBConnection, DuckDBInstance } from '#duckdb-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDuckDb } from '../../../../../src/backends/duckdb/backend.js';
import { NOT_NULL_SCALAR, SCALAR, structShape, type Shape } from '../../../../../src/sql/analyse/shapes.js';
import { duckDbDialect } from '../../../../../src/sql/dialects/duckdb/dialect.js';
import { generate } from '../../../../../src/sql/generator/generate.js';
import { parseQuery } from '../../../../../src/sql/parse/to-tree.js';

function stored(element: Shape, present: boolean): Shape {
  return present ? { kind: 'array', stored: 'struct', element, present: true } : { kind: 'array', stored: 'struct', element };
}

function columns(present: boolean): Map<string, Shape> {
  const request = stored(structShape([['path', SCALAR]]), present);
  return new Map<string, Shape>([
    ['id', SCALAR],
    ['timestamp', NOT_NULL_SCALAR],
    ['metadata', stored(structShape([['request', request]]), present)],
  ]);
}

const known = duckDbDialect(['events'], { sourceColumns: () => columns(true) });
const unknown = duckDbDialect(['events'], { sourceColumns: () => columns(false) });

let instance: DuckDBInstance;
let connection: DuckDBConnection;

beforeAll(async () => {
  instance = await openDuckDb({ path: ':memory:' });
  connection = await instance.connect();
  await connection.run('CREATE TABLE events (id INTEGER, "timestamp" TIMESTAMPTZ NOT NULL, metadata STRUCT(request STRUCT(path VARCHAR)))');
  // Every row holds its record and its request: what `present` says of this table.
  await connection.run(
    `INSERT INTO events VALUES (1, '2024-05-01 10:00:00+00', {'request': {'path': '/a'}}), (2, '2024-05-01 10:01:00+00', {'request': {'path': NULL}})`,
  );
});
afterAll(() => {
  connection.closeSync();
  instance.closeSync();
});

async function answer(sql: string): Promise<unknown[]> {
  return (await connection.runAndReadAll(sql)).getRowObjectsJson();
}

describe('records every row holds', () => {
  it('are unnested without a NULL test, answering the same', async () => {
    const sql = 'select e.id, r.path from events as e cross join unnest(e.metadata) as m cross join unnest(m.request) as r order by e.id';
    const written = generate(parseQuery(sql), known).sql;
    expect(written).not.toContain('IS NOT NULL');
    expect(generate(parseQuery(sql), unknown).sql).toContain('IS NOT NULL');
    expect(await answer(written)).toEqual([{ id: 1, path: '/a' }, { id: 2, path: null }]);
    expect(await answer(written)).toEqual(await answer(generate(parseQuery(sql), unknown).sql));
  });

  it('are known through a CTE that passes the record on', async () => {
    const sql = 'with x as (select e.id, e.metadata from events as e) select x.id, r.path from x cross join unnest(x.metadata) as m cross join unnest(m.request) as r order by x.id';
    const written = generate(parseQuery(sql), known).sql;
    expect(written).not.toContain('IS NOT NULL');
    expect(await answer(written)).toEqual(await answer(generate(parseQuery(sql), unknown).sql));
  });

  it.each([
    ['a relation a LEFT JOIN pads', 'select a.id, r.path from events as a left join events as b on a.id = b.id + 100 cross join unnest(b.metadata) as m cross join unnest(m.request) as r'],
    ['a relation before a RIGHT JOIN', 'select b.id, r.path from events as b right join events as a on a.id = b.id + 100 cross join unnest(b.metadata) as m cross join unnest(m.request) as r'],
    ['a CTE over a LEFT JOIN', 'with x as (select a.id, b.metadata from events as a left join events as b on false) select x.id from x cross join unnest(x.metadata) as m'],
    ['an element picked by a subscript', 'select e.id from events as e cross join unnest(e.metadata[safe_offset(1)].request) as r'],
  ])('change nothing for %s, where the record can be NULL', async (_what, sql) => {
    const written = generate(parseQuery(sql), known).sql;
    expect(written).toBe(generate(parseQuery(sql), unknown).sql);
    expect(written).toMatch(/IS (NOT )?NULL/);
    expect(await answer(written)).toEqual([]);
  });
});
