/**
 * Events in while serving (docs/ingest.md), over a real socket into the built `serve` on a real
 * DuckDB file: each answer of the ingest routes, Logflare's request shape as Supabase's Vector
 * pipeline sends it, the bounded queue, and a SIGKILL while senders run.
 */
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keyDigest } from '../../src/access/keys.js';
import { signToken } from '../../src/access/tokens.js';
import { cannery, CLI } from '../support/cannery-cli.js';
import { loadFixtures } from '../support/service.js';
import { startServe, type ServeProcess } from '../support/serve-process.js';

const UNSCOPED = 'ingest-test-unscoped-key';
const READER = 'ingest-test-reader-key';
const SHIPPER = 'ingest-test-shipper-key';
const JWT_SECRET = 'a-secret-of-at-least-32-characters-for-ingest';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const SOURCE = `name: shop.orders
time_column: placed_at
columns:
  - { name: order_id, type: STRING, mode: REQUIRED }
  - { name: request, type: STRING }
  - { name: amount, type: INT64 }
  - { name: placed_at, type: TIMESTAMP }
  - name: items
    type: RECORD
    mode: REPEATED
    fields: [ { name: sku, type: STRING }, { name: qty, type: INT64 } ]
`;

const endpoint = (id: string, name: string, query: string) => `id: ${id}
name: ${name}
description: ${name}
language: bq_sql
max_rows: 10000
cache: false
sandbox: false
redact_pii: false
params: {}
query: |
  ${query}
`;

let dir: string;
let db: string;
let env: Record<string, string>;
let serve: ServeProcess;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cannery-ingest-'));
  db = join(dir, 'data.duckdb');
  await mkdir(join(dir, 'endpoints'));
  await mkdir(join(dir, 'sources'));
  await writeFile(join(dir, 'sources', 'shop.orders.yaml'), SOURCE);
  await writeFile(
    join(dir, 'endpoints', 'orders.yaml'),
    endpoint('6f1d8a34-1f0e-4c55-9d0a-3e2b7c9a1d01', 'orders.by-request', 'select request, count(*) as n, sum(amount) as total from `shop.orders` group by request order by request'),
  );
  await writeFile(
    join(dir, 'endpoints', 'auth.yaml'),
    endpoint('6f1d8a34-1f0e-4c55-9d0a-3e2b7c9a1d02', 'auth.recent', 'select t.id, t.timestamp, t.event_message, t.project, m.level from `gotrue.logs.prod` as t left join unnest(t.metadata) as m on true order by t.timestamp'),
  );
  await writeFile(
    join(dir, 'keys.yaml'),
    `keys:
  - { name: reader, sha256: ${keyDigest(READER)} }
  - { name: shipper, sha256: ${keyDigest(SHIPPER)}, endpoints: [], ingest: [shop.orders, gotrue.logs.prod] }
`,
  );
  await loadFixtures(db, { 'gotrue.logs.prod': [{ id: 'seed', timestamp: '2026-11-27T10:00:00Z', event_message: 'seeded', metadata: { level: 'info' } }] });
  env = {
    CANNERY_API_KEYS: UNSCOPED,
    CANNERY_KEYS_FILE: join(dir, 'keys.yaml'),
    CANNERY_COMPILE_CACHE: 'off',
    CANNERY_INGEST: 'true',
    CANNERY_INGEST_MAX_BYTES: '65536',
    CANNERY_INGEST_QUEUE_EVENTS: '1000',
    CANNERY_CONSOLE: 'false',
    // 4xx lines only: the scope test reads them.
    CANNERY_LOG_LEVEL: 'warn',
    CANNERY_JWT_SECRET: JWT_SECRET,
  };
  serve = await startServe(['--db', db, '--endpoints', join(dir, 'endpoints')], env);
});
afterAll(async () => {
  await serve?.stop();
  await rm(dir, { recursive: true, force: true });
});

function send(path: string, body: string | Buffer, headers: Record<string, string> = {}, key = SHIPPER): Promise<Response> {
  return fetch(`${serve.url}${path}`, { method: 'POST', body, headers: { 'x-api-key': key, 'content-type': 'application/x-ndjson', ...headers } });
}

