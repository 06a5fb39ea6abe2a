/**
 * `serve --demo` on the built CLI: the generated key kept beside the database and printed the same
 * on the next start (CANNERY_API_KEYS still wins), a demo database from days ago topped up to now
 * at start, events arriving while it serves (and a command beside it answered through it),
 * CANNERY_DEMO_LIVE=false serving it read-only, and a database that is not demo data never written.
 */
import { execFileSync } from 'node:child_process';
import { rmSync, statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '#duckdb-api';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { MAIN_DEMO_PROJECT } from '../../src/demo/seed.js';
import { cannery, CLI } from '../support/cannery-cli.js';
import { startServe, type ServeProcess } from '../support/serve-process.js';
import { SHIPPED_ENDPOINTS as ENDPOINTS } from '../support/shipped-endpoints.js';

const HOUR_MS = 3_600_000;
/** The seed's end: days before the test, so the database is stale when served. */
const SEEDED_UNTIL = new Date(Date.now() - 2 * 24 * HOUR_MS);

let dir: string;
const started: ServeProcess[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cannery-serve-demo-'));
});
afterAll(async () => {
  for (const serve of started) await serve.stop();
  await rm(dir, { recursive: true, force: true });
});

function seed(db: string): void {
  execFileSync(process.execPath, [CLI, 'seed', '--db', db, '--events', '2000', '--now', SEEDED_UNTIL.toISOString()], { stdio: 'ignore' });
}

/** A `serve --demo` that has printed its curl lines, the last of its start-up lines. */
async function serve(db: string, env: Record<string, string> = {}): Promise<ServeProcess> {
  const one = await startServe(['--demo', '--db', db, '--endpoints', ENDPOINTS], env);
  started.push(one);
  await vi.waitFor(() => expect(one.stdout().match(/ {2}curl /g)).toHaveLength(2));
  return one;
}

/** The key `serve` printed, read from its curl lines. */
function printedKey(one: ServeProcess): string | undefined {
  return /X-API-KEY: ([^']+)'/.exec(one.stdout())?.[1];
}

/** The main project's newest edge event and the count of its edge events, through the sandbox of logs.all. */
async function edgeEvents(one: ServeProcess, key: string): Promise<{ newest: number; n: number }> {
  const sql = 'select unix_millis(max(timestamp)) as newest, count(*) as n from edge_logs';
  const response = await fetch(`${one.url}/api/endpoints/query/logs.all?project=${MAIN_DEMO_PROJECT}&sql=${encodeURIComponent(sql)}`, { headers: { 'x-api-key': key } });
  expect(response.status).toBe(200);
  const [row] = ((await response.json()) as { result: { newest: number | string; n: number | string }[] }).result;
  return { newest: Number(row!.newest), n: Number(row!.n) };
}

/** Read-only, as a second reader beside a serving process must open it. */
async function edgeCount(db: string): Promise<bigint> {
  const instance = await DuckDBInstance.create(db, { access_mode: 'READ_ONLY' });
  try {
    const reader = await (await instance.connect()).runAndReadAll('SELECT count(*) AS n FROM "cloudflare.logs.prod"');
    return (reader.getRowObjectsJS()[0] as { n: bigint }).n;
  } finally {
    instance.closeSync();
  }
}

describe('serve --demo', () => {
  it('tops a stale demo database up to now, keeps events arriving, and keeps its generated key for the next start', async () => {
    const db = join(dir, 'stale', 'cannery.duckdb');
    seed(db);
    const first = await serve(db);
    expect(first.stdout()).toMatch(/cannery: demo data ended (47|48|49)\.\d h ago; topped up with [\d,]+ events to now/);
    const key = printedKey(first);
    expect(key).toMatch(/^[\w-]{24}$/);
    expect(first.stdout()).toContain(`generated API key kept in ${db}.api-key: ${key}`);
    expect(statSync(`${db}.api-key`).mode & 0o777).toBe(0o600);

    // The printed minutely curl has the last hour, though the seed ended two days ago.
    const minutely = await fetch(`${first.url}/api/endpoints/query/usage.api-counts?interval=minutely&project=${MAIN_DEMO_PROJECT}`, { headers: { 'x-api-key': key! } });
    const minutes = ((await minutely.json()) as { result: { timestamp: string }[] }).result;
    expect(minutes.length).toBeGreaterThan(30);
    expect(Date.parse(`${minutes.at(-1)!.timestamp}Z`)).toBeGreaterThan(Date.now() - 10 * 60_000);

    // It writes the file while it serves: a command beside it is answered through it (run-beside-serve.test.ts).
    const beside = await cannery(['run', 'logs.all', `project=${MAIN_DEMO_PROJECT}`, '--db', db, '--endpoints', ENDPOINTS]);
    expect(beside.stderr).toContain(`is held by \`cannery serve\` (PID ${first.child.pid}), which writes to it while it serves: answered by it at ${first.url}`);
    expect(beside.code).toBe(0);

    const before = await edgeEvents(first, key!);
    await vi.waitFor(async () => expect((await edgeEvents(first, key!)).n).toBeGreaterThan(before.n), { timeout: 120_000, interval: 1_000 });
    expect((await edgeEvents(first, key!)).newest).toBeGreaterThan(before.newest);
    await first.stop();

    const second = await serve(db);
    expect(printedKey(second)).toBe(key);
    expect(second.stdout()).not.toContain('first run');
    expect((await edgeEvents(second, key!)).n).toBeGreaterThan(before.n);
    await second.stop();

    const own = await serve(db, { CANNERY_API_KEYS: 'my-own-key' });
    expect(own.stdout()).not.toContain('generated API key');
    expect(printedKey(own)).toBe('<your key>');
    expect((await edgeEvents(own, 'my-own-key')).n).toBeGreaterThan(0);
    await own.stop();

    // CANNERY_DEMO_LIVE=false: served as it is, read-only, so a command beside it reads it too.
    const still = await serve(db, { CANNERY_DEMO_LIVE: 'false' });
    expect(still.stdout()).not.toContain('demo events keep arriving');
    const count = await edgeCount(db);
    const run = await cannery(['run', 'logs.all', `project=${MAIN_DEMO_PROJECT}`, '--db', db, '--endpoints', ENDPOINTS]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(await edgeCount(db)).toBe(count);
    await still.stop();
  });

  it('serves a database that cannery seed did not write as it is', async () => {
    const db = join(dir, 'own', 'cannery.duckdb');
    seed(db);
    rmSync(`${db}.demo.json`);
    const count = await edgeCount(db);
    const one = await serve(db, { CANNERY_API_KEYS: 'my-own-key' });
    expect(one.stderr()).toContain(`${db} was not written by \`cannery seed\`; serving it as it is (no live demo events)`);
    expect(one.stdout()).not.toContain('topped up');
    expect(one.stdout()).not.toContain('demo events keep arriving');
    // Served read-only: a second reader opens the file beside it.
    expect(await edgeCount(db)).toBe(count);
    await one.stop();
    expect(await edgeCount(db)).toBe(count);
  });
});
