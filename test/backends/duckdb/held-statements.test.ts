/**
 * The prepared statements a serving connection holds of endpoint SQL (held-statements.ts), on real
 * DuckDB: a value bound for one request never reaches the next, a statement held across a change of
 * the catalog (a column added, a table dropped and made again with other columns) answers for the
 * catalog as it is, one whose run failed is prepared anew, and past the bound the oldest is dropped.
 * Then over the built `serve` taking events on a real file, each endpoint answered before and after
 * the change: a record field an ingest adds, a field `cannery import` beside it widens from integer
 * to string, and a declared column a source file's hot reload widens and adds in place.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DuckDBInstance, type DuckDBConnection, type DuckDBResult, type DuckDBValue } from '#duckdb-api';
import { keyDigest } from '../../../src/access/keys.js';
import { heldStatements } from '../../../src/backends/duckdb/held-statements.js';
import { cannery } from '../../support/cannery-cli.js';
import { endpointText } from '../../support/endpoint-text.js';
import { eventually } from '../../support/eventually.js';
import { loadFixtures } from '../../support/service.js';
import { startServe, type ServeProcess } from '../../support/serve-process.js';

async function rowsOf(result: Promise<DuckDBResult>): Promise<unknown[]> {
  const reader = await result;
  return (await reader.getRowObjectsJS()) as unknown[];
}

describe('the statements a connection holds', () => {
  let instance: DuckDBInstance;
  let connection: DuckDBConnection;
  beforeAll(async () => {
    instance = await DuckDBInstance.create(':memory:');
    connection = await instance.connect();
  });
  afterAll(() => {
    connection.closeSync();
    instance.closeSync();
  });

  it('bind every request anew: a value of the one before never answers for one left unbound', async () => {
    const held = heldStatements(connection);
    const sql = 'select $a::VARCHAR as a, $b::VARCHAR as b';
    const run = (values: Record<string, DuckDBValue>) => rowsOf(held.stream(sql, values));
    expect(await run({ a: 'x', b: 'y' })).toEqual([{ a: 'x', b: 'y' }]);
    expect(await run({ a: 'z', b: null })).toEqual([{ a: 'z', b: null }]);
    await expect(run({ a: 'w' })).rejects.toThrow(/b/);
    held.forget(sql);
    expect(await run({ a: 'v', b: 'u' })).toEqual([{ a: 'v', b: 'u' }]);
  });

  it('answer for the catalog as it is at each run: a column added, a table made again with other columns', async () => {
    const held = heldStatements(connection);
    await connection.run('create table t (id INTEGER, n BIGINT)');
    await connection.run('insert into t values (1, 10)');
    const sql = 'select * from t where id >= $from order by id';
    const run = () => rowsOf(held.stream(sql, { from: 0 }));
    expect(await run()).toEqual([{ id: 1, n: 10n }]);
    await connection.run('alter table t add column note VARCHAR');
    await connection.run("insert into t values (2, 20, 'new')");
    expect(await run()).toEqual([
      { id: 1, n: 10n, note: null },
      { id: 2, n: 20n, note: 'new' },
    ]);
    await connection.run('alter table t alter n type VARCHAR');
    expect(await run()).toEqual([
      { id: 1, n: '10', note: null },
      { id: 2, n: '20', note: 'new' },
    ]);
    await connection.run('drop table t');
    await expect(run()).rejects.toThrow(/t/);
    held.forget(sql);
    await connection.run('create table t (id DOUBLE, label VARCHAR)');
    await connection.run("insert into t values (1.5, 'again')");
    expect(await run()).toEqual([{ id: 1.5, label: 'again' }]);
    await connection.run('drop table t');
  });

  it("answer for the rows as they are at each run, written by another connection: DuckDB's plan of the rows before is never reused", async () => {
    const writer = await instance.connect();
    const held = heldStatements(connection);
    await writer.run('create table r (request VARCHAR, amount BIGINT)');
    await writer.run("insert into r select 'r' || (i % 2), i from range(4) t(i)");
    // With a parameter and without one: DuckDB 1.5 plans the second once, and its reuse cut the longer strings inserted after to the old maximum length.
    const texts = ['select request, count(*) as n from r where amount >= $least group by request order by request', 'select request, count(*) as n from r group by request order by request'];
    const run = (sql: string) => rowsOf(held.stream(sql, sql.includes('$least') ? { least: 0 } : {}));
    for (const sql of texts) expect(await run(sql)).toEqual([{ request: 'r0', n: 2n }, { request: 'r1', n: 2n }]);
    await writer.run("insert into r select 'burst-' || (i % 2), i from range(6) t(i)");
    for (const sql of texts) {
      expect(await run(sql)).toEqual([
        { request: 'burst-0', n: 3n },
        { request: 'burst-1', n: 3n },
        { request: 'r0', n: 2n },
        { request: 'r1', n: 2n },
      ]);
    }
    await writer.run('drop table r');
    writer.closeSync();
  });

  it('drop the least recently run past the bound, and prepare it again when it is asked', async () => {
    const held = heldStatements(connection, 2);
    const texts = [1, 2, 3].map((n) => `select ${n} + $x::INTEGER as v`);
    for (let round = 0; round < 3; round++) {
      for (const [index, sql] of texts.entries()) expect(await rowsOf(held.stream(sql, { x: round }))).toEqual([{ v: index + 1 + round }]);
    }
  });
});

const SOURCE = (amount: string, extra = '') => `name: shop.orders
columns:
  - { name: order_id, type: STRING }
  - { name: amount, type: ${amount} }
${extra}`;

describe('endpoints served while the catalog changes under them', () => {
  let dir: string;
  let db: string;
  let serve: ServeProcess;
  const READER = 'held-statements-reader';
  const SHIPPER = 'held-statements-shipper';

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'cannery-held-'));
    db = join(dir, 'data.duckdb');
    await mkdir(join(dir, 'endpoints'));
    await mkdir(join(dir, 'sources'));
    await writeFile(join(dir, 'sources', 'shop.orders.yaml'), SOURCE('INT64'));
    await writeFile(join(dir, 'endpoints', 'auth.yaml'), endpointText('auth.all', [], ['select t.id, t.metadata from `gotrue.logs.prod` as t order by t.id']));
    await writeFile(join(dir, 'endpoints', 'orders.yaml'), endpointText('orders.all', [], ['select * from `shop.orders` order by order_id']));
    await writeFile(
      join(dir, 'keys.yaml'),
      `keys:\n  - { name: reader, sha256: ${keyDigest(READER)} }\n  - { name: shipper, sha256: ${keyDigest(SHIPPER)}, endpoints: [], ingest: [shop.orders, gotrue.logs.prod] }\n`,
    );
    await loadFixtures(db, { 'gotrue.logs.prod': [{ id: 'a-seed', timestamp: '2026-11-27T10:00:00Z', event_message: 'seeded', metadata: { level: 'info' } }] });
    serve = await startServe(['--db', db, '--endpoints', join(dir, 'endpoints')], {
      CANNERY_API_KEYS: 'held-statements-unscoped',
      CANNERY_KEYS_FILE: join(dir, 'keys.yaml'),
      CANNERY_SOURCES: join(dir, 'sources'),
      CANNERY_COMPILE_CACHE: 'off',
      CANNERY_INGEST: 'true',
      CANNERY_CONSOLE: 'false',
      CANNERY_CACHE_MAX_BYTES: '0',
      CANNERY_LOG_LEVEL: 'warn',
    });
  });
  afterAll(async () => {
    await serve?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  const query = async (name: string) => {
    const response = await fetch(`${serve.url}/api/endpoints/query/${name}`, { headers: { 'x-api-key': READER } });
    return { status: response.status, result: ((await response.json()) as { result?: Record<string, unknown>[] }).result };
  };
  const send = (source: string, event: object) =>
    fetch(`${serve.url}/api/sources/${source}/events`, { method: 'POST', headers: { 'x-api-key': SHIPPER, 'content-type': 'application/x-ndjson' }, body: JSON.stringify(event) });
  /** Each row's id and its record's two fields the test changes (the source declares some thirty more). */
  const levels = async () => {
    const { status, result } = await query('auth.all');
    expect(status).toBe(200);
    return result!.map((row) => {
      const [record] = row.metadata as Record<string, unknown>[];
      return { id: row.id, level: record!.level, ...('code' in record! ? { code: record!.code } : {}) };
    });
  };
  const event = (id: string, metadata: object) => ({ id, timestamp: '2026-11-28T10:00:00Z', event_message: id, metadata });

  it('a record field an ingest adds, and one an import beside the server widens from integer to string', async () => {
    // Twice: the second request runs on what the first one's connection holds.
    for (let run = 0; run < 2; run++) expect(await levels()).toEqual([{ id: 'a-seed', level: 'info' }]);
    expect((await send('gotrue.logs.prod', event('b-sent', { level: 'warn', code: 7 }))).status).toBe(200);
    expect(await levels()).toEqual([
      { id: 'a-seed', level: 'info', code: null },
      { id: 'b-sent', level: 'warn', code: 7 },
    ]);
    await writeFile(join(dir, 'auth.ndjson'), `${JSON.stringify(event('c-imported', { level: 'error', code: 'E7' }))}\n`);
    const imported = await cannery(['import', '--db', db, '--source', 'gotrue.logs.prod', join(dir, 'auth.ndjson')], { env: { CANNERY_COMPILE_CACHE: 'off' } });
    expect(imported.stderr).toContain('handed to the `cannery serve` that holds it');
    expect(imported.code).toBe(0);
    expect(await levels()).toEqual([
      { id: 'a-seed', level: 'info', code: null },
      { id: 'b-sent', level: 'warn', code: '7' },
      { id: 'c-imported', level: 'error', code: 'E7' },
    ]);
  });

  it("a declared column a source file's reload widens, and one it adds, in place", async () => {
    expect((await send('shop.orders', { order_id: 'o-1', amount: 10 })).status).toBe(200);
    for (let run = 0; run < 2; run++) expect(await query('orders.all')).toEqual({ status: 200, result: [{ order_id: 'o-1', amount: 10 }] });
    await writeFile(join(dir, 'sources', 'shop.orders.yaml'), SOURCE('NUMERIC', '  - { name: note, type: STRING }\n'));
    await eventually(async () => expect(await query('orders.all')).toEqual({ status: 200, result: [{ order_id: 'o-1', amount: 10, note: null }] }));
    // A value only the widened type holds, taken once the writer has the new declaration too (a refused request writes nothing).
    await eventually(async () => expect((await send('shop.orders', { order_id: 'o-2', amount: 2.5, note: 'half' })).status).toBe(200));
    expect(await query('orders.all')).toEqual({
      status: 200,
      result: [
        { order_id: 'o-1', amount: 10, note: null },
        { order_id: 'o-2', amount: 2.5, note: 'half' },
      ],
    });
  });
});
