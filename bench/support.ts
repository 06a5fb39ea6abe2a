/**
 * What the benchmark scripts share: the built CLI (seed, serve), process memory and CPU time
 * from /proc, percentiles, markdown and the machine's description.
 *
 * Benchmarks run the built code (dist/), compiled on their own by tsconfig.bench.json; a module
 * of src/ is therefore imported by URL (from DIST), with the few shapes used written out.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, freemem, loadavg, release, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from './free-port.js';

export const DIST = new URL('../', import.meta.url);
export const CLI = fileURLToPath(new URL('cli.js', DIST));
export const SHIPPED_ENDPOINTS = fileURLToPath(new URL('../endpoints/', DIST));
export const API_KEY = 'bench-key';
export const DEMO_PROJECT = 'qzvmkdwtrjxhbnpalcoe';

/** `1m` -> 1,000,000; `250k` -> 250,000. */
export function parseSize(text: string): { label: string; edgeEvents: number } {
  const match = /^(\d+(?:\.\d+)?)([km]?)$/i.exec(text.trim());
  if (!match) throw new Error(`--sizes takes sizes such as 1m,10m or 250k (got "${text}")`);
  const unit = { '': 1, k: 1e3, m: 1e6 }[match[2]!.toLowerCase() as '' | 'k' | 'm'];
  return { label: text.trim().toUpperCase(), edgeEvents: Math.round(Number(match[1]) * unit) };
}

/** `cannery seed`; its progress goes to this process's stderr, so stdout stays the report. */
export function seed(db: string, edgeEvents: number): void {
  execFileSync(process.execPath, [CLI, 'seed', '--db', db, '--events', String(edgeEvents)], { stdio: ['ignore', 'ignore', 'inherit'] });
}

export interface Served {
  url: string;
  child: ChildProcess;
  /** Milliseconds from spawn to the first 200 on /health. */
  startupMs: number;
  /** The last 10,000 characters the server wrote to stderr: what it said before a failure. */
  stderrTail(): string;
  stop(): Promise<void>;
}

export interface ServeOptions {
  db: string;
  endpoints?: string;
  env?: Record<string, string>;
  /** Extra node flags for the server (e.g. --cpu-prof). */
  nodeArgs?: string[];
  /** Another build's CLI (a baseline measured in the same run); default: this build's. */
  cli?: string;
  /**
   * A session of its own (Linux then schedules it as its own group, as a server on its own
   * machine), so the benchmark's clients do not share its CPU share.
   */
  ownSession?: boolean;
}

const START_TIMEOUT_MS = 120_000;

/**
 * The built `cannery serve` on loopback; resolves at its first 200 on /health. Its stdout (the
 * request log) goes to /dev/null: read here, it would take CPU from the load generator in this
 * process, while writing it stays the server's cost, as in production.
 */
export async function serve(options: ServeOptions): Promise<Served> {
  const port = await freePort();
  const args = [...(options.nodeArgs ?? []), options.cli ?? CLI, 'serve', '--db', options.db, '--endpoints', options.endpoints ?? SHIPPED_ENDPOINTS, '--port', String(port), '--host', '127.0.0.1'];
  const spawned = performance.now();
  const child = spawn(process.execPath, args, {
    env: { PATH: process.env.PATH ?? '', CANNERY_API_KEYS: API_KEY, ...options.env },
    stdio: ['ignore', 'ignore', 'pipe'],
    detached: options.ownSession ?? false,
  });
  let errors = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (errors = (errors + chunk).slice(-10_000)));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`cannery serve exited (${child.exitCode ?? child.signalCode}) before listening:\n${errors}`);
    if (performance.now() - spawned > START_TIMEOUT_MS) {
      child.kill();
      throw new Error(`cannery serve did not answer /health within ${START_TIMEOUT_MS} ms:\n${errors}`);
    }
    const status = await fetch(`${url}/health`).then(
      (response) => response.arrayBuffer().then(() => response.status),
      () => 0,
    );
    if (status === 200) break;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  const startupMs = performance.now() - spawned;
  return {
    url,
    child,
    startupMs,
    stderrTail: () => errors,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

/** The CANNERY_* settings of this process's environment, for trying the served process with other settings. */
export function cannerySettings(): Record<string, string> {
  return Object.fromEntries(Object.entries(process.env).filter((entry): entry is [string, string] => entry[0].startsWith('CANNERY_') && entry[1] !== undefined));
}

/** A field of /proc/<pid>/status in bytes (VmRSS: now, VmHWM: the peak); NaN where there is no /proc. */
export function processMemory(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  try {
    const line = readFileSync(`/proc/${pid}/status`, 'utf8')
      .split('\n')
      .find((entry) => entry.startsWith(`${field}:`));
    return Number(/(\d+) kB/.exec(line ?? '')?.[1]) * 1024;
  } catch {
    return NaN;
  }
}

/** The p-th percentile (0..100) of the values, by nearest rank. */
/**
 * `work` on the built `serve` of a database `cannery seed` writes with `edgeEvents` edge events,
 * in a temporary folder named from `prefix`; the server is stopped and the folder removed
 * however `work` ends.
 */
export async function withSeededServer<T>(prefix: string, edgeEvents: number, options: Omit<ServeOptions, 'db'>, work: (served: Served) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  try {
    const db = join(dir, 'bench.duckdb');
    seed(db, edgeEvents);
    const served = await serve({ ...options, db });
    try {
      return await work(served);
    } finally {
      await served.stop();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))]!;
}