const ndjson = (events: object[]) => events.map((event) => JSON.stringify(event)).join('\n');

async function query(name: string): Promise<Record<string, unknown>[]> {
  const response = await fetch(`${serve.url}/api/endpoints/query/${name}`, { headers: { 'x-api-key': READER } });
  expect(response.status).toBe(200);
  return ((await response.json()) as { result: Record<string, unknown>[] }).result;
}

const order = (request: string, index: number) => ({ order_id: `${request}-${index}`, request, amount: 10, placed_at: '2026-11-28T12:00:00Z', items: [{ sku: 'a', qty: 2 }] });

describe('POST /api/sources/<name>/events', () => {
  it('NDJSON, and a gzipped JSON array: 200 with the count and the batch once committed, read at once by an endpoint', async () => {
    const plain = await send('/api/sources/shop.orders/events', ndjson([order('plain', 1), order('plain', 2)]));
    expect(plain.status).toBe(200);
    const receipt = (await plain.json()) as { accepted: number; batch: string };
    expect(receipt.accepted).toBe(2);
    expect(receipt.batch).toMatch(UUID);
    const gzipped = await send('/api/sources/shop.orders/events', gzipSync(JSON.stringify([order('gzip', 1)])), { 'content-type': 'application/json', 'content-encoding': 'gzip' });
    expect(await gzipped.json()).toMatchObject({ accepted: 1 });
    expect(await query('orders.by-request')).toEqual(
      expect.arrayContaining([{ request: 'gzip', n: 1, total: 10 }, { request: 'plain', n: 2, total: 20 }]),
    );
  });

  it('a bad event: 400 naming its index and field, and nothing of the request written', async () => {
    const response = await send('/api/sources/shop.orders/events', ndjson([order('bad', 1), { ...order('bad', 2), amount: 1.5 }]));
    expect(response.status).toBe(400);
    const { error } = (await response.json()) as { error: { code: string; message: string } };
    expect(error.code).toBe('invalid_event');
    expect(error.message).toContain('event 1, field amount: 1.5 is not a whole number');
    const nested = await send('/api/sources/shop.orders/events', ndjson([{ ...order('bad', 3), items: [{ sku: 'a', qty: 1 }, { sku: 7 }] }]));
    expect(((await nested.json()) as { error: { message: string } }).error.message).toContain('event 0, field items[1].sku: 7 is not a string');
    const missing = await send('/api/sources/shop.orders/events', ndjson([{ request: 'bad' }]));
    expect(((await missing.json()) as { error: { message: string } }).error.message).toContain('event 0, field order_id: missing, and the source declares it REQUIRED');
    expect((await query('orders.by-request')).some((row) => row.request === 'bad')).toBe(false);
  });

  it("scope: unscoped and query-only keys and tokens get 403, a token's ingest claim sends; the ingest-only key runs no endpoint; an unknown source is 404", async () => {
    for (const key of [UNSCOPED, READER]) {
      const response = await send('/api/sources/shop.orders/events', ndjson([order('scope', 1)]), {}, key);
      expect(response.status).toBe(403);
    }
    // The line is written as the answer goes out: it reaches this process's pipe soon after.
    const logged = /"path":"\/api\/sources\/shop.orders\/events","key":"reader","source":"shop.orders","status":403/;
    for (let tries = 0; tries < 100 && !logged.test(serve.stdout()); tries++) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(serve.stdout()).toMatch(logged);
    const sender = await signToken(JWT_SECRET, { scopes: [], ingest: ['shop.orders'], ttlSeconds: 60, name: 'app' });
    expect((await send('/api/sources/shop.orders/events', ndjson([order('token', 1)]), {}, sender)).status).toBe(200);
    expect((await send('/api/sources/gotrue.logs.prod/events', '{"event_message": "x"}', {}, sender)).status).toBe(403);
    const reader = await signToken(JWT_SECRET, { scopes: [{ endpoint: '*', params: {} }], ttlSeconds: 60 });
    expect((await send('/api/sources/shop.orders/events', ndjson([order('token', 2)]), {}, reader)).status).toBe(403);
    const run = await fetch(`${serve.url}/api/endpoints/query/orders.by-request`, { headers: { 'x-api-key': SHIPPER } });
    expect([403, 404]).toContain(run.status);
    expect((await send('/api/sources/shop.orderz/events', ndjson([order('scope', 1)]))).status).toBe(404);
    const described = (await (await fetch(`${serve.url}/openapi.json`, { headers: { 'x-api-key': SHIPPER } })).json()) as { paths: Record<string, unknown> };
    expect(Object.keys(described.paths)).toEqual(expect.arrayContaining(['/api/sources/shop.orders/events', '/api/sources/gotrue.logs.prod/events', '/api/logs']));
    expect(Object.keys(described.paths)).not.toContain('/api/sources/postgres.logs/events');
  });

  it('413 past CANNERY_INGEST_MAX_BYTES, sent or unpacked from gzip (a small body that unpacks to megabytes)', async () => {
    const large = ndjson(Array.from({ length: 1000 }, (_, index) => order('large', index)));
    expect(Buffer.byteLength(large)).toBeGreaterThan(65536);
    expect((await send('/api/sources/shop.orders/events', large)).status).toBe(413);
    const bomb = gzipSync(Buffer.alloc(8 << 20, ' '));
    expect(bomb.length).toBeLessThan(65536);
    const response = await send('/api/sources/shop.orders/events', bomb, { 'content-encoding': 'gzip' });
    expect(response.status).toBe(413);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('body_too_large');
  });

  it('a full queue: 429 with Retry-After, never a queue past its bound; every event acknowledged is there', async () => {
    const requests = Array.from({ length: 12 }, (_, index) => `burst-${String(index).padStart(2, '0')}`);
    const answers = await Promise.all(requests.map((request) => send('/api/sources/shop.orders/events', ndjson(Array.from({ length: 400 }, (_, index) => order(request, index))))));
    const refused = answers.filter((answer) => answer.status === 429);
    expect(refused.length).toBeGreaterThan(0);
    for (const answer of refused) expect(Number(answer.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(answers.every((answer) => answer.status === 200 || answer.status === 429)).toBe(true);
    const metrics = await (await fetch(`${serve.url}/metrics`, { headers: { 'x-api-key': UNSCOPED } })).text();
    expect(metrics).toMatch(/^cannery_ingest_events_total\{source="shop.orders",outcome="accepted"\} \d+/m);
    expect(metrics).toMatch(/^cannery_ingest_events_total\{source="shop.orders",outcome="rejected"\} \d+/m);
    expect(metrics).toMatch(/^cannery_ingest_commit_duration_seconds_count\{source="shop.orders"\} \d+/m);
    expect(metrics).toMatch(/^cannery_ingest_queue_events \d+/m);
    const rows = await query('orders.by-request');
    requests.forEach((request, index) => {
      const row = rows.find((found) => found.request === request);
      expect(row?.n ?? 0).toBe(answers[index]!.status === 200 ? 400 : 0);
    });
  });

  it("a log source's nested objects are its repeated records at any depth, as `cannery import` reads the same events", async () => {
    const auth = { id: 'auth-1', timestamp: '2026-11-28T12:31:00Z', event_message: 'login', project: 'p1', metadata: { auth_event: { action: 'login', traits: { channel: 'email' } } } };
    const response = await send('/api/sources/gotrue.logs.prod/events', ndjson([auth]));
    expect(response.status, await response.clone().text()).toBe(200);
    expect(await response.json()).toMatchObject({ accepted: 1 });
  });

  it("a log source's event without an id or an event_message: 400 naming its index and field before the writer, as `cannery import` refuses it", async () => {
    const good = { id: 'g-1', timestamp: '2026-11-28T12:32:00Z', event_message: 'ok', metadata: { level: 'info' } };
    const noId = { timestamp: '2026-11-28T12:32:00Z', event_message: 'no id' };
    const noMessage = { id: 'g-2', timestamp: '2026-11-28T12:32:00Z', event_message: 42 };
    const cases: [object[], string][] = [
      [[good, noId], 'event 1, field id: missing'],
      [[noMessage], 'event 0, field event_message: 42 is not a string'],
    ];
    for (const [events, field] of cases) {
      const response = await send('/api/sources/gotrue.logs.prod/events', ndjson(events));
      expect(response.status).toBe(400);
      expect(((await response.json()) as { error: { message: string } }).error.message).toContain(field);
    }
  });

  it('a request DuckDB refuses (a metadata field an object in one, text in another) fails alone; the requests committed with it do not', async () => {
    const event = (id: string, extra: unknown) => ({ id, timestamp: '2026-11-28T12:30:00Z', event_message: id, metadata: { level: 'info', conflicted: extra } });
    const answers = await Promise.all(
      [event('fine', undefined), event('as-object', { depth: 1 }), event('as-text', 'flat')].map((one) => send('/api/sources/gotrue.logs.prod/events', ndjson([one]))),
    );
    expect(answers[0]!.status).toBe(200);
    const statuses = [answers[1]!.status, answers[2]!.status].sort();
    expect(statuses).toEqual([200, 400]);
    const refused = answers.find((answer) => answer.status === 400)!;
    const refusal = ((await refused.json()) as { error: { code: string; message: string } }).error;
    expect(refusal).toMatchObject({ code: 'invalid_event', message: expect.stringContaining('event 0, field metadata.conflicted: ') });
  });
});

describe("Vector's http sink and Fluent Bit's http output, as their sources send a batch (neither is packaged for Debian)", () => {
  // Each request as the shipper builds it for docs/ingest.md's configuration: Vector's http sink
  // (src/sinks/http/config.rs: codec json with newline_delimited framing is application/x-ndjson,
  // the default comma framing a JSON array as application/json; compression gzip sets
  // Content-Encoding; its timestamps carry nanoseconds) and Fluent Bit's out_http (http.c:
  // json_lines is application/x-ndjson, json application/json, User-Agent Fluent-Bit,
  // Json_date_key naming the time field, iso8601 or double seconds).
  const event = (id: string, timestamp: string | number) => ({ timestamp, event_message: id, project: 'shipped', metadata: { level: 'info' }, id });
  const lines = (events: object[]) => events.map((one) => `${JSON.stringify(one)}\n`).join('');
  const shipped: { who: string; headers: Record<string, string>; body: string | Buffer; micros: number }[] = [
    {
      who: 'Vector, NDJSON framing, gzip',
      headers: { 'content-type': 'application/x-ndjson', 'content-encoding': 'gzip', 'user-agent': 'Vector/0.43.0 (x86_64-unknown-linux-gnu)', 'x-api-key': SHIPPER },
      body: gzipSync(lines([event('vector-ndjson-1', '2026-11-28T12:10:00.123456789Z'), event('vector-ndjson-2', '2026-11-28T12:10:01Z')])),
      micros: Date.parse('2026-11-28T12:10:00Z') * 1000 + 123456,
    },
    {
      who: 'Vector, default JSON array framing, no compression',
      headers: { 'content-type': 'application/json', 'user-agent': 'Vector/0.43.0 (x86_64-unknown-linux-gnu)', 'x-api-key': SHIPPER },
      body: JSON.stringify([event('vector-array-1', '2026-11-28T12:11:00.5Z')]),
      micros: Date.parse('2026-11-28T12:11:00.5Z') * 1000,
    },
    {
      who: 'Fluent Bit, Format json_lines, Json_date_format iso8601, compress gzip',
      headers: { 'Content-Type': 'application/x-ndjson', 'Content-Encoding': 'gzip', 'User-Agent': 'Fluent-Bit', 'X-API-KEY': SHIPPER },
      body: gzipSync(lines([event('fluent-lines-1', '2026-11-28T12:12:00.654321Z')])),
      micros: Date.parse('2026-11-28T12:12:00Z') * 1000 + 654321,
    },
    {
      who: 'Fluent Bit, Format json, Json_date_format double',
      headers: { 'Content-Type': 'application/json', 'User-Agent': 'Fluent-Bit', 'X-API-KEY': SHIPPER },
      body: JSON.stringify([event('fluent-json-1', 1764331980.25)]),
      micros: 1764331980250000,
    },
  ];
  it.each(shipped)('$who: 200, and the events read back with their times', async ({ who, headers, body, micros }) => {
    const response = await fetch(`${serve.url}/api/sources/gotrue.logs.prod/events`, { method: 'POST', headers, body });
    expect(response.status, `${who}: ${await response.clone().text()}`).toBe(200);
    const first = JSON.parse((typeof body === 'string' ? body : gunzipSync(body).toString()).split('\n')[0]!.replace(/^\[/, '').replace(/\]$/, '')) as { id: string };
    expect((await query('auth.recent')).find((row) => row.id === first.id)).toMatchObject({ timestamp: micros, project: 'shipped', level: 'info' });
  });
});

describe('POST /api/logs (Logflare)', () => {
  it("Supabase's Vector sink: a JSON array of events with X-API-KEY; pino-logflare's /logs with {batch: [...]}, ms timestamps; no timestamp or id", async () => {
    // As Supabase's docker vector.yml sends it: http sink, codec json, the key in x-api-key,
    // events with event_message, a nanosecond timestamp, project, metadata and appname.
    const vector = await fetch(`${serve.url}/api/logs?source_name=gotrue.logs.prod`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': SHIPPER, 'user-agent': 'Vector/0.28.1' },
      body: JSON.stringify([
        { id: 'vector-1', event_message: '{"level":"info","msg":"request completed"}', timestamp: '2026-11-28T12:00:01.123456789Z', project: 'default', appname: 'supabase-auth', metadata: { level: 'info' } },
      ]),
    });
    expect(vector.status).toBe(200);
    expect(await vector.json()).toMatchObject({ accepted: 1, batch: expect.stringMatching(UUID) });
    // As logflare-transport-core (under pino-logflare) posts it: /logs, its three headers, {batch},
    // each event pino's line made over (toLogEntry: msg as message, time in ms, the rest metadata).
    const pino = await fetch(`${serve.url}/logs?source_name=gotrue.logs.prod`, {
      method: 'POST',
      headers: { Accept: 'application/json, text/plain, */*', 'Content-Type': 'application/json', 'X-API-Key': SHIPPER },
      body: JSON.stringify({ batch: [{ metadata: { path: '/token', context: { host: 'web-1', pid: 42 }, level: 'warning' }, message: 'from pino', timestamp: 1764331200123 }] }),
    });
    expect(await pino.json()).toMatchObject({ accepted: 1 });
    const batch = await fetch(`${serve.url}/api/logs?source_name=gotrue.logs.prod`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': SHIPPER },
      body: JSON.stringify({ batch: [{ message: 'no time, no id', metadata: { level: 'warn' } }] }),
    });
    expect(await batch.json()).toMatchObject({ accepted: 1 });
    const rows = await query('auth.recent');
    expect(rows.find((row) => row.id === 'vector-1')).toMatchObject({ timestamp: Date.parse('2026-11-28T12:00:01Z') * 1000 + 123456, project: 'default', level: 'info' });
    expect(rows.find((row) => row.event_message === 'from pino')).toMatchObject({ level: 'warning', timestamp: 1764331200123000 });
    const bare = rows.find((row) => row.event_message === 'no time, no id');
    expect(bare).toMatchObject({ level: 'warn' });
    expect(String(bare!.id)).toMatch(UUID);
    expect(typeof bare!.timestamp).toBe('number');
  });

  it('source=<uuid>: a shipped source by its fixed UUID, a declared one by the UUID of its name, as `cannery sources list` prints them; the same answers as source_name=', async () => {
    const listed = await cannery(['sources', 'list', '--sources', join(dir, 'sources')], { env: { CANNERY_COMPILE_CACHE: 'off' } });
    expect(listed.code).toBe(0);
    const ids = new Map(listed.stdout.trim().split('\n').map((line) => line.split(/\s+/).slice(0, 2).reverse() as [string, string]));
    expect(ids.get('gotrue.logs.prod')).toBe('7dbf360d-809b-4065-9581-d9fc6b8eb093');
    expect(ids.get('shop.orders')).toBe('2381fbc6-e9bf-5cbd-b980-1bb04530ec62');
    const logflare = (query: string, body: object, key = SHIPPER) =>
      fetch(`${serve.url}/api/logs?${query}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': key }, body: JSON.stringify(body) });
    const byId = await logflare(`source=${ids.get('gotrue.logs.prod')!.toUpperCase()}`, { message: 'by uuid', id: 'by-uuid-1' });
    expect(byId.status, await byId.clone().text()).toBe(200);
    expect(await byId.json()).toMatchObject({ accepted: 1, batch: expect.stringMatching(UUID) });
    expect((await query('auth.recent')).find((row) => row.id === 'by-uuid-1')).toMatchObject({ event_message: 'by uuid' });
    const declared = await logflare(`source=${ids.get('shop.orders')}`, { order_id: 'by-uuid', request: 'by-uuid', amount: 3 });
    expect(declared.status).toBe(200);
    expect(await query('orders.by-request')).toContainEqual({ request: 'by-uuid', n: 1, total: 3 });
    // The answers source_name= gives: a bad event, a scope that does not name the source, no such source.
    const bad = await logflare(`source=${ids.get('shop.orders')}`, { order_id: 'by-uuid-2', amount: 'three' });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { message: string } }).error.message).toContain('event 0, field amount');
    const sender = await signToken(JWT_SECRET, { scopes: [], ingest: ['shop.orders'], ttlSeconds: 60, name: 'app' });
    expect((await logflare(`source=${ids.get('gotrue.logs.prod')}`, { message: 'x' }, sender)).status).toBe(403);
    const unknown = await logflare('source=00000000-0000-4000-8000-000000000000', { message: 'x' });
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as { error: { message: string } }).error.message).toContain('shop.orders (2381fbc6-e9bf-5cbd-b980-1bb04530ec62)');
    const both = await logflare(`source=${ids.get('shop.orders')}&source_name=shop.orders`, { order_id: 'x' });
    expect(both.status).toBe(400);
    const described = (await (await fetch(`${serve.url}/openapi.json`, { headers: { 'x-api-key': SHIPPER } })).json()) as { paths: Record<string, { post: { parameters: { name: string; schema: { enum?: string[] } }[] } }> };
    const sourceParameter = described.paths['/api/logs']!.post.parameters.find((parameter) => parameter.name === 'source');
    expect(sourceParameter?.schema.enum?.sort()).toEqual([ids.get('gotrue.logs.prod'), ids.get('shop.orders')].sort());
  });

  it('the older api_key query parameter, and a missing source_name', async () => {
    const response = await fetch(`${serve.url}/api/logs?source_name=gotrue.logs.prod&api_key=${SHIPPER}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ message: 'keyed by query' }),
    });
    expect(response.status).toBe(200);
    expect((await send('/api/logs', '{}', { 'content-type': 'application/json' })).status).toBe(400);
  });
});

