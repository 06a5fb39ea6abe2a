/**
 * What oversized answers cost the service: the serving process's peak RSS, the queries' statuses
 * and times, and `/health` latency (p50, p99, max) while QUERIES oversized sandbox queries run at
 * once. Three kinds, each on its own fresh server:
 *
 * - `rows of 73 kB` (issue 29's result bomb, as the issue wrote it): every row's message with
 *   every space replaced by the message, twice, over all rows: the byte budget stops it after
 *   some 450 rows, and what it costs is what DuckDB computed before that (logs.all's 1,000-row
 *   cap, which DuckDB collects before the first row is read);
 * - `rows of 1.5 MB` (the same, widened once more): every row's message with every space replaced
 *   by the message, then every space of that by the message so widened, over all rows: DuckDB
 *   computes each vector of 1,000 such rows before any reaches the byte budget, so
 *   CANNERY_DUCKDB_MEMORY_LIMIT is what bounds it;
 * - `200 rows of 550 kB` (issue 15's): 200 rows' messages, widened twice over; the byte budget
 *   (CANNERY_MAX_RESULT_BYTES) stops it as the rows are converted.
 *
 *   npm run bench:hostile [-- --events 20000 --queries 3 --baseline DIST/cli.js]
 *
 * `--baseline` runs another build's CLI (say main's) on the same data in the same run, before
 * this one, with the same settings. /health is asked one request after another, every
 * HEALTH_EVERY_MS, from just before the queries start until they all end.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { API_KEY, CLI, DEMO_PROJECT, describeMachine, isMain, markdownTable, mib, ms, percentile, processMemory, seed, serve } from './support.js';

const HEALTH_EVERY_MS = 10;

const WIDENED = "replace(replace(event_message, ' ', event_message), ' ', replace(event_message, ' ', event_message))";
const KINDS: Record<string, string> = {
  'rows of 73 kB': "select replace(replace(event_message, ' ', event_message), ' ', event_message) as x from edge_logs",
  'rows of 1.5 MB': `select ${WIDENED} as m from edge_logs`,
  '200 rows of 550 kB': [
    "with a as (select replace(event_message, ' ', event_message) as m from edge_logs limit 200),",
    "b as (select replace(m, ' ', m) as m from a)",
    'select m from b',
  ].join(' '),
};

interface Run {
  label: string;
  kind: string;
  /** RSS once serving, before the queries. */
  idleRss: number;
  /** Peak RSS of the process by the end of the queries. */
  peakRss: number;
  health: { p50: number; p99: number; max: number; count: number };
  /** Each query's status and time. */
  queries: { status: number; ms: number; code: string }[];
}

async function oversizedQuery(url: string, sql: string): Promise<Run['queries'][number]> {
  const started = performance.now();
  const response = await fetch(`${url}/api/endpoints/query/logs.all`, {
    method: 'POST',
    headers: { 'x-api-key': API_KEY, 'content-type': 'application/json' },
    body: JSON.stringify({ project: DEMO_PROJECT, sql }),
  });
  const body = await response.text();
  const code = response.status === 200 ? `${(body.length / 2 ** 20).toFixed(0)} MiB` : (/"code":"(\w+)"/.exec(body)?.[1] ?? '?');
  return { status: response.status, ms: performance.now() - started, code };
}

/** Asks /health one request after another until `done` settles; the latency of each. */
async function pollHealth(url: string, done: Promise<unknown>): Promise<number[]> {
  let finished = false;
  void done.finally(() => (finished = true));
  const latencies: number[] = [];
  while (!finished) {
    const started = performance.now();
    const response = await fetch(`${url}/health`);
    await response.arrayBuffer();
    latencies.push(performance.now() - started);
    await new Promise((resolve) => setTimeout(resolve, HEALTH_EVERY_MS));
  }
  return latencies;
}

async function measure(label: string, cli: string, db: string, kind: string, queries: number): Promise<Run> {
  const served = await serve({ db, cli, env: { CANNERY_LOG_LEVEL: 'warn' } });
  try {
    // One small query first: the process's own first-request allocations are not the queries'.
    await fetch(`${served.url}/api/endpoints/query/logs.all?project=${DEMO_PROJECT}`, { headers: { 'x-api-key': API_KEY } }).then((response) => response.arrayBuffer());
    const pid = served.child.pid!;
    const idleRss = processMemory(pid, 'VmRSS');
    const all = Promise.all(Array.from({ length: queries }, () => oversizedQuery(served.url, KINDS[kind]!)));
    const [results, latencies] = await Promise.all([all, pollHealth(served.url, all)]);
    return {
      label,
      kind,
      idleRss,
      peakRss: processMemory(pid, 'VmHWM'),
      health: { p50: percentile(latencies, 50), p99: percentile(latencies, 99), max: Math.max(...latencies), count: latencies.length },
      queries: results,
    };
  } finally {
    await served.stop();
  }
}

export async function measureHostile(events = 20_000, queries = 3, baseline?: string): Promise<Run[]> {
  const dir = await mkdtemp(join(tmpdir(), 'cannery-bench-hostile-'));
  try {
    const db = join(dir, 'bench.duckdb');
    seed(db, events);
    const runs: Run[] = [];
    for (const kind of Object.keys(KINDS)) {
      if (baseline) runs.push(await measure('baseline', baseline, db, kind, queries));
      runs.push(await measure('this build', CLI, db, kind, queries));
    }
    return runs;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export function hostileTable(runs: readonly Run[]): string {
  return markdownTable(
    ['', 'build', 'peak RSS', 'RSS growth', '/health p50', '/health p99', '/health max', 'queries'],
    runs.map((run) => [
      run.kind,
      run.label,
      mib(run.peakRss),
      mib(run.peakRss - run.idleRss),
      ms(run.health.p50),
      ms(run.health.p99),
      ms(run.health.max),
      run.queries.map((query) => `${query.status} ${query.code} in ${ms(query.ms)}`).join(', '),
    ]),
  );
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { events: { type: 'string', default: '20000' }, queries: { type: 'string', default: '3' }, baseline: { type: 'string' } } });
  const before = describeMachine();
  console.error(`bench:hostile: seeding ${values.events} edge events, then ${values.queries} oversized queries at once of each kind`);
  const runs = await measureHostile(Number(values.events), Number(values.queries), values.baseline);
  const after = describeMachine();
  console.log(`${values.queries} oversized sandbox queries at once on logs.all (${values.events} edge events seeded), each kind on a fresh server${values.baseline ? `; baseline: ${values.baseline}` : ''}:`);
  console.log(`${before.cpu}, ${before.cores} cores, ${before.memory}, node ${before.node}, ${before.date}; load average ${before.load} before, ${after.load} after\n`);
  console.log(hostileTable(runs));
}

if (isMain(import.meta.url)) {
  main().catch((error) => {
    console.error(error);
    process.exit(1);
  });
}
