/**
 * Faults below the service: a backend that fails, hangs or drops the connection is a JSON 502 or
 * 504 within CANNERY_QUERY_TIMEOUT_MS, and the service answers normally afterwards; what it cannot
 * start with (a missing or corrupt database, an unreadable endpoint folder) stops it at start-up
 * with a message that names the cause.
 *
 * That the cache keeps serving the last good result when a refresh fails (HIT, then STALE) is
 * tested where the cache is, with a backend that fails on cue and a fake clock:
 * test/engine/serve/cache/read-through.test.ts ("a failed refresh keeps serving the previous result ...").
 *
 * No assertion is on time: each request is bounded by the query timeout, and the test's own
 * timeout fails a request that is not.
 */
import { spawnSync } from 'node:child_process';
import { chmod, copyFile, mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { restRows, startFakeBigQuery, type FakeBigQuery } from '../support/bigquery-server.js';
import { loadFixtures, startTestService, type TestService } from '../support/service.js';
import { FIXTURES } from '../sql/sandbox/fixtures.js';
import { CLI, CLI_KEY, serve, serveUntilExit, SHIPPED_ENDPOINTS, type Serving } from './cli.js';
import { startFaultProxy, type FaultProxy } from './fault-proxy.js';

const QUERY_TIMEOUT_MS = 800;

/** Twenty copies of alpha's five edge rows joined: 5^20 rows, so it runs until interrupted. */
const SLOW_SQL = `select count(*) as n from ${Array.from({ length: 20 }, (_, i) => `edge_logs as t${i}`).join(', ')}`;

describe('a DuckDB query past the time limit', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService({ fixtures: FIXTURES, timeoutMs: 500 });
  });
  afterAll(async () => {
    await service?.close();
  });

  it('is 504 query_timeout, interrupted, and the service answers the next query', async () => {
    const slow = await service.call(`/api/endpoints/query/logs.all?${new URLSearchParams({ project: 'alpha', sql: SLOW_SQL })}`);
    expect(slow.status).toBe(504);
    expect(slow.body.error).toMatchObject({ code: 'query_timeout', message: expect.stringContaining('did not finish within 500 ms') });

    const next = await service.call('/api/endpoints/query/logs.all?project=alpha');
    expect(next.status).toBe(200);
    expect(next.body.result).toHaveLength(5);
  });

  it('several at once each get their 504, and none is left running', async () => {
    const slow = await Promise.all(Array.from({ length: 4 }, () => service.call(`/api/endpoints/query/logs.all?${new URLSearchParams({ project: 'alpha', sql: SLOW_SQL })}`)));
    for (const answer of slow) expect(answer.body.error?.code).toBe('query_timeout');
    // Were one still running on DuckDB's threads, this would wait for it past its own limit.
    expect((await service.call('/api/endpoints/query/logs.all?project=beta')).status).toBe(200);
  });
});

describe('the BigQuery backend failing, through the built `serve`', () => {
  let fake: FakeBigQuery;
  let proxy: FaultProxy;
  let running: Serving;
  let request = 0;

  beforeAll(async () => {
    fake = await startFakeBigQuery();
    proxy = await startFaultProxy(fake.url);
    running = await serve(['--endpoints', SHIPPED_ENDPOINTS], {
      CANNERY_BACKEND: 'bigquery',
      CANNERY_BQ_PROJECT: 'test-proj',
      CANNERY_BQ_DATASET: 'logs',
      CANNERY_BQ_API_ENDPOINT: proxy.url,
      CANNERY_QUERY_TIMEOUT_MS: String(QUERY_TIMEOUT_MS),
    });
  });
  afterAll(async () => {
    await running?.stop();
    await proxy?.close();
    await fake?.close();
  });

  const ROWS = { schema: { fields: [{ name: 'id', type: 'STRING' }] }, rows: restRows([{ name: 'id', type: 'STRING' }], [{ id: 'bq-1' }]) };

  /** logs.all is not cached, and each call has its own project besides, so every call reaches BigQuery. */
  async function call(): Promise<{ status: number; body: any }> {
    request += 1;
    const response = await fetch(`${running.url}/api/endpoints/query/logs.all?project=p${request}`, { headers: { 'x-api-key': CLI_KEY } });
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    return { status: response.status, body: await response.json() };
  }

  async function expectHealthy(): Promise<void> {
    proxy.behave('pass');
    fake.answer(() => ({ result: ROWS }));
    expect(await call()).toEqual({ status: 200, body: { result: [{ id: 'bq-1' }] } });
  }

  it('answers while BigQuery does', async () => {
    await expectHealthy();
  });

  it('a query BigQuery refuses is 502 query_failed with its reason', async () => {
    fake.answer(() => ({ error: { status: 403, reason: 'accessDenied', message: 'Access Denied: Table cloudflare_logs_prod' } }));
    const { status, body } = await call();
    expect(status).toBe(502);
    expect(body.error).toMatchObject({ code: 'query_failed', message: expect.stringContaining('(accessDenied)') });
    await expectHealthy();
  });

  it('500s: the client backs off to retry them (transient, for BigQuery), and the time limit cuts it short: 504', async () => {
    fake.answer(() => ({ error: { status: 500, reason: 'backendError', message: 'Backend error' } }));
    const { status, body } = await call();
    expect(status).toBe(504);
    expect(body.error.code).toBe('query_timeout');
    await expectHealthy();
  });

  it('a job that never finishes is 504, and the job is cancelled', async () => {
    fake.answer(() => ({ running: true, holdMs: 200 }));
    const { status, body } = await call();
    expect(status).toBe(504);
    expect(body.error).toMatchObject({ code: 'query_timeout', message: expect.stringContaining(`within ${QUERY_TIMEOUT_MS} ms`) });
    await expect.poll(() => fake.cancelled().length).toBeGreaterThan(0);
    await expectHealthy();
  });

  it('a BigQuery that accepts the connection and never answers is 504', async () => {
    proxy.behave('hang');
    const { status, body } = await call();
    expect(status).toBe(504);
    expect(body.error.code).toBe('query_timeout');
    await expectHealthy();
  });

  it('a connection dropped without an answer: the client backs off to retry, and the time limit cuts it short: 504', async () => {
    proxy.behave('drop');
    const before = proxy.received();
    const { status, body } = await call();
    expect(status).toBe(504);
    expect(body.error.code).toBe('query_timeout');
    expect(proxy.received()).toBeGreaterThan(before);
    await expectHealthy();
  });

  it('still answers /health after all of it', async () => {
    expect((await fetch(`${running.url}/health`)).status).toBe(200);
  });
});

