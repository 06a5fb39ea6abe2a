/**
 * Cache-hit throughput and p99 latency of cannery against a plain node:http server that returns
 * the same response bytes (body and headers), measured in the same run, on loopback.
 *
 * cannery is the real thing: the built CLI's `serve` on a database written by its `seed`. Each
 * server runs in its own process and autocannon in this one, so with two cores the load generator
 * and the server under test do not share one. Rounds alternate between the two servers so that
 * drift in the machine's speed falls on both, and the ratio reported is the median of each
 * back-to-back pair's ratio: on a shared machine, whose speed can change by a third from one
 * minute to the next, it is the steadier figure. The server's CPU use is printed too: a server below
 * ~95% was not the bottleneck (on a busy machine, the load generator or other processes were),
 * and its throughput ratio says little. The server's CPU time per request depends less on who
 * else was running, so its ratio (plain / cannery) is printed as well: for a server on one event
 * loop, saturated throughput is the inverse of it.
 *
 *   npm run bench:cache [-- --seconds 5 --rounds 8 --connections 32]
 */
import autocannon from 'autocannon';
import { execFileSync, fork, spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { API_KEY, CLI, cpuSeconds, DEMO_PROJECT, isMain, median } from './support.js';

export const TARGET_RATIO = 0.8;

/**
 * Headers node sets itself, left out of the plain server's copy. Content-Length stays: without it
 * node would send the body chunked, and the two servers would not be sending the same bytes.
 */
const HOP_HEADERS = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding']);

export interface Case {
  label: string;
  path: string;
}

export const CASES: Case[] = [
  { label: 'usage.api-counts hourly', path: `/api/endpoints/query/usage.api-counts?interval=hourly&project=${DEMO_PROJECT}` },
  { label: 'usage.api-counts minutely', path: `/api/endpoints/query/usage.api-counts?interval=minutely&project=${DEMO_PROJECT}` },
];

export interface Route {
  path: string;
  headers: Record<string, string>;
  body: string;
}

export interface Measurement {
  requestsPerSecond: number;
  p99Ms: number;
  /** Share of one core the server used. */
  cpu: number;
  /** The server's CPU time per request, in microseconds. */
  cpuMicrosPerRequest: number;
}

export interface CacheHitOptions {
  seconds: number;
  rounds: number;
  connections: number;
  /** Edge events seeded for the served database. */
  events: number;
}

export interface CacheHitCase {
  label: string;
  bytes: number;
  cannery: Measurement[];
  plain: Measurement[];
  /** Throughput, cannery / plain: the median of the rounds' ratios. */
  ratio: number;
  /** Server CPU per request, plain / cannery: the median of the rounds' ratios. */
  cpuRatio: number;
}

export async function measureCacheHits(options: CacheHitOptions): Promise<CacheHitCase[]> {
  const { seconds, rounds, connections } = options;
  const dir = await mkdtemp(join(tmpdir(), 'cannery-bench-'));
  const children: ChildProcess[] = [];
  try {
    const db = join(dir, 'bench.duckdb');
    execFileSync(process.execPath, [CLI, 'seed', '--db', db, '--events', String(options.events)], { stdio: ['ignore', 'ignore', 'inherit'] });

    // The service's stdout (a log line per request) goes to a file, as a deployment's would go to
    // a collector: written in full, but not read by the load generator, which would then be
    // slowed by cannery's logs and not by the plain server's.
    const log = join(dir, 'serve.log');
    const logFd = openSync(log, 'w');
    const service = spawn(process.execPath, [CLI, 'serve', '--db', db, '--port', '0', '--host', '127.0.0.1'], {
      env: { ...process.env, CANNERY_API_KEYS: API_KEY },
      stdio: ['ignore', logFd, 'inherit'],
    });
    closeSync(logFd);
    children.push(service);
    const serviceUrl = await listeningUrl(service, log);

    const routes: Route[] = [];
    for (const { path } of CASES) routes.push(await captureHit(serviceUrl, path));

    const plain = fork(fileURLToPath(import.meta.url), ['--plain'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    children.push(plain);
    plain.send(routes);
    const plainUrl = await new Promise<string>((resolve) => plain.once('message', (port) => resolve(`http://127.0.0.1:${port as number}`)));

    const results: CacheHitCase[] = [];
    for (const [index, { label, path }] of CASES.entries()) {
      await load(serviceUrl + path, connections, 2);
      await load(plainUrl + path, connections, 2);
      const cannery: Measurement[] = [];
      const baseline: Measurement[] = [];
      for (let round = 0; round < rounds; round++) {
        cannery.push(await measure(service, serviceUrl + path, connections, seconds));
        baseline.push(await measure(plain, plainUrl + path, connections, seconds));
      }
      results.push({
        label,
        bytes: Buffer.byteLength(routes[index]!.body),
        cannery,
        plain: baseline,
        ratio: median(cannery.map((round, index) => round.requestsPerSecond / baseline[index]!.requestsPerSecond)),
        cpuRatio: median(cannery.map((round, index) => baseline[index]!.cpuMicrosPerRequest / round.cpuMicrosPerRequest)),
      });
    }
    return results;
  } finally {
    for (const child of children) child.kill();
    await rm(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      seconds: { type: 'string', default: '5' },
      rounds: { type: 'string', default: '8' },
      connections: { type: 'string', default: '32' },
      events: { type: 'string', default: '50000' },
    },
  });
  const options = { seconds: Number(values.seconds), rounds: Number(values.rounds), connections: Number(values.connections), events: Number(values.events) };
  console.log(
    `cache hits: cannery (built \`serve\`) vs plain node:http with the same bytes; loopback, ${options.connections} connections, ${options.rounds} x ${options.seconds} s per server, alternating`,
  );
  const results = await measureCacheHits(options);
  let worst = Infinity;
  let saturated = Infinity;
  for (const result of results) {
    worst = Math.min(worst, result.ratio);
    saturated = Math.min(saturated, mean(result.cannery, 'cpu'), mean(result.plain, 'cpu'));
    console.log(`\n${result.label} (${result.bytes} byte body)`);
    console.log(row('server', 'req/s', 'p99 ms', 'server CPU', 'CPU us/req'));
    console.log(row('cannery', ...summary(result.cannery)));
    console.log(row('plain', ...summary(result.plain)));
    const rounds = result.cannery.map((round, index) => (round.requestsPerSecond / result.plain[index]!.requestsPerSecond).toFixed(2));
    console.log(`throughput ratio cannery/plain by round: ${rounds.join(' ')}`);
    console.log(
      `median of ${options.rounds} paired rounds: throughput ratio cannery/plain ${result.ratio.toFixed(3)}; CPU-per-request ratio plain/cannery ${result.cpuRatio.toFixed(3)}`,
    );
  }
  console.log(`\nlowest throughput ratio ${worst.toFixed(3)}: ${worst >= TARGET_RATIO ? 'meets' : 'MISSES'} the target of ${TARGET_RATIO}`);
  if (saturated < 0.9) console.log(`note: a server used only ${(saturated * 100).toFixed(0)}% of a core; other load limited the run, so read the CPU-per-request ratio`);
}

/** The URL `serve` prints to `log` (its stdout) once it listens. */
export async function listeningUrl(child: ChildProcess, log: string): Promise<string> {
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

/** One miss to fill the cache, then a hit whose bytes the plain server will send. */
export async function captureHit(baseUrl: string, path: string): Promise<Route> {
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

function load(url: string, connections: number, seconds: number): Promise<autocannon.Result> {
  return autocannon({ url, connections, duration: seconds, headers: { 'x-api-key': API_KEY } });
}

async function measure(server: ChildProcess, url: string, connections: number, seconds: number): Promise<Measurement> {
  const before = cpuSeconds(server.pid!);
  const started = performance.now();
  const result = await load(url, connections, seconds);
  const elapsed = (performance.now() - started) / 1000;
  if (result.errors || result.non2xx || result.timeouts) {
    throw new Error(`${url}: ${result.errors} errors, ${result.non2xx} non-2xx, ${result.timeouts} timeouts`);
  }
  const used = cpuSeconds(server.pid!) - before;
  return {
    requestsPerSecond: result.requests.average,
    p99Ms: result.latency.p99,
    cpu: used / elapsed,
    cpuMicrosPerRequest: (used * 1e6) / result.requests.total,
  };
}

export function mean(measurements: Measurement[], field: keyof Measurement): number {
  return measurements.reduce((sum, measurement) => sum + measurement[field], 0) / measurements.length;
}

function summary(measurements: Measurement[]): [string, string, string, string] {
  const cpu = mean(measurements, 'cpu');
  return [
    mean(measurements, 'requestsPerSecond').toFixed(0),
    mean(measurements, 'p99Ms').toFixed(2),
    Number.isNaN(cpu) ? 'n/a' : `${(cpu * 100).toFixed(0)}%`,
    mean(measurements, 'cpuMicrosPerRequest').toFixed(1),
  ];
}

function row(...cells: string[]): string {
  return cells.map((cell, index) => (index === 0 ? cell.padEnd(10) : cell.padStart(12))).join('');
}

/** The baseline: node:http writing stored bytes for a known path, and nothing else. */
function runPlainServer(): void {
  process.once('message', (routes) => {
    const byPath = new Map((routes as Route[]).map((route) => [route.path, { headers: route.headers, body: Buffer.from(route.body) }]));
    const server = createServer((request, response) => {
      const route = byPath.get(request.url ?? '');
      if (!route) {
        response.writeHead(404).end();
        return;
      }
      response.writeHead(200, route.headers).end(route.body);
    });
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      process.send!(typeof address === 'object' && address ? address.port : 0);
    });
    process.once('disconnect', () => server.close());
  });
}

// Last, so every constant above is initialised before main runs.
if (process.argv[2] === '--plain') runPlainServer();
else if (isMain(import.meta.url))
  await main().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
