/**
 * Cache hits counted in instructions: the user-space instructions the serving process executes
 * per request, for cannery and for the plain node:http server of bench/cache-hits.ts sending the
 * same bytes, under valgrind's callgrind. Throughput on a shared machine moves by a third from
 * one minute to the next; an instruction count moves by about 2% for cannery (the plain server's
 * by 0.2%), whatever else the machine is doing. So this is the figure to compare two versions of
 * the hit path by. It leaves out the kernel's work (the same for both servers, about a quarter
 * of either's time) and what a cache miss or a stall costs. Under valgrind a request takes some
 * fifty times longer, so what is done once per millisecond or per second (the log's time, the
 * Date header) is counted more often than at full speed.
 *
 * Each server runs under callgrind with counting off while it starts and warms up; then counting
 * is switched on (callgrind_control), and the second of two windows of `requests` requests is read.
 *
 *   npm run bench:instructions [-- --requests 10000]
 */
import autocannon from 'autocannon';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { captureHit, CASES, listeningUrl, TARGET_RATIO, type Route } from './cache-hits.js';
import { API_KEY, CLI, isMain, seed } from './support.js';

const PLAIN_SERVER = fileURLToPath(new URL('cache-hits.js', import.meta.url));
/** Requests each server answers before counting starts: enough for the JIT to settle. */
const WARM_UP = 3000;
const CONNECTIONS = 32;

export interface InstructionCase {
  label: string;
  bytes: number;
  /** Instructions per request, the serving process's user space. */
  cannery: number;
  plain: number;
}

/** A process under callgrind, counting nothing until told. */
function underCallgrind(outFile: string, args: string[], options: Parameters<typeof spawn>[2]): ChildProcess {
  return spawn('valgrind', ['--tool=callgrind', '--instr-atstart=no', `--callgrind-out-file=${outFile}`, process.execPath, ...args], options);
}

export async function measureHitInstructions(requests: number): Promise<InstructionCase[]> {
  execFileSync('valgrind', ['--version'], { stdio: 'ignore' });
  const dir = await mkdtemp(join(tmpdir(), 'cannery-instructions-'));
  const children: ChildProcess[] = [];
  try {
    const db = join(dir, 'bench.duckdb');
    seed(db, 50_000);
    const results: InstructionCase[] = [];
    for (const [index, { label, path }] of CASES.entries()) {
      const log = join(dir, `serve-${index}.log`);
      const logFd = openSync(log, 'w');
      const service = underCallgrind(join(dir, `cannery-${index}.out`), [CLI, 'serve', '--db', db, '--port', '0', '--host', '127.0.0.1'], {
        env: { ...process.env, CANNERY_API_KEYS: API_KEY },
        stdio: ['ignore', logFd, logFd],
      });
      closeSync(logFd);
      children.push(service);
      const serviceUrl = await listeningUrl(service, log);
      const route = await captureHit(serviceUrl, path);

      const plain = underCallgrind(join(dir, `plain-${index}.out`), [PLAIN_SERVER, '--plain'], { stdio: ['ignore', 'ignore', 'ignore', 'ipc'] });
      children.push(plain);
      plain.send([route] satisfies Route[]);
      const plainUrl = await new Promise<string>((resolve) => plain.once('message', (port) => resolve(`http://127.0.0.1:${port as number}`)));

      const cannery = await count(service, serviceUrl + path, requests, join(dir, `cannery-${index}.out`));
      const baseline = await count(plain, plainUrl + path, requests, join(dir, `plain-${index}.out`));
      results.push({ label, bytes: Buffer.byteLength(route.body), cannery, plain: baseline });
      // The next case's cannery opens the same database, which this one holds locked.
      await Promise.all([stop(service), stop(plain)]);
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
 * (callgrind_control --dump) writes the counts since the last one to `outFile`.<n>.
 */
async function count(server: ChildProcess, url: string, requests: number, outFile: string): Promise<number> {
  await load(url, WARM_UP);
  callgrindControl('--instr=on', server);
  await load(url, requests);
  callgrindControl('--dump', server);
  await load(url, requests);
  callgrindControl('--dump', server);
  const totals = /^totals: (\d+)/m.exec(readFileSync(`${outFile}.2`, 'utf8'));
  if (!totals) throw new Error(`${outFile}.2: no totals line`);
  return Number(totals[1]) / requests;
}

function stop(child: ChildProcess): Promise<void> {
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGKILL');
  return exited;
}

function callgrindControl(command: string, server: ChildProcess): void {
  execFileSync('callgrind_control', [command, String(server.pid)], { stdio: 'ignore' });
}

async function load(url: string, amount: number): Promise<void> {
  const result = await autocannon({ url, connections: CONNECTIONS, amount, headers: { 'x-api-key': API_KEY } });
  if (result.errors || result.non2xx || result.timeouts) throw new Error(`${url}: ${result.errors} errors, ${result.non2xx} non-2xx, ${result.timeouts} timeouts`);
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { requests: { type: 'string', default: '10000' } } });
  const requests = Number(values.requests);
  console.log(`cache hits in instructions: the serving process's user-space instructions per request under callgrind, ${requests} requests each, ${CONNECTIONS} connections`);
  for (const result of await measureHitInstructions(requests)) {
    const ratio = result.plain / result.cannery;
    console.log(
      `${result.label} (${result.bytes} byte body): cannery ${Math.round(result.cannery)}, plain ${Math.round(result.plain)}; plain/cannery ${ratio.toFixed(3)} (throughput target ${TARGET_RATIO})`,
    );
  }
}

if (isMain(import.meta.url))
  await main().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