// Each test starts its own `serve` on its own copy of the database, so they run side by side.
const NOBODY = { uid: 65534, gid: 65534 };
/** Whether the user nobody can read the built CLI here (every folder above it must let others in). */
const nobodyCanRun = process.getuid?.() === 0 && spawnSync(process.execPath, ['-e', `require('fs').accessSync(${JSON.stringify(CLI)}, 4)`], NOBODY).status === 0;

describe.concurrent('what `serve` cannot start with', () => {
  let dir: string;
  /** Holds the good databases; as root, open to the user `nobody` too (see the last test). */
  let shared: string;
  let good: string;
  const asRoot = process.getuid?.() === 0;

  /** A copy of the good database of its own: `serve` opens it for writing, which locks it. */
  async function database(name: string): Promise<string> {
    const db = join(shared, `${name}.duckdb`);
    await copyFile(good, db);
    if (asRoot) await chmod(db, 0o666);
    return db;
  }

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'cannery-faults-'));
    shared = join(dir, 'shared');
    await mkdir(shared);
    good = join(dir, 'good.duckdb');
    await loadFixtures(good, FIXTURES);
    if (asRoot) {
      await chmod(dir, 0o755);
      await chmod(shared, 0o777);
    }
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('a DuckDB file that does not exist: exit 1, naming it and how to make one', async () => {
    const missing = join(dir, 'missing.duckdb');
    const { code, stderr } = await serveUntilExit(['--db', missing, '--endpoints', SHIPPED_ENDPOINTS]);
    expect(stderr).toContain(`no DuckDB database at ${missing}`);
    expect(stderr).toContain('cannery seed');
    expect(code).toBe(1);
  });

  it('a file that is not a DuckDB database: exit 1, naming it', async () => {
    const corrupt = join(dir, 'corrupt.duckdb');
    await writeFile(corrupt, Buffer.alloc(64 * 1024, 'not a database '));
    const { code, stderr } = await serveUntilExit(['--db', corrupt, '--endpoints', SHIPPED_ENDPOINTS]);
    expect(stderr).toContain(`cannot open DuckDB database ${corrupt}`);
    expect(stderr).toContain('not a valid DuckDB database file');
    expect(code).toBe(1);
  });

  it('a database file cut short (an interrupted copy): exit 1, naming it and what is missing, the file left as it was', async () => {
    const whole = await database('whole');
    const size = (await stat(whole)).size;
    const cut = join(shared, 'cut.duckdb');
    await writeFile(cut, (await readFile(whole)).subarray(0, size - 1));
    const { code, stderr } = await serveUntilExit(['--db', cut, '--endpoints', SHIPPED_ENDPOINTS]);
    expect(stderr).toContain(`the DuckDB database ${cut} is cut short`);
    expect(stderr).toContain(`: ${size - 1} bytes`);
    expect(code).toBe(1);
    expect((await stat(cut)).size).toBe(size - 1);
  });

  it('an endpoint folder that does not exist: exit 1, naming it', async () => {
    const nowhere = join(dir, 'nowhere');
    expect(await serveUntilExit(['--db', await database('nowhere'), '--endpoints', nowhere])).toEqual({ code: 1, stderr: expect.stringContaining(`endpoint folder ${nowhere} does not exist`) });
  });

  it('an endpoint folder that is a file: exit 1, naming it', async () => {
    const file = join(dir, 'endpoints.yaml');
    await writeFile(file, '');
    expect(await serveUntilExit(['--db', await database('file'), '--endpoints', file])).toEqual({ code: 1, stderr: expect.stringContaining(`endpoint folder ${file} is not a folder`) });
  });

  // Root reads any folder, so as root the service runs as nobody, which needs to be able to read
  // the checkout (a clone in a private temporary folder is not readable by nobody).
  it.skipIf(asRoot && !nobodyCanRun)(`an endpoint folder it may not read: exit 1, naming it and the reason${asRoot && !nobodyCanRun ? ' (skipped: as root, and the user nobody cannot read this checkout)' : ''}`, async () => {
    const endpoints = join(shared, 'endpoints');
    await mkdir(endpoints, { mode: 0o000 });
    const { code, stderr } = await serveUntilExit(['--db', await database('unreadable'), '--endpoints', endpoints], {}, asRoot ? NOBODY : {});
    await chmod(endpoints, 0o755);
    expect(stderr).toContain(`endpoint folder ${endpoints} cannot be read`);
    expect(stderr).toContain('EACCES');
    expect(code).toBe(1);
  });
});
