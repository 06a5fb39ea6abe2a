/**
 * What an oversized answer costs the service, before and after the byte budget: the serving
 * process's peak RSS and `/health` latency (p50, p99, max) while three oversized sandbox queries
 * run at once, with CANNERY_MAX_RESULT_BYTES set out of reach (the old behaviour: no budget) and
 * at its default (32 MiB), in the same run on the same data. The query is the issue's kind: each
 * row's message with every space replaced by the message, then every space of that replaced by
 * it (about 550 kB a row of the seeded data; ROWS rows an answer).
 *
 *   npm run bench:hostile [-- --events 20000 --queries 3]
 *
 * The built CLI seeds a DuckDB file and serves it (dist/, compiled on its own by
 * tsconfig.bench.json). /health is asked one request after another, every HEALTH_EVERY_MS, from
 * just before the queries start until they all end: its latency is how long any other request
 * waits behind them.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { API_KEY, DEMO_PROJECT, describeMachine, isMain, markdownTable, mib, ms, percentile, processMemory, seed, serve } from './support.js';

/** Out of reach: the service before the budget. */
const NO_BUDGET = String(64 * 2 ** 30);
const HEALTH_EVERY_MS = 10;
/** Rows an answer: a row is about 550 kB on the seeded data, so an answer is about 110 MB. */
const ROWS = 200;

const OVERSIZED = [
  `with a as (select replace(event_message, ' ', event_message) as m from edge_logs limit ${ROWS}),`,
  "b as (select replace(m, ' ', m) as m from a)",
  'select m from b',
].join(' ');

interface Run {
  label: string;
  /** RSS once serving, before the queries. */
  idleRss: number;
  /** Peak RSS of the process by the end of the queries. */
  peakRss: number;
  health: { p50: number; p99: number; max: number; count: number };
  /** Each query's status and time. */
  queries: { status: number; ms: number; bytes: number }[];
}

async function oversizedQuery(url: string): Promise<Run['queries'][number]> {
  const started = performance.now();
  const response = await fetch(`${url}/api/endpoints/query/logs.all`, {
    method: 'POST',
    headers: { 'x-api-key': API_KEY, 'content-type': 'application/json' },
    body: JSON.stringify({ project: DEMO_PROJECT, sql: OVERSIZED }),
  });
  const body = await response.arrayBuffer();
  return { status: response.status, ms: performance.now() - started, bytes: body.byteLength };
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

async function measure(label: string, db: string, env: Record<string, string>, queries: number): Promise<Run> {
  const served = await serve({ db, env: { CANNERY_LOG_LEVEL: 'warn', ...env } });
  try {
    // One small query first: the process's own first-request allocations are not the queries'.
    await fetch(`${served.url}/api/endpoints/query/logs.all?project=${DEMO_PROJECT}`, { headers: { 'x-api-key': API_KEY } }).then((response) => response.arrayBuffer());
    const pid = served.child.pid!;
    const idleRss = processMemory(pid, 'VmRSS');
    const all = Promise.all(Array.from({ length: queries }, () => oversizedQuery(served.url)));
    const [results, latencies] = await Promise.all([all, pollHealth(served.url, all)]);
    return {
      label,
      idleRss,
      peakRss: processMemory(pid, 'VmHWM'),
      health: { p50: percentile(latencies, 50), p99: percentile(latencies, 99), max: Math.max(...latencies), count: latencies.length },
      queries: results,
    };
  } finally {
    await served.stop();
  }
}

export interface HostileCost {
  before: Run;
  after: Run;
  events: number;
  queries: number;
}

export async function measureHostile(events = 20_000, queries = 3): Promise<HostileCost> {
  const dir = await mkdtemp(join(tmpdir(), 'cannery-bench-hostile-'));
  try {
    const db = join(dir, 'bench.duckdb');
    seed(db, events);
    const before = await measure('no budget (before)', db, { CANNERY_MAX_RESULT_BYTES: NO_BUDGET }, queries);
    const after = await measure('32 MiB budget (after, the default)', db, {}, queries);
    return { before, after, events, queries };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export function hostileTable({ before, after }: HostileCost): string {
  const row = (run: Run): string[] => [
    run.label,
    mib(run.peakRss - run.idleRss),
    mib(run.peakRss),
    ms(run.health.p50),
    ms(run.health.p99),
    ms(run.health.max),
    run.queries.map((query) => `${query.status} in ${ms(query.ms)}`).join(', '),
  ];
  const ratio = (a: number, b: number) => (b > 0 ? (a / b).toFixed(2) : 'n/a');
  return [
    markdownTable(['', 'RSS growth', 'peak RSS', '/health p50', '/health p99', '/health max', 'queries'], [row(before), row(after)]),
    '',
    `after / before: RSS growth ${ratio(after.peakRss - after.idleRss, before.peakRss - before.idleRss)}, ` +
      `/health p99 ${ratio(after.health.p99, before.health.p99)}, /health max ${ratio(after.health.max, before.health.max)}`,
  ].join('\n');
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { events: { type: 'string', default: '20000' }, queries: { type: 'string', default: '3' } } });
  const machine = describeMachine();
  console.error(`bench:hostile: seeding ${values.events} edge events, then ${values.queries} oversized queries at once, without and with the budget`);
  const cost = await measureHostile(Number(values.events), Number(values.queries));
  const answer = cost.before.queries.find((query) => query.status === 200);
  console.log(`${cost.queries} oversized sandbox queries at once on logs.all (${cost.events} edge events seeded${answer ? `; one answer without a budget: ${mib(answer.bytes)}` : ''}):`);
  console.log(`${machine.cpu}, ${machine.cores} cores, ${machine.memory}, node ${machine.node}, load ${machine.load}\n`);
  console.log(hostileTable(cost));
}

if (isMain(import.meta.url)) {
  main().catch((error) => {
    console.error(error);
    process.exit(1);
  });
}
