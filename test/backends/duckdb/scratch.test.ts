/**
 * Scratch databases for endpoint tests and contracts: fresh each time, holding exactly the
 * events given (loaded as `cannery import` loads them), and sealed like the serving one.
 */
import { describe, expect, it } from 'vitest';
import { duckDbScratchEngine } from '../../../src/backends/duckdb/scratch.js';
import { InvalidEvent, type QueryRequest } from '../../../src/engine/backend.js';

const engine = duckDbScratchEngine();

function request(sql: string, parameters: string[] = [], specs: QueryRequest['specs'] = {}, values: QueryRequest['values'] = {}): QueryRequest {
  return { sql, parameters, values, specs, now: new Date(0), maxRows: 100, maxBytes: 1 << 20, timeoutMs: 10_000, endpointName: 'scratch.test' };
}

const edge = (id: string, metadata?: object) => ({ id, timestamp: '2024-05-01T10:00:00+02:00', event_message: `m ${id}`, project: 'p', ...(metadata ? { metadata } : {}) });

describe('duckDbScratchEngine', () => {
  it('holds the events given, normalised as an import normalises them', async () => {
    const backend = await engine.open({ 'cloudflare.logs.prod': [edge('a', { request: { path: '/rest' } }), edge('b')] });
    try {
      // Records holding one object are stored as STRUCTs (docs/storage.md).
      const { rows } = await backend.run(request('SELECT t.id, t.timestamp, t.metadata.request.path AS path FROM "cloudflare.logs.prod" t ORDER BY t.id'));
      expect(rows).toEqual([
        { id: 'a', timestamp: Date.parse('2024-05-01T08:00:00Z') * 1000, path: '/rest' },
        { id: 'b', timestamp: Date.parse('2024-05-01T08:00:00Z') * 1000, path: null },
      ]);
    } finally {
      await backend.close();
    }
  });

  it('has every source table, empty unless given events, in each new database', async () => {
    const first = await engine.open({ 'postgres.logs': [edge('a')] });
    await first.close();
    const second = await engine.open({});
    try {
      const { rows } = await second.run(request('SELECT (SELECT count(*) FROM "postgres.logs") AS pg, (SELECT count(*) FROM "pgbouncer.logs.prod") AS bouncer'));
      expect(rows).toEqual([{ pg: 0, bouncer: 0 }]);
    } finally {
      await second.close();
    }
  });

  it('widens a table for fields no source declares, as an import does', async () => {
    const backend = await engine.open({ 'cloudflare.logs.prod': [edge('a', { custom: { depth: 3 } })] });
    try {
      const { rows } = await backend.run(request('SELECT t.metadata.custom.depth AS depth FROM "cloudflare.logs.prod" t'));
      expect(rows).toEqual([{ depth: 3 }]);
    } finally {
      await backend.close();
    }
  });

  it('names the source and the index of an event the importer refuses', async () => {
    const open = engine.open({ 'cloudflare.logs.prod': [edge('a'), { id: 'b', timestamp: '2024-05-01T10:00:00', event_message: 'zone-less' }] });
    await expect(open).rejects.toBeInstanceOf(InvalidEvent);
    await expect(open).rejects.toMatchObject({ source: 'cloudflare.logs.prod', index: 1, message: expect.stringMatching(/^timestamp must be an ISO 8601 string with Z or an offset/) });
  });

  it('refuses events of a source that does not exist', async () => {
    await expect(engine.open({ 'cloudflare.logs.prd': [edge('a')] })).rejects.toMatchObject({ source: 'cloudflare.logs.prd', message: expect.stringContaining('is not a source') });
  });

  it('is sealed: no file can be read', async () => {
    const backend = await engine.open({});
    try {
      await expect(backend.run(request("SELECT * FROM read_csv('/etc/hostname')"))).rejects.toMatchObject({ code: 'query_failed' });
    } finally {
      await backend.close();
    }
  });
});

describe('describe', () => {
  const describeSql = async (sql: string, parameters: string[] = [], specs: QueryRequest['specs'] = {}, values: QueryRequest['values'] = {}) => {
    const backend = await engine.open({});
    try {
      return await backend.describe(request(sql, parameters, specs, values));
    } finally {
      await backend.close();
    }
  };
  const typesOf = async (sql: string) => Object.fromEntries((await describeSql(sql)).map((column) => [column.name, column.type]));
  const scalar = (name: string) => ({ kind: 'scalar', name });

  it("names DuckDB's result types as BigQuery names them", async () => {
    expect(
      await typesOf(
        `SELECT 'a' AS s, 1::TINYINT AS i8, 1::INTEGER AS i32, 1::BIGINT AS i64, sum(1::BIGINT) AS huge, 1.5::DOUBLE AS f, 1.5::FLOAT AS f32,
                1.5::DECIMAL(10,2) AS dec, true AS b, now() AS ts, now()::TIMESTAMP AS dt, DATE '2024-05-01' AS d, TIME '10:00:00' AS t,
                '\\x00'::BLOB AS bytes, INTERVAL 1 DAY AS iv, NULL AS nothing, uuid() AS u`,
      ),
    ).toEqual({
      s: scalar('STRING'),
      i8: scalar('INT64'),
      i32: scalar('INT64'),
      i64: scalar('INT64'),
      huge: scalar('INT64'),
      f: scalar('FLOAT64'),
      f32: scalar('FLOAT64'),
      dec: scalar('NUMERIC'),
      b: scalar('BOOL'),
      ts: scalar('TIMESTAMP'),
      dt: scalar('DATETIME'),
      d: scalar('DATE'),
      t: scalar('TIME'),
      bytes: scalar('BYTES'),
      iv: scalar('INTERVAL'),
      nothing: scalar('INT64'),
      u: scalar('STRING'),
    });
  });

  it('names lists arrays and structs structs, at any depth, and keeps what has no BigQuery type as DuckDB names it', async () => {
    expect(await typesOf("SELECT [1, 2] AS xs, [{'a': [{'b': 'x'}]}] AS records, MAP {'k': 1} AS m")).toEqual({
      xs: { kind: 'array', element: scalar('INT64') },
      records: { kind: 'array', element: { kind: 'struct', fields: [{ name: 'a', type: { kind: 'array', element: { kind: 'struct', fields: [{ name: 'b', type: scalar('STRING') }] } } }] } },
      m: { kind: 'unknown', description: 'MAP(VARCHAR, INTEGER)' },
    });
  });

  it('types a parameter by its spec, as BigQuery binds it, not by its value', async () => {
    const specs = { s: { type: 'string', required: false }, i: { type: 'integer', required: false }, n: { type: 'number', required: false }, b: { type: 'boolean', required: false } } as const;
    const columns = await describeSql('SELECT $s AS s, $i AS i, $n AS n, $b AS b', ['s', 'i', 'n', 'b'], specs, { s: '', i: 0, n: 0, b: false });
    expect(columns.map((column) => column.type)).toEqual([scalar('STRING'), scalar('INT64'), scalar('FLOAT64'), scalar('BOOL')]);
  });

  it('reports a query that cannot be described as query_failed, with the reason', async () => {
    await expect(describeSql('SELECT nope FROM "postgres.logs"')).rejects.toMatchObject({ code: 'query_failed', message: expect.stringContaining('nope') });
  });
});
