/**
 * `cannery run` beside a `serve --demo` that writes live events to the database (so holds it for
 * itself), all as built processes: run answers through that server, printing what it prints on
 * its own (the body, or the error object and exit 1), with the key the demo kept, or --key /
 * CANNERY_KEY when the server has no key run can read (and says what to pass without one); a
 * server stopped cleanly takes its record with it, and one killed leaves a record that is not
 * believed: a command beside another holder of the file is told what it was told before.
 */
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '#duckdb-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAIN_DEMO_PROJECT } from '../../src/demo/seed.js';
import { serverRecordPath } from '../../src/cli/server-record.js';
import { cannery, CLI } from '../support/cannery-cli.js';
import { startServe, type ServeProcess } from '../support/serve-process.js';
import { SHIPPED_ENDPOINTS as ENDPOINTS } from '../support/shipped-endpoints.js';

const SCOPED_KEY = 'run-beside-scoped-key-0123';

let dir: string;
let db: string;
const started: ServeProcess[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cannery-run-beside-'));
  db = join(dir, 'cannery.duckdb');
  execFileSync(process.execPath, [CLI, 'seed', '--db', db, '--events', '2000'], { stdio: 'ignore' });
});
afterAll(async () => {
  for (const serve of started) await serve.stop();
  await rm(dir, { recursive: true, force: true });
});

async function serveDemo(env: Record<string, string> = {}): Promise<ServeProcess> {
  const one = await startServe(['--demo', '--db', db, '--endpoints', ENDPOINTS], env);
  started.push(one);
  expect(one.stdout()).toContain('demo events keep arriving while serving');
  return one;
}

/** SIGTERM, as Ctrl-C or a service manager stops it, and its exit. */
async function stopCleanly(one: ServeProcess): Promise<void> {
  const exited = new Promise((resolve) => one.child.once('exit', resolve));
  one.child.kill('SIGTERM');
  await exited;
}

const hourly = (): string[] => ['run', 'usage.api-counts', 'interval=hourly', `project=${MAIN_DEMO_PROJECT}`, '--db', db, '--endpoints', ENDPOINTS];

describe('run beside serve --demo, which writes the database', () => {
  it('answers through the server, as run prints its own answers, with the key the demo kept', async () => {
    const served = await serveDemo();
    const key = readFileSync(`${db}.api-key`, 'utf8').trim();
    const held = `${db} is held by \`cannery serve\` (PID ${served.child.pid}), which writes to it while it serves`;

    const run = await cannery(hourly());
    expect(run.stderr).toBe(`cannery: ${held}: answered by it at ${served.url}\n`);
    expect(run.code).toBe(0);
    // The endpoint caches its answer, so the server's own answer to the same call is the same bytes.
    const direct = await fetch(`${served.url}/api/endpoints/query/usage.api-counts?interval=hourly&project=${MAIN_DEMO_PROJECT}`, { headers: { 'x-api-key': key } });
    expect(run.stdout).toBe(`${await direct.text()}\n`);
    expect((JSON.parse(run.stdout) as { result: unknown[] }).result.length).toBeGreaterThan(0);

    // An error as run prints it on its own: the error object on stderr, exit 1.
    const bad = await cannery(['run', 'usage.api-counts', 'interval=weekly', `project=${MAIN_DEMO_PROJECT}`, '--db', db, '--endpoints', ENDPOINTS]);
    expect(bad.code).toBe(1);
    expect(bad.stdout).toBe('');
    expect(bad.stderr.split('\n').slice(1)).toEqual([
      '{"error":{"code":"invalid_parameter","message":"parameter \\"interval\\" must be one of: minutely, hourly, daily (got \\"weekly\\")","param":"interval"}}',
      '',
    ]);

    // --redact-pii reaches the server as its header.
    const sql = "select h.x_real_ip from edge_logs cross join unnest(metadata) as m cross join unnest(m.request) as r cross join unnest(r.headers) as h where h.x_real_ip is not null limit 1";
    const redacted = await cannery(['run', 'logs.all', `project=${MAIN_DEMO_PROJECT}`, `sql=${sql}`, '--redact-pii', '--db', db, '--endpoints', ENDPOINTS]);
    expect(redacted.code).toBe(0);
    expect(JSON.parse(redacted.stdout)).toEqual({ result: [{ x_real_ip: 'REDACTED' }] });

    // Another endpoint folder would be other endpoints: not asked, said why.
    const other = await cannery(['run', 'usage.api-counts', 'interval=hourly', '--db', db, '--endpoints', dir]);
    expect(other.code).toBe(1);
    expect(other.stderr).toContain(`${held} the endpoints of `);
    expect(other.stderr).toContain(`not ${dir}: run with --endpoints `);

    await stopCleanly(served);
    expect(existsSync(serverRecordPath(db))).toBe(false);
  });

  it('with a keys file: says what to pass, and answers with --key or CANNERY_KEY', async () => {
    const keys = join(dir, 'keys.yaml');
    await writeFile(keys, `keys:\n  - name: reader\n    sha256: ${createHash('sha256').update(SCOPED_KEY).digest('hex')}\n`);
    const served = await serveDemo({ CANNERY_KEYS_FILE: keys });

    const without = await cannery(hourly());
    expect(without.code).toBe(1);
    expect(without.stdout).toBe('');
    expect(without.stderr).toBe(
      `cannery: ${db} is held by \`cannery serve\` (PID ${served.child.pid}), which writes to it while it serves, and answers at ${served.url} only with a key: ` +
        'pass --key KEY (or set CANNERY_KEY=KEY), a key that may run usage.api-counts\n',
    );
    const flagged = await cannery([...hourly(), '--key', SCOPED_KEY]);
    expect(flagged.code).toBe(0);
    const fromEnv = await cannery(hourly(), { env: { CANNERY_KEY: SCOPED_KEY } });
    expect(fromEnv.code).toBe(0);
    expect(fromEnv.stdout).toBe(flagged.stdout);
    const wrong = await cannery([...hourly(), '--key', 'not-a-key-of-the-file']);
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain('{"error":{"code":"unauthorized","message":"invalid API key"}}');

    // Killed: its record stays behind, naming a process that is gone.
    await served.stop();
    expect(JSON.parse(readFileSync(serverRecordPath(db), 'utf8'))).toMatchObject({ pid: served.child.pid });
  });

  it('does not believe the record a killed server left: beside another writer, run says what it said before', async () => {
    expect(existsSync(serverRecordPath(db))).toBe(true);
    const instance = await DuckDBInstance.create(db);
    try {
      await instance.connect();
      const run = await cannery(hourly());
      expect(run.code).toBe(1);
      expect(run.stderr).toBe(`cannery: ${db} is being written by another process (PID ${process.pid}): run this command again once that has finished.\n`);
    } finally {
      instance.closeSync();
    }
  });
});
