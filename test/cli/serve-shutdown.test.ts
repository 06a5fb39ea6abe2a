/**
 * SIGTERM with a request in flight, against the built CLI: the request still completes, new
 * connections are refused, and the process exits 0; a query still running past the grace (busy in
 * a host function, minutes of work) is interrupted, and the process exits 0 all the same.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SHIPPED_ENDPOINTS as ENDPOINTS } from '../support/shipped-endpoints.js';
import { startServe } from '../support/serve-process.js';
import { loadFixtures } from '../support/service.js';
import { FIXTURES } from '../sql/sandbox/fixtures.js';

const CLI = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));
const KEY = 'shutdown-test-key';

let dir: string;
let child: ChildProcess;
let url: URL;
let stderr = '';

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cannery-shutdown-'));
  child = spawn(process.execPath, [CLI, 'serve', '--demo', '--port', '0', '--db', join(dir, 'db.duckdb'), '--endpoints', ENDPOINTS], {
    env: { PATH: process.env.PATH ?? '', CANNERY_API_KEYS: KEY },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  url = await new Promise<URL>((resolve, reject) => {
    let stdout = '';
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      const match = /on (http:\/\/\S+)/.exec(stdout);
      if (match) resolve(new URL(match[1]!));
    });
    child.on('exit', (code) => reject(new Error(`serve exited early (${code}): ${stderr}`)));
  });
});
afterAll(async () => {
  if (child.exitCode === null) child.kill('SIGKILL');
  await rm(dir, { recursive: true, force: true });
});

describe('SIGTERM', () => {
  it('lets a request in flight finish, refuses new connections, and exits 0', async () => {
    // A POST whose body is still arriving is a request in flight.
    const body = JSON.stringify({ project: 'p1' });
    const inFlight = request(new URL('/api/endpoints/query/logs.all', url), {
      method: 'POST',
      headers: { 'x-api-key': KEY, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) },
    });
    const response = new Promise<{ status: number; text: string }>((resolve, reject) => {
      inFlight.on('response', (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      });
      inFlight.on('error', reject);
    });
    inFlight.write(body.slice(0, 5));
    await new Promise((resolve) => setTimeout(resolve, 100));

    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 200));

    const refused = await fetch(new URL('/health', url)).then(
      () => false,
      () => true,
    );
    expect(refused).toBe(true);

    inFlight.end(body.slice(5));
    const { status, text } = await response;
    expect(status).toBe(200);
    expect(JSON.parse(text)).toEqual({ result: [] });
    expect(await exited).toBe(0);
    expect(stderr).toContain('SIGTERM');
  });
});

describe('SIGTERM while a query is busy in a host function', () => {
  it('interrupts it once the grace is over and exits 0, not when the query would end', async () => {
    const busyDir = await mkdtemp(join(tmpdir(), 'cannery-shutdown-busy-'));
    await loadFixtures(join(busyDir, 'db.duckdb'), FIXTURES);
    const served = await startServe(['--db', join(busyDir, 'db.duckdb'), '--endpoints', ENDPOINTS], {
      CANNERY_API_KEYS: KEY,
      CANNERY_SHUTDOWN_GRACE_MS: '500',
      CANNERY_QUERY_TIMEOUT_MS: '600000',
    });
    try {
      // Twenty million rows through EDIT_DISTANCE: minutes of work in blocks of some 30 ms each,
      // so that no chance run of blocks with no turn between them reaches the held-loop bound
      // (HELD_LOOP_BOUND_MS) and ends the query before the signal, as blocks of 250 ms did on a
      // busy machine.
      const sql =
        "select x from unnest(generate_array(1, 20000)) as x cross join unnest(generate_array(1, 1000)) as y where edit_distance(concat(repeat('a', 20), cast(x * 1000 + y as string)), repeat('b', 20)) < 0";
      const busy = fetch(`${served.url}/api/endpoints/query/logs.all`, {
        method: 'POST',
        headers: { 'x-api-key': KEY, 'content-type': 'application/json' },
        body: JSON.stringify({ project: 'alpha', sql }),
      }).then(
        (response) => response.status,
        () => 'closed',
      );
      // Running: /health still answers between its blocks.
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      expect((await fetch(`${served.url}/health`)).status).toBe(200);
      const exited = new Promise<number | null>((resolve) => served.child.on('exit', (code) => resolve(code)));
      served.child.kill('SIGTERM');
      // A liveness bound, far below the query's own minutes: the grace, the interrupt, the close.
      const code = await Promise.race([exited, new Promise<'still running'>((resolve) => setTimeout(() => resolve('still running'), 30_000))]);
      expect(code).toBe(0);
      expect(await busy).toBe('closed');
      expect(served.stderr()).toContain('stopped');
    } finally {
      await served.stop();
      await rm(busyDir, { recursive: true, force: true });
    }
  });
});
