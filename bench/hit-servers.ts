/**
 * What the two cache-hit benchmarks share: cannery's `serve` with its cache filled, the bare h3
 * baseline (bare-h3.ts) holding the same bytes, and autocannon over one key or many.
 *
 * Two ways to ask: one key again and again (what a dashboard polling one URL sends), and 1,000
 * keys interleaved (each request the next key in turn), where nothing that keeps
 * only the last request's work can help. The keys are one endpoint's query with 1,000 spellings
 * of the same pattern (`<project>|zz<n>`), so every answer has the same rows and body.
 */
import autocannon from 'autocannon';
import { fork, spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as delay } from 'node:timers/promises';
import { API_KEY, CLI, DEMO_PROJECT, SHIPPED_ENDPOINTS } from './support.js';

/**
 * Headers the HTTP layer sets itself, left out of the baseline's copy. Content-Length stays:
 * without it the body would go chunked, and the two servers would not send the same bytes.
 */
const HOP_HEADERS = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding']);

export const INTERLEAVED_KEYS = 1000;

export interface Case {
  label: string;
  /** Paths with their query strings, asked in turn. */
  paths: string[];
}

const countsPath = (interval: string, project: string) => `/api/endpoints/query/usage.api-counts?${new URLSearchParams({ interval, project })}`;

export const CASES: Case[] = [
  { label: 'usage.api-counts hourly, one key', paths: [countsPath('hourly', DEMO_PROJECT)] },
  { label: 'usage.api-counts minutely, one key', paths: [countsPath('minutely', DEMO_PROJECT)] },
  {
    label: `usage.api-counts hourly, ${INTERLEAVED_KEYS.toLocaleString('en-US')} keys interleaved`,
    paths: Array.from({ length: INTERLEAVED_KEYS }, (_, index) => countsPath('hourly', `${DEMO_PROJECT}|zz${index}`)),
  },
];

export interface Route {
  path: string;
  headers: Record<string, string>;
  body: string;
}

/**
 * The shipped endpoints, with usage.api-counts' cache lasting the whole run and warmed too
 * rarely to refresh within it: each hit still marks its key for warming, as in production, but
 * no refresh query runs in the server while it is measured.
 */
export async function benchEndpoints(dir: string): Promise<string> {
  await mkdir(dir, { recursive: true });
  for (const name of ['logs.all.yaml', 'usage.api-counts.yaml']) {
    const text = await readFile(join(SHIPPED_ENDPOINTS, name), 'utf8');
    await writeFile(join(dir, name), text.replace(/ttl_seconds: \d+/, 'ttl_seconds: 7200').replace(/warm_every_seconds: \d+/, 'warm_every_seconds: 7000'));
  }
  return dir;
}

/**
 * The built `serve` on `db` and `endpoints`, started by `command` (node itself, or valgrind
 * running node); resolves with its URL. Its stdout (a log line per request) goes to a file, as a
 * deployment's goes to a collector: written in full, but not read by the load generator.
 */
export async function startService(options: { dir: string; db: string; endpoints: string; name: string; command?: string[]; env?: Record<string, string> }): Promise<{ child: ChildProcess; url: string }> {
  const log = join(options.dir, `${options.name}.log`);
  const logFd = openSync(log, 'w');
  const [program, ...prefix] = options.command ?? [process.execPath];
  const child = spawn(program!, [...prefix, CLI, 'serve', '--db', options.db, '--endpoints', options.endpoints, '--port', '0', '--host', '127.0.0.1'], {
    env: { PATH: process.env.PATH ?? '', CANNERY_API_KEYS: API_KEY, CANNERY_CONSOLE: 'false', ...options.env },
    stdio: ['ignore', logFd, logFd],
  });
  closeSync(logFd);
  return { child, url: await listeningUrl(child, log) };
}

/** The URL `serve` prints to `log` once it listens. */
async function listeningUrl(child: ChildProcess, log: string): Promise<string> {
  let exited: number | null | undefined;
  child.once('exit', (code) => (exited = code));
  for (;;) {
    const seen = readFileSync(log, 'utf8');
    const match = / on (http:\/\/\S+) /.exec(seen);
    if (match) return match[1]!;
    if (exited !== undefined) throw new Error(`cannery serve exited (${exited}) before listening:\n${seen}`);
    await delay(50);
  }
}

/** For each path: a miss to fill the cache, then a hit whose bytes the baseline will send. A few at a time. */
export async function fillAndCapture(baseUrl: string, paths: readonly string[], concurrency = 4): Promise<Route[]> {
  const routes: Route[] = new Array<Route>(paths.length);
  let next = 0;
  const worker = async () => {
    while (next < paths.length) {
      const index = next++;
      routes[index] = await captureHit(baseUrl, paths[index]!);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return routes;
}

async function captureHit(baseUrl: string, path: string): Promise<Route> {
  const headers = { 'x-api-key': API_KEY };
  const miss = await fetch(baseUrl + path, { headers });
  if (miss.status !== 200) throw new Error(`${path}: ${miss.status} ${await miss.text()}`);
  await miss.arrayBuffer();
  const hit = await fetch(baseUrl + path, { headers });
  if (hit.headers.get('x-cache') !== 'HIT') throw new Error(`${path}: the second request was not a cache hit`);
  const copied: Record<string, string> = {};
  for (const [name, value] of hit.headers) if (!HOP_HEADERS.has(name)) copied[name] = value;
  return { path, headers: copied, body: await hit.text() };
}

/** The bare h3 baseline holding `routes`, started by `command` (node, or valgrind running node). */
export async function startBareH3(routes: readonly Route[], command: string[] = []): Promise<{ child: ChildProcess; url: string }> {
  const script = fileURLToPath(new URL('bare-h3.js', import.meta.url));
  const child =
    command.length === 0
      ? fork(script, [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
      : spawn(command[0]!, [...command.slice(1), process.execPath, script], { stdio: ['ignore', 'ignore', 'ignore', 'ipc'] });
  child.send(routes);
  const port = await new Promise<number>((resolve) => child.once('message', (message) => resolve(message as number)));
  return { child, url: `http://127.0.0.1:${port}` };
}

/**
 * Loads `baseUrl` with the case's paths: `amount` requests, or for `seconds`. With many paths,
 * each request takes the next path in turn, whichever connection sends it: requests in flight
 * at once ask for different keys.
 */
export async function hitLoad(baseUrl: string, paths: readonly string[], connections: number, until: { seconds: number } | { amount: number }): Promise<autocannon.Result> {
  let next = Math.floor(Math.random() * paths.length);
  const result = await autocannon({
    url: baseUrl,
    connections,
    // Under valgrind a request takes fifty times longer; autocannon's default of 10 s is too short there.
    timeout: 120,
    headers: { 'x-api-key': API_KEY },
    ...('seconds' in until ? { duration: until.seconds } : { amount: until.amount }),
    requests: [
      paths.length === 1
        ? { method: 'GET', path: paths[0]! }
        : { method: 'GET', setupRequest: (request: autocannon.Request) => ({ ...request, path: paths[next++ % paths.length]! }) },
    ],
  });
  if (result.errors || result.non2xx || result.timeouts) throw new Error(`${baseUrl}: ${result.errors} errors, ${result.non2xx} non-2xx, ${result.timeouts} timeouts`);
  return result;
}
