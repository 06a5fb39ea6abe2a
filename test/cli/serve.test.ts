/**
 * The operations settings through the built CLI's `serve`: request lines as JSON on its stdout
 * (all of them out once it has exited), CANNERY_METRICS_PUBLIC and CANNERY_CORS_ORIGINS reaching the
 * app, backend series reaching /metrics (the service and the app share one registry), the
 * event loop's thread ahead of the others, and a start's curl lines for a folder of many endpoints.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { endpointText } from '../support/endpoint-text.js';
import { parsePrometheusText } from '../support/prometheus-text.js';
import { startServe } from '../support/serve-process.js';
import { SHIPPED_ENDPOINTS as ENDPOINTS } from '../support/shipped-endpoints.js';

const CLI = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));
const KEY = 'wiring-test-key';
const ORIGIN = 'https://dashboard.example.com';

let dir: string;
let child: ChildProcess;
let url: string;
let stdout = '';

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cannery-wiring-'));
  const db = join(dir, 'db.duckdb');
  execFileSync(process.execPath, [CLI, 'seed', '--db', db, '--events', '200'], { stdio: 'ignore' });
  child = spawn(process.execPath, [CLI, 'serve', '--port', '0', '--db', db, '--endpoints', ENDPOINTS], {
    env: { PATH: process.env.PATH ?? '', CANNERY_API_KEYS: KEY, CANNERY_METRICS_PUBLIC: 'true', CANNERY_CORS_ORIGINS: ORIGIN },
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  url = await vi.waitFor(
    () => {
      const match = / on (http:\/\/\S+) /.exec(stdout);
      if (!match) throw new Error(`not listening yet: ${stdout}`);
      return match[1]!;
    },
    { timeout: 20_000, interval: 50 },
  );
});
afterAll(async () => {
  if (child.exitCode === null) child.kill('SIGKILL');
  await rm(dir, { recursive: true, force: true });
});

/** The JSON request lines `serve` has written so far. */
const requestLines = () =>
  stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line));

describe('serve', () => {
  it('writes a JSON line per request on stdout, with the settings it was given applied', async () => {
    const response = await fetch(`${url}/api/endpoints/query/usage.api-counts?interval=daily&project=abc`, { headers: { 'x-api-key': KEY, origin: ORIGIN } });
    expect(response.status).toBe(200);
    expect(response.headers.get('access-control-allow-origin')).toBe(ORIGIN);
    await response.arrayBuffer();
    const line = await vi.waitFor(() => {
      const found = requestLines().find((one) => one.endpoint === 'usage.api-counts');
      if (!found) throw new Error('no request line yet');
      return found;
    });
    expect(line).toMatchObject({ level: 'info', msg: 'request', method: 'GET', path: '/api/endpoints/query/usage.api-counts', status: 200, cache: 'MISS' });
    expect(stdout).not.toContain(KEY);

    const metrics = await fetch(`${url}/metrics`);
    expect(metrics.status).toBe(200);
    const samples = parsePrometheusText(await metrics.text());
    expect(samples.value('cannery_backend_query_duration_seconds_count', { endpoint: 'usage.api-counts' })).toBe(1);
    expect(samples.value('cannery_http_requests_total', { route: 'query', endpoint: 'usage.api-counts', status: '200' })).toBe(1);
  });

  it.skipIf(process.platform !== 'linux')('runs every thread but the event loop at nice 10, the sandbox compile threads too (Linux)', async () => {
    const response = await fetch(`${url}/api/endpoints/query/logs.all?project=abc&sql=${encodeURIComponent('select id from edge_logs')}`, { headers: { 'x-api-key': KEY } });
    expect(response.status).toBe(200);
    await response.arrayBuffer();
    const pid = child.pid!;
    const niceness = readdirSync(`/proc/${pid}/task`).map((thread) => ({
      thread: Number(thread),
      // Field 19 of stat, the 17th after the command's closing parenthesis.
      nice: Number(readFileSync(`/proc/${pid}/task/${thread}/stat`, 'utf8').split(') ')[1]!.split(' ')[16]),
    }));
    expect(niceness.find(({ thread }) => thread === pid)?.nice).toBe(0);
    const others = niceness.filter(({ thread }) => thread !== pid);
    expect(others.length).toBeGreaterThan(4);
    expect(others.filter(({ nice }) => nice !== 10)).toEqual([]);
  });

  it('has written the last request line by the time it has exited', async () => {
    const response = await fetch(`${url}/health`);
    expect(response.status).toBe(200);
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(requestLines().at(-1)).toMatchObject({ path: '/health', status: 200 });
  });
});

describe('serve with many endpoint files', () => {
  it('prints curl lines for the first ten and says where the rest are listed', async () => {
    const folder = join(dir, 'many');
    await mkdir(folder);
    const names = Array.from({ length: 13 }, (_, i) => `many.e${String(i).padStart(2, '0')}`);
    await Promise.all(names.map((name) => writeFile(join(folder, `${name}.yaml`), endpointText(name, [], ['select 1 as n']))));
    const served = await startServe(['--db', join(dir, 'db.duckdb'), '--endpoints', folder], { CANNERY_API_KEYS: KEY });
    try {
      const tail = await vi.waitFor(
        () => {
          const found = /^ {2}\.\.\. and (\d+) more endpoints: (\S+) lists them all$/m.exec(served.stdout());
          if (!found) throw new Error(`no closing line yet: ${served.stdout()}`);
          return found;
        },
        { timeout: 20_000, interval: 50 },
      );
      expect(served.stdout().match(/^ {2}curl .*$/gm)).toEqual(names.slice(0, 10).map((name) => `  curl -H 'X-API-KEY: <your key>' '${served.url}/api/endpoints/query/${name}?'`));
      expect(tail.slice(1)).toEqual(['3', `${served.url}/openapi.json`]);
    } finally {
      await served.stop();
    }
  });
});
