/**
 * Cache hits: cannery's server CPU per request and throughput against a bare h3 app on the same
 * srvx and h3 (bench/bare-h3.ts) returning the same bytes, measured in the same run, on loopback;
 * one key asked again and again, and 1,000 keys interleaved (bench/hit-servers.ts).
 *
 * cannery is the real thing: the built CLI's `serve` on a database written by its `seed`. Each
 * server runs in its own process and autocannon in this one. Rounds alternate between the two
 * servers so that drift in the machine's speed falls on both, and each ratio reported is the
 * median of the back-to-back pairs' ratios. The headline is the server's CPU time per request,
 * cannery / bare h3 (target <= TARGET_CPU_RATIO): it depends far less than throughput on who
 * else runs on a shared machine. A server below ~95% of a core was not the bottleneck, and its
 * throughput says little.
 *
 *   npm run bench:cache [-- --seconds 5 --rounds 8 --connections 32]
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { benchEndpoints, CASES, fillAndCapture, hitLoad, startBareH3, startService } from './hit-servers.js';
import { cpuSeconds, isMain, median, seed } from './support.js';

/** Cache-hit CPU per request, cannery / bare h3. */
export const TARGET_CPU_RATIO = 1.2;

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
  keys: number;
  bytes: number;
  cannery: Measurement[];
  h3: Measurement[];
  /** Server CPU per request, cannery / bare h3: the median of the rounds' ratios. */
  cpuRatio: number;
  /** Throughput, cannery / bare h3: the median of the rounds' ratios. */
  throughputRatio: number;
}

export async function measureCacheHits(options: CacheHitOptions): Promise<CacheHitCase[]> {
  const { seconds, rounds, connections } = options;
  const dir = await mkdtemp(join(tmpdir(), 'cannery-bench-'));
  const children: ChildProcess[] = [];
  try {
    const db = join(dir, 'bench.duckdb');
    seed(db, options.events);
    const service = await startService({ dir, db, endpoints: await benchEndpoints(join(dir, 'endpoints')), name: 'serve' });
    children.push(service.child);
    const routes = await fillAndCapture(service.url, CASES.flatMap((entry) => entry.paths));
    const bare = await startBareH3(routes);
    children.push(bare.child);

    const results: CacheHitCase[] = [];
    for (const { label, paths } of CASES) {
      await hitLoad(service.url, paths, connections, { seconds: 2 });
      await hitLoad(bare.url, paths, connections, { seconds: 2 });
      const cannery: Measurement[] = [];
      const h3: Measurement[] = [];
      for (let round = 0; round < rounds; round++) {
        cannery.push(await measure(service.child, service.url, paths, connections, seconds));
        h3.push(await measure(bare.child, bare.url, paths, connections, seconds));
      }
      results.push({
        label,
        keys: paths.length,
        bytes: Buffer.byteLength(routes.find((route) => route.path === paths[0])!.body),
        cannery,
        h3,
        cpuRatio: median(cannery.map((round, index) => round.cpuMicrosPerRequest / h3[index]!.cpuMicrosPerRequest)),
        throughputRatio: median(cannery.map((round, index) => round.requestsPerSecond / h3[index]!.requestsPerSecond)),
      });
    }
    return results;
  } finally {
    for (const child of children) child.kill();
    await rm(dir, { recursive: true, force: true });
  }
}

async function measure(server: ChildProcess, url: string, paths: readonly string[], connections: number, seconds: number): Promise<Measurement> {
  const before = cpuSeconds(server.pid!);
  const started = performance.now();
  const result = await hitLoad(url, paths, connections, { seconds });
  const elapsed = (performance.now() - started) / 1000;
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
    `cache hits: cannery (built \`serve\`) vs a bare h3 app with the same bytes; loopback, ${options.connections} connections, ${options.rounds} x ${options.seconds} s per server, alternating`,
  );
  let worst = 0;
  let saturated = Infinity;
  for (const result of await measureCacheHits(options)) {
    worst = Math.max(worst, result.cpuRatio);
    saturated = Math.min(saturated, mean(result.cannery, 'cpu'), mean(result.h3, 'cpu'));
    console.log(`\n${result.label} (${result.bytes} byte body)`);
    console.log(row('server', 'req/s', 'p99 ms', 'server CPU', 'CPU us/req'));
    console.log(row('cannery', ...summary(result.cannery)));
    console.log(row('bare h3', ...summary(result.h3)));
    const rounds = result.cannery.map((round, index) => (round.cpuMicrosPerRequest / result.h3[index]!.cpuMicrosPerRequest).toFixed(2));
    console.log(`CPU per request, cannery/bare h3, by round: ${rounds.join(' ')}`);
    console.log(`median of ${options.rounds} paired rounds: CPU per request cannery/bare h3 ${result.cpuRatio.toFixed(3)}; throughput cannery/bare h3 ${result.throughputRatio.toFixed(3)}`);
  }
  console.log(`\nhighest CPU-per-request ratio ${worst.toFixed(3)}: ${worst <= TARGET_CPU_RATIO ? 'meets' : 'MISSES'} the target of ${TARGET_CPU_RATIO}`);
  if (saturated < 0.9) console.log(`note: a server used only ${(saturated * 100).toFixed(0)}% of a core; other load limited the run, so its throughput says little`);
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

if (isMain(import.meta.url))
  await main().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