export function median(values: readonly number[]): number {
  return percentile(values, 50);
}

export function mib(bytes: number): string {
  return Number.isNaN(bytes) ? 'n/a' : `${(bytes / 2 ** 20).toFixed(0)} MiB`;
}

export function ms(value: number): string {
  return value >= 100 ? `${value.toFixed(0)} ms` : value >= 10 ? `${value.toFixed(1)} ms` : `${value.toFixed(2)} ms`;
}

export interface Machine {
  cpu: string;
  cores: number;
  memory: string;
  node: string;
  os: string;
  date: string;
  /** Runnable processes averaged over the last minute: above zero, something else was running. */
  load: string;
}

export function describeMachine(): Machine {
  const processors = cpus();
  return {
    cpu: processors[0]?.model.trim() ?? 'unknown',
    cores: processors.length,
    memory: `${(totalmem() / 2 ** 30).toFixed(1)} GiB (${(freemem() / 2 ** 30).toFixed(1)} GiB free at start)`,
    node: process.version,
    os: `${process.platform} ${release()}`,
    date: new Date().toISOString(),
    load: loadavg()[0]!.toFixed(2),
  };
}

/** A markdown table; cells after the first are right-aligned. */
export function markdownTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const line = (cells: readonly string[]) => `| ${cells.join(' | ')} |`;
  const rule = header.map((_, index) => (index === 0 ? '---' : '---:'));
  return [line(header), line(rule), ...rows.map(line)].join('\n');
}

/** CPU seconds a process has used (Linux /proc; NaN elsewhere). */
export function cpuSeconds(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
  } catch {
    return NaN;
  }
}

const CLOCK_TICKS = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** Whether this module's importer is the script node was started with. */
export function isMain(moduleUrl: string): boolean {
  return process.argv[1] !== undefined && fileURLToPath(moduleUrl) === process.argv[1];
}

/** A sandbox query on logs.all for the demo project, by POST: its status, the body read and dropped. */
export async function sandboxQuery(url: string, sql: string): Promise<number> {
  const response = await fetch(`${url}/api/endpoints/query/logs.all`, {
    method: 'POST',
    headers: { 'x-api-key': API_KEY, 'content-type': 'application/json' },
    body: JSON.stringify({ project: DEMO_PROJECT, sql }),
  });
  await response.arrayBuffer();
  return response.status;
}

/** /health, one request after another, while `until` is unsettled (or `count` times). */
export async function healthWhile(url: string, until: Promise<unknown> | number): Promise<number[]> {
  let finished = false;
  if (typeof until !== 'number') void until.finally(() => (finished = true));
  const latencies: number[] = [];
  while (typeof until === 'number' ? latencies.length < until : !finished) {
    const started = performance.now();
    await (await fetch(`${url}/health`)).arrayBuffer();
    latencies.push(performance.now() - started);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return latencies;
}