describe('cannery import beside the running serve', () => {
  it('hands the file to the server, which loads it with the ledger: a declared gzipped NDJSON, a log NDJSON, and the same file again', async () => {
    await writeFile(join(dir, 'orders.ndjson.gz'), gzipSync(ndjson([{ order_id: 'file-1', request: 'import-file', amount: 5 }, { order_id: 'file-2', request: 'import-file', amount: 7, items: [{ sku: 'b', qty: 1 }] }])));
    const file = await cannery(['import', '--db', db, '--sources', join(dir, 'sources'), '--source', 'shop.orders', join(dir, 'orders.ndjson.gz')], { env: { CANNERY_COMPILE_CACHE: 'off' } });
    expect(file.stderr).toContain('handed to the `cannery serve` that holds it');
    expect(file.stderr).toMatch(/committed import \S+: 2 row\(s\)/);
    expect(file.code).toBe(0);
    const again = await cannery(['import', '--db', db, '--sources', join(dir, 'sources'), '--source', 'shop.orders', join(dir, 'orders.ndjson.gz')], { env: { CANNERY_COMPILE_CACHE: 'off' } });
    expect(again.stderr).toContain('already imported');
    await writeFile(join(dir, 'auth.ndjson'), `${JSON.stringify({ id: 'imported-1', timestamp: '2026-11-28T13:00:00Z', event_message: 'from a file', metadata: { level: 'error' } })}\n`);
    const logs = await cannery(['import', '--db', db, '--source', 'gotrue.logs.prod', join(dir, 'auth.ndjson')], { env: { CANNERY_COMPILE_CACHE: 'off' } });
    expect(logs.code).toBe(0);
    expect(await query('orders.by-request')).toContainEqual({ request: 'import-file', n: 2, total: 12 });
    expect(await query('auth.recent')).toContainEqual(expect.objectContaining({ id: 'imported-1', level: 'error' }));
  });

  it('standard input too (`-`, from a pipe): spooled to an owner-only file the server loads, then removed; the same input again is already in', async () => {
    const spool = await mkdtemp(join(tmpdir(), 'cannery-ingest-spool-'));
    const piped = (text: string) =>
      new Promise<{ code: number | null; stderr: string }>((resolve, reject) => {
        // TMPDIR: where the input is spooled, to find it gone after.
        const child = spawn(process.execPath, [CLI, 'import', '--db', db, '--source', 'gotrue.logs.prod', '-'], { env: { PATH: process.env.PATH ?? '', CANNERY_COMPILE_CACHE: 'off', TMPDIR: spool }, stdio: ['pipe', 'ignore', 'pipe'] });
        let stderr = '';
        child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
        child.once('error', reject);
        child.once('close', (code) => resolve({ code, stderr }));
        child.stdin.end(text);
      });
    const text = `${JSON.stringify({ id: 'stdin-1', timestamp: '2026-11-28T13:30:00Z', event_message: 'from stdin', metadata: { level: 'warn' } })}\n`;
    const first = await piped(text);
    expect(first.stderr).toMatch(/import \S+: standard input -> gotrue.logs.prod in .*, handed to the `cannery serve` that holds it/);
    expect(first.stderr).toMatch(/committed import \S+: 1 row\(s\)/);
    expect(first.code).toBe(0);
    expect(await readdir(spool)).toEqual([]);
    const again = await piped(text);
    expect(again.stderr).toContain('already imported');
    expect((await query('auth.recent')).filter((row) => row.id === 'stdin-1')).toEqual([expect.objectContaining({ event_message: 'from stdin', level: 'warn' })]);
    await rm(spool, { recursive: true, force: true });
  });

  it('another command that must open the file says the server takes events, and how to serve it read-only', async () => {
    const seed = await cannery(['seed', '--db', db, '--events', '10'], { env: { CANNERY_COMPILE_CACHE: 'off' } });
    expect(seed.code).toBe(1);
    expect(seed.stderr).toContain(`is held by \`cannery serve\` (PID ${serve.child.pid}), which takes events while it serves (CANNERY_INGEST=true)`);
  });
});

