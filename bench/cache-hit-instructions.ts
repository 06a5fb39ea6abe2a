/**
 * Cache hits counted in instructions: the user-space instructions the serving process executes
 * per request, for cannery and for the bare h3 app of bench/bare-h3.ts sending the same bytes,
 * under valgrind's callgrind; one key again and again, and 1,000 keys interleaved
 * (bench/hit-servers.ts). Throughput on a shared machine moves by a third from one minute to the
 * next; an instruction count moves by about 2%, whatever else the machine is doing. So this is
 * the figure to compare two versions of the hit path by. It leaves out the kernel's work (the
 * same for both servers) and what a cache miss or a stall costs, which the 1,000-key case shows
 * in wall time only (bench/cache-hits.ts). Under valgrind a request takes some fifty times
 * longer, so what is done once per millisecond or per second (the log's time, the Date header)
 * is counted more often than at full speed.
 *
 * Each server runs under callgrind with counting off while it starts, fills its cache and warms
 * up on every case; then, case by case, counting is switched on (callgrind_control), and the
 * second of two windows of `requests` requests is read. The database is small (the answers' rows are the same few at any
 * size), so that filling 1,000 keys under valgrind takes a minute, not a quarter of an hour.
 *
 *   npm run bench:instructions [-- --requests 10000]
 */
import type { ChildProcess } from 'node:child_process';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { TARGET_CPU_RATIO } from './cache-hits.js';
import { benchEndpoints, CASES, fillAndCapture, hitLoad, startBareH3, startService } from './hit-servers.js';
import { isMain, seed } from './support.js';

/** Requests each server answers before counting starts: enough for the JIT to settle. */
const WARM_UP = 3000;
const CONNECTIONS = 32;
const EVENTS = 5000;

export interface InstructionCase {
  label: string;
  keys: number;
  bytes: number;
  /** Instructions per request, the serving process's user space. */
  cannery: number;
  h3: number;
}

const callgrind = (outFile: string) => ['valgrind', '--tool=callgrind', '--instr-atstart=no', `--callgrind-out-file=${outFile}`];

export async function measureHitInstructions(requests: number): Promise<InstructionCase[]> {
  execFileSync('valgrind', ['--version'], { stdio: 'ignore' });
  const dir = await mkdtemp(join(tmpdir(), 'cannery-instructions-'));
  const children: ChildProcess[] = [];
  try {
    const db = join(dir, 'bench.duckdb');
    seed(db, EVENTS);
    const endpoints = await benchEndpoints(join(dir, 'endpoints'));
    const service = await startService({ dir, db, endpoints, name: 'serve', command: [...callgrind(join(dir, 'cannery.out')), process.execPath] });
    children.push(service.child);
    const routes = await fillAndCapture(service.url, CASES.flatMap((entry) => entry.paths));
    const bare = await startBareH3(routes, callgrind(join(dir, 'h3.out')));
    children.push(bare.child);

    // Every case once on each server before any is counted: the first case counted would
    // otherwise carry the JIT's work on the hit path and the collection of the fill's garbage.
    for (const { paths } of CASES) {
      await hitLoad(service.url, paths, CONNECTIONS, { amount: WARM_UP });
      await hitLoad(bare.url, paths, CONNECTIONS, { amount: WARM_UP });
    }
    const results: InstructionCase[] = [];
    let dumps = 0;
    for (const { label, paths } of CASES) {
      const cannery = await count(service.child, service.url, paths, requests, join(dir, 'cannery.out'), dumps);
      const h3 = await count(bare.child, bare.url, paths, requests, join(dir, 'h3.out'), dumps);
      dumps += 2;
      results.push({ label, keys: paths.length, bytes: Buffer.byteLength(routes.find((route) => route.path === paths[0])!.body), cannery, h3 });
    }
    return results;
  } finally {
    for (const child of children) child.kill('SIGKILL');
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * Instructions per request over `requests` requests, counted after as many again: the JIT goes on
 * compiling for a while after counting starts, and the first window carries that. Each dump
 * (callgrind_control --dump) writes the counts since the last one to `outFile`.<n>; `before`
 * dumps were taken already.
 */
async function count(server: ChildProcess, url: string, paths: readonly string[], requests: number, outFile: string, before: number): Promise<number> {
  await hitLoad(url, paths, CONNECTIONS, { amount: WARM_UP });
  callgrindControl(before === 0 ? '--instr=on' : '--zero', server);
  await hitLoad(url, paths, CONNECTIONS, { amount: requests });
  callgrindControl('--dump', server);
  await hitLoad(url, paths, CONNECTIONS, { amount: requests });
  callgrindControl('--dump', server);
  const totals = /^totals: (\d+)/m.exec(readFileSync(`${outFile}.${before + 2}`, 'utf8'));
  if (!totals) throw new Error(`${outFile}.${before + 2}: no totals line`);
  return Number(totals[1]) / requests;
}

function callgrindControl(command: string, server: ChildProcess): void {
  execFileSync('callgrind_control', [command, String(server.pid)], { stdio: 'ignore' });
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { requests: { type: 'string', default: '10000' } } });
  const requests = Number(values.requests);
  console.log(`cache hits in instructions: the serving process's user-space instructions per request under callgrind, ${requests} requests each, ${CONNECTIONS} connections`);
  for (const result of await measureHitInstructions(requests)) {
    const ratio = result.cannery / result.h3;
    console.log(
      `${result.label} (${result.bytes} byte body): cannery ${Math.round(result.cannery)}, bare h3 ${Math.round(result.h3)}; cannery/bare h3 ${ratio.toFixed(3)} (CPU target <= ${TARGET_CPU_RATIO})`,
    );
  }
}

if (isMain(import.meta.url))
  await main().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
