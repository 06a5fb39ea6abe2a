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
 *
 * and issue 38's memory bombs, each a few dozen characters of SQL: a GENERATE_ARRAY of a billion
 * elements (23 GB before its bound, and the kernel killed the server), a GENERATE_TIMESTAMP_ARRAY
 * of 600 million, a REPEAT and an LPAD to gigabytes, FORMAT to 500 MB (a host function), thirty
 * doubling WITH tables (DuckDB's planner), STRING_AGG over 70 million rows, regular expressions
 * whose nested repetitions RE2 refuses (the literal analysis once built them), and a REPEAT of
 * 90 kB on every row (under the bound where an argument varies by row);
 *
 * and issue 38's stalls, functions the embedded engine runs in JavaScript on the event loop:
 * EDIT_DISTANCE of two 20,000-character strings over 9 rows (34 s before its bound), INSTR over
 * 60,000 characters, JSON_QUERY_ARRAY of 5 million elements, and INITCAP over every row, each
 * block within its bound (with `--events` past one row group, 122,880 rows, and more than one
 * DuckDB thread, the threads' blocks reach the event loop back to back: docs/operations.md).
 *
 *   npm run bench:hostile [-- --events 20000 --queries 3 --baseline DIST/cli.js --kinds a,b --ceiling-mib 4096]
 *
 * `--baseline` runs another build's CLI (say main's) on the same data in the same run, before
 * this one, with the same settings: this process's CANNERY_* settings (say CANNERY_DUCKDB_THREADS). /health is asked one request after another, every
 * HEALTH_EVERY_MS, from just before the queries start until they all end. A server whose RSS
 * passes `--ceiling-mib` (4 GiB by default: the machine is shared) is killed there, and its
 * queries reported as `killed`; its peak is then at least the ceiling.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { API_KEY, CLI, cannerySettings, DEMO_PROJECT, describeMachine, isMain, markdownTable, mib, ms, percentile, processMemory, seed, serve } from './support.js';

const HEALTH_EVERY_MS = 10;
const MEMORY_EVERY_MS = 20;
/** How long a query is waited for, past the server's own 25 s timeout. */
const QUERY_WAIT_MS = 60_000;
/** A /health request that takes longer is counted as unanswered (the server killed, or stalled). */
const HEALTH_TIMEOUT_MS = 10_000;

const WIDENED = "replace(replace(event_message, ' ', event_message), ' ', replace(event_message, ' ', event_message))";
/** Each kind's name and SQL; a name holds no comma, since `--kinds` is a list split at commas. */
const KINDS: Record<string, string> = {
  'rows of 73 kB': "select replace(replace(event_message, ' ', event_message), ' ', event_message) as x from edge_logs",
  'rows of 1.5 MB': `select ${WIDENED} as m from edge_logs`,
  '200 rows of 550 kB': [
    "with a as (select replace(event_message, ' ', event_message) as m from edge_logs limit 200),",
    "b as (select replace(m, ' ', m) as m from a)",
    'select m from b',
  ].join(' '),
  'GENERATE_ARRAY of 1e9': 'select array_length(generate_array(1, 1000000000)) as n',
  'GENERATE_TIMESTAMP_ARRAY of 10 min by 1 us': "select array_length(generate_timestamp_array(timestamp '2024-01-01', timestamp '2024-01-01 00:10:00', interval 1 microsecond)) as n",
  'REPEAT to 3 GB': 'select repeat("abc", 1000000000) as s',
  'LPAD to 1e9': "select lpad('x', 1000000000) as s",
  'FORMAT to 500 MB': "select length(format('%500000000d', 1)) as s",
  'thirty doubling WITH tables': `with a1 as (select 1 as x), ${Array.from({ length: 29 }, (_, index) => `a${index + 2} as (select * from a${index + 1} union all select * from a${index + 1})`).join(', ')} select count(*) as n from a30`,
  'STRING_AGG over 70M rows':
    "select length(string_agg(cast(a as string), ',')) as n from unnest(generate_array(1, 1000000)) as a, unnest(generate_array(1, 70)) as b",
  'regex (a{1000}) nested 4 deep': "select regexp_contains('a', '((((a{1000}){1000}){1000}){1000})') as m",
  'regex ((a{1000}){1000}){500}': "select regexp_contains('a', '((a{1000}){1000}){500}') as m",
  'REPEAT of 90 kB a row': 'select max(length(repeat(id, 2500))) as n from edge_logs',
  'EDIT_DISTANCE of 20000 x 20000 over 9 rows': "select edit_distance(repeat(substr(id, 1, 1), 20000), repeat('b', 20000)) as d from (select id from edge_logs limit 9)",
  'INSTR over 60000 characters': "select instr(repeat('a', 60000), concat(repeat('a', 30000), 'b')) as i",
  'JSON_QUERY_ARRAY of 5M elements':
    "select array_length(json_query_array((select concat('[', string_agg('1', ','), ']') from unnest(generate_array(1, 5000)) as a, unnest(generate_array(1, 1000)) as b))) as n",
  'INITCAP over every row': 'select max(initcap(event_message)) as m from edge_logs',
};

interface Run {
  label: string;
  kind: string;
  /** RSS once serving, before the queries. */
  idleRss: number;
  /** Peak RSS of the process by the end of the queries (at least the ceiling when killed there). */
  peakRss: number;
  /** Killed at the RSS ceiling. */
  killed: boolean;
  health: { p50: number; p99: number; max: number; count: number };
  /** Each query's status and time. */
  queries: { status: number; ms: number; code: string }[];
}

async function oversizedQuery(url: string, sql: string): Promise<Run['queries'][number]> {
  const started = performance.now();
  try {
    const response = await fetch(`${url}/api/endpoints/query/logs.all`, {
      method: 'POST',
      headers: { 'x-api-key': API_KEY, 'content-type': 'application/json' },
      body: JSON.stringify({ project: DEMO_PROJECT, sql }),
      signal: AbortSignal.timeout(QUERY_WAIT_MS),
    });
    const body = await response.text();
    const size = body.length >= 2 ** 20 ? `${(body.length / 2 ** 20).toFixed(0)} MiB` : `${body.length} B`;
    const code = response.status === 200 ? size : (/"code":"(\w+)"/.exec(body)?.[1] ?? '?');
    return { status: response.status, ms: performance.now() - started, code };
  } catch (error) {
    // No answer in QUERY_WAIT_MS (DuckDB's planner does not heed the timeout's interrupt), or the server is gone (killed at the ceiling, or by the kernel).
    const waited = (error as Error).name === 'TimeoutError';
    return { status: 0, ms: performance.now() - started, code: waited ? `no answer in ${QUERY_WAIT_MS / 1000} s` : 'killed' };
  }
}

/** Samples the process's RSS every MEMORY_EVERY_MS, and kills it past `ceiling` bytes; `stop` says the most seen and whether it was killed. */
function watchMemory(pid: number, ceiling: number, kill: () => void): { stop(): { peak: number; killed: boolean } } {
  let peak = 0;
  let killed = false;
  const timer = setInterval(() => {
    const rss = processMemory(pid, 'VmRSS');
    if (!(rss > 0)) return;
    peak = Math.max(peak, rss);
    if (rss > ceiling && !killed) {
      killed = true;
      kill();
    }
  }, MEMORY_EVERY_MS);
  return {
    stop() {
      clearInterval(timer);
      if (!killed) peak = Math.max(peak, processMemory(pid, 'VmHWM'));
      return { peak, killed };
    },
  };
}

/** Asks /health one request after another until `done` settles; the latency of each. */
async function pollHealth(url: string, done: Promise<unknown>): Promise<number[]> {
  let finished = false;
  void done.finally(() => (finished = true));
  const latencies: number[] = [];
  while (!finished) {
    const started = performance.now();
    const answered = await fetch(`${url}/health`, { signal: AbortSignal.timeout(HEALTH_TIMEOUT_MS) }).then(
      (response) => response.arrayBuffer().then(() => true),
      () => false,
    );
    // A server that is gone answers nothing more: its last wait is what /health saw.
    latencies.push(performance.now() - started);
    if (!answered) break;
    await new Promise((resolve) => setTimeout(resolve, HEALTH_EVERY_MS));
  }
  return latencies;
}

async function measure(label: string, cli: string, db: string, kind: string, queries: number, ceiling: number): Promise<Run> {
  const served = await serve({ db, cli, env: { CANNERY_LOG_LEVEL: 'warn', ...cannerySettings() } });
  const kill = () => served.child.kill('SIGKILL');
  try {
    // One small query first: the process's own first-request allocations are not the queries'.
    await fetch(`${served.url}/api/endpoints/query/logs.all?project=${DEMO_PROJECT}`, { headers: { 'x-api-key': API_KEY } }).then((response) => response.arrayBuffer());
    const pid = served.child.pid!;
    const idleRss = processMemory(pid, 'VmRSS');
    const memory = watchMemory(pid, ceiling, kill);
    const all = Promise.all(Array.from({ length: queries }, () => oversizedQuery(served.url, KINDS[kind]!)));
    const [results, latencies] = await Promise.all([all, pollHealth(served.url, all)]);
    const { peak, killed } = memory.stop();
    return {
      label,
      kind,
      idleRss,
      peakRss: peak,
      killed,
      health: { p50: percentile(latencies, 50), p99: percentile(latencies, 99), max: Math.max(...latencies), count: latencies.length },
      queries: results,
    };
  } finally {
    // A server still busy in DuckDB may not heed SIGTERM (issue 38): it gets a few seconds.
    const stopping = served.stop();
    const late = setTimeout(kill, 5_000);
    await stopping;
    clearTimeout(late);
  }
}

export async function measureHostile(events = 20_000, queries = 3, baseline?: string, kinds = Object.keys(KINDS), ceiling = 4 * 2 ** 30): Promise<Run[]> {
  const unknown = kinds.filter((kind) => !(kind in KINDS));
  if (unknown.length > 0) throw new Error(`unknown kinds: ${unknown.join(', ')}; the kinds are: ${Object.keys(KINDS).join(', ')}`);
  const dir = await mkdtemp(join(tmpdir(), 'cannery-bench-hostile-'));
  try {
    const db = join(dir, 'bench.duckdb');
    seed(db, events);
    const runs: Run[] = [];
    for (const kind of kinds) {
      if (baseline) runs.push(await measure('baseline', baseline, db, kind, queries, ceiling));
      runs.push(await measure('this build', CLI, db, kind, queries, ceiling));
    }
    return runs;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Equal answers once, with their count and range of times: `3x 400 invalid_parameter in 12 to 30 ms`. */
function summarise(queries: Run['queries']): string {
  const groups = new Map<string, number[]>();
  for (const query of queries) {
    const key = query.status === 0 ? query.code : `${query.status} ${query.code}`;
    groups.set(key, [...(groups.get(key) ?? []), query.ms]);
  }
  return [...groups]
    .map(([key, times]) => {
      const [least, most] = [Math.min(...times), Math.max(...times)];
      return `${times.length > 1 ? `${times.length}x ` : ''}${key} in ${least === most ? ms(least) : `${ms(least)} to ${ms(most)}`}`;
    })
    .join(', ');
}

export function hostileTable(runs: readonly Run[]): string {
  return markdownTable(
    ['', 'build', 'peak RSS', 'RSS growth', '/health p50', '/health p99', '/health max', 'queries'],
    runs.map((run) => [
      run.kind,
      run.label,
      run.killed ? `killed at ${mib(run.peakRss)}` : mib(run.peakRss),
      mib(run.peakRss - run.idleRss),
      ms(run.health.p50),
      ms(run.health.p99),
      ms(run.health.max),
      summarise(run.queries),
    ]),
  );
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      events: { type: 'string', default: '20000' },
      queries: { type: 'string', default: '3' },
      baseline: { type: 'string' },
      kinds: { type: 'string' },
      'ceiling-mib': { type: 'string', default: '4096' },
    },
  });
  const before = describeMachine();
  console.error(`bench:hostile: seeding ${values.events} edge events, then ${values.queries} oversized queries at once of each kind`);
  const kinds = values.kinds?.split(',').map((kind) => kind.trim());
  const runs = await measureHostile(Number(values.events), Number(values.queries), values.baseline, kinds, Number(values['ceiling-mib']) * 2 ** 20);
  const after = describeMachine();
  console.log(
    `${values.queries} oversized sandbox queries at once on logs.all (${values.events} edge events seeded), each kind on a fresh server, killed past ${values['ceiling-mib']} MiB of RSS${values.baseline ? `; baseline: ${values.baseline}` : ''}:`,
  );
  console.log(`${before.cpu}, ${before.cores} cores, ${before.memory}, node ${before.node}, ${before.date}; load average ${before.load} before, ${after.load} after\n`);
  console.log(hostileTable(runs));
}

if (isMain(import.meta.url)) {
  main().catch((error) => {
    console.error(error);
    process.exit(1);
  });
}