describe('a crash while senders run', () => {
  it('SIGKILL, restart: every acknowledged request is there whole, and no request is there in part', async () => {
    const acknowledged = new Set<string>();
    let sent = 0;
    let stop = false;
    const sender = async (worker: number) => {
      while (!stop) {
        const request = `kill-${worker}-${sent++}`;
        try {
          const answer = await send('/api/sources/shop.orders/events', ndjson(Array.from({ length: 50 }, (_, index) => order(request, index))));
          if (answer.status === 200) acknowledged.add(request);
        } catch {
          return; // the server is gone
        }
      }
    };
    const senders = [0, 1, 2, 3].map(sender);
    while (acknowledged.size < 20) await new Promise((resolve) => setTimeout(resolve, 20));
    serve.child.kill('SIGKILL');
    stop = true;
    await Promise.all(senders);
    await serve.stop();
    serve = await startServe(['--db', db, '--endpoints', join(dir, 'endpoints')], env);
    const rows = await query('orders.by-request');
    const counts = new Map(rows.filter((row) => String(row.request).startsWith('kill-')).map((row) => [String(row.request), Number(row.n)]));
    for (const request of acknowledged) expect(counts.get(request), request).toBe(50);
    for (const [request, n] of counts) expect(n, request).toBe(50);
  });
});
