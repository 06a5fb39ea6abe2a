/**
 * `npm run bench:traffic`: a minute of mixed traffic at 100 connections against the built `serve`
 * on loopback: cache hits, cache misses, uncached queries, sandbox queries and bad requests.
 * Passes when there is no unexpected answer (a non-2xx where a 2xx was due, any other status
 * than the one a bad request must get, any 5xx, any connection error or timeout) and the
 * server's RSS is bounded: it levels off (the last third of the run no more than 10% above the
 * middle third) and stays below DuckDB's memory limit plus 1 GiB for node and the cache.
 * Exits 1 otherwise. Stops by itself: autocannon runs for `--seconds`, and a guard ends the
 * run if anything outlives that by two minutes.
 *
 *   npm run bench:traffic [-- --seconds 60 --connections 100 --events 250000]
 */
import autocannon from 'autocannon';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { API_KEY, DEMO_PROJECT, markdownTable, mib, processMemory, seed, serve } from './support.js';

const QUERY = '/api/endpoints/query/';
/** DuckDB's memory_limit for the run (the service's default), and what node and the cache may add. */
const DUCKDB_MEMORY_LIMIT = '2GB';
const RSS_CEILING = 2 * 2 ** 30 + 2 ** 30;
/** How long the run may outlive its planned duration before the guard ends it. */
const GUARD_SECONDS = 120;
/** How much the last third's mean RSS may exceed the middle third's before it counts as growing. */
const RSS_GROWTH_LIMIT = 1.1;

interface Kind {
  label: string;
  /** The status every answer must have. */
  expected: number;
  method?: 'GET' | 'POST';
  /** The path (and query string); `n` numbers the request, for keys that must differ. */
  path(n: number): string;
  body?: string;
  /** Headers beyond the API key (or instead of it, with `noKey`). */
  headers?: Record<string, string>;
  noKey?: boolean;
}

const hour = () => new Date(Date.now() - 3_600_000).toISOString();
const sandbox = (sql: string) => `${QUERY}logs.all?${new URLSearchParams({ project: DEMO_PROJECT, sql })}`;

/** One connection's round: each kind in turn. Hits come up most, as they do in production. */
const KINDS: Kind[] = [
  { label: 'hit: usage hourly', expected: 200, path: () => `${QUERY}usage.api-counts?interval=hourly&project=${DEMO_PROJECT}` },
  { label: 'hit: usage minutely', expected: 200, path: () => `${QUERY}usage.api-counts?interval=minutely&project=${DEMO_PROJECT}` },
  { label: 'miss: usage hourly, a new key', expected: 200, path: (n) => `${QUERY}usage.api-counts?interval=hourly&project=${encodeURIComponent(`${DEMO_PROJECT}|nomatch${n}`)}` },
  { label: 'hit: usage daily (by UUID)', expected: 200, path: () => `${QUERY}90ea8432-727f-4399-8617-f3fe240ba64a?interval=daily&project=${DEMO_PROJECT}` },
  { label: 'uncached: logs.all, last hour', expected: 200, path: () => `${QUERY}logs.all?project=${DEMO_PROJECT}&iso_timestamp_start=${encodeURIComponent(hour())}` },
  {
    label: 'sandbox: postgres errors (GET)',
    expected: 200,
    path: () => sandbox("select id, timestamp, event_message from postgres_logs where regexp_contains(event_message, 'ERROR') limit 20"),
  },
  {
    label: 'sandbox: auth by status (POST)',
    expected: 200,
    method: 'POST',
    path: () => `${QUERY}logs.all`,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ project: DEMO_PROJECT, sql: 'select m.status, count(*) as n from auth_logs cross join unnest(metadata) as m group by 1 order by n desc' }),
  },
  { label: 'hit: usage hourly, redacted', expected: 200, path: () => `${QUERY}usage.api-counts?interval=hourly&project=${DEMO_PROJECT}`, headers: { 'svc-endpoint-redact-pii': 'true' } },
  { label: 'bad: no API key', expected: 401, path: () => `${QUERY}logs.all?project=${DEMO_PROJECT}`, noKey: true },
  { label: 'bad: unknown parameter', expected: 400, path: () => `${QUERY}logs.all?projct=${DEMO_PROJECT}` },
  { label: 'bad: invalid interval', expected: 400, path: () => `${QUERY}usage.api-counts?interval=weekly&project=${DEMO_PROJECT}` },
  { label: 'bad: sandbox escape', expected: 400, path: () => sandbox("select * from read_csv('/etc/passwd')") },
  { label: 'bad: unknown endpoint', expected: 404, path: () => `${QUERY}no.such.endpoint` },
  { label: 'bad: malformed JSON body', expected: 400, method: 'POST', path: () => `${QUERY}logs.all`, headers: { 'content-type': 'application/json' }, body: '{"project":' },
];

interface Tally {
  statuses: Map<number, number>;
  unexpected: number;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      seconds: { type: 'string', default: '60' },
      connections: { type: 'string', default: '100' },
      events: { type: 'string', default: '250000' },
    },
  });
  const seconds = Number(values.seconds);
  const connections = Number(values.connections);
  const dir = await mkdtemp(join(tmpdir(), 'cannery-traffic-'));
  let guard: NodeJS.Timeout | undefined;
  try {
    const db = join(dir, 'load.duckdb');
    console.error(`traffic: seeding ${Number(values.events).toLocaleString('en-US')} edge events`);
    seed(db, Number(values.events));
    // Every connection may wait on a backend query at once: the queue has room for all of them,
    // so a 429 (shedding load) is as unexpected here as any other failure.
    const served = await serve({ db, env: { CANNERY_DUCKDB_MEMORY_LIMIT: DUCKDB_MEMORY_LIMIT, CANNERY_MAX_QUEUED_QUERIES: String(connections) } });
    try {
      // Fill the cache, so the hits are hits from the first request on.
      for (const kind of KINDS.filter((candidate) => candidate.label.startsWith('hit'))) await call(served.url, kind, 0);
      const pid = served.child.pid!;
      const rss: number[] = [processMemory(pid, 'VmRSS')];
      const sampler = setInterval(() => rss.push(processMemory(pid, 'VmRSS')), 1000);
      const tallies = new Map(KINDS.map((kind) => [kind.label, { statuses: new Map<number, number>(), unexpected: 0 } as Tally]));
      let n = 0;
      console.error(`traffic: ${seconds} s at ${connections} connections`);
      guard = setTimeout(() => {
        console.error(`traffic: still running ${GUARD_SECONDS} s past the planned ${seconds} s; stopping`);
        served.child.kill('SIGKILL');
        process.exit(1);
      }, (seconds + GUARD_SECONDS) * 1000);
      const result = await autocannon({
        url: served.url,
        connections,
        duration: seconds,
        timeout: 30,
        requests: KINDS.map((kind) => ({
          method: kind.method ?? 'GET',
          setupRequest: (request: autocannon.Request) => ({
            ...request,
            path: kind.path((n += 1)),
            headers: { ...(kind.noKey ? {} : { 'x-api-key': API_KEY }), ...kind.headers },
            ...(kind.body === undefined ? {} : { body: kind.body }),
          }),
          onResponse: (status: number) => {
            const tally = tallies.get(kind.label)!;
            tally.statuses.set(status, (tally.statuses.get(status) ?? 0) + 1);
            if (status !== kind.expected) tally.unexpected += 1;
          },
        })),
      });
      clearInterval(sampler);
      rss.push(processMemory(pid, 'VmRSS'));
      report(result, tallies, rss, served.child.pid!, seconds, connections);
    } finally {
      await served.stop();
    }
  } finally {
    clearTimeout(guard);
    await rm(dir, { recursive: true, force: true });
  }
}

async function call(url: string, kind: Kind, n: number): Promise<void> {
  const response = await fetch(url + kind.path(n), {
    method: kind.method ?? 'GET',
    headers: { ...(kind.noKey ? {} : { 'x-api-key': API_KEY }), ...kind.headers },
    ...(kind.body === undefined ? {} : { body: kind.body }),
  });
  await response.arrayBuffer();
  if (response.status !== kind.expected) throw new Error(`${kind.label}: ${response.status} before the run`);
}

function mean(values: number[]): number {
  return values.reduce((sum, value) => sum + value, 0) / values.length;
}

function report(result: autocannon.Result, tallies: Map<string, Tally>, rss: number[], pid: number, seconds: number, connections: number): void {
  const unexpected = [...tallies.values()].reduce((sum, tally) => sum + tally.unexpected, 0);
  const fiveHundreds = [...tallies.values()].reduce((sum, tally) => sum + [...tally.statuses].filter(([status]) => status >= 500).reduce((s, [, count]) => s + count, 0), 0);
  const third = Math.floor(rss.length / 3);
  const middle = mean(rss.slice(third, 2 * third));
  const last = mean(rss.slice(2 * third));
  const peak = Math.max(processMemory(pid, 'VmHWM'), ...rss);
  const levels = last <= middle * RSS_GROWTH_LIMIT;
  const bounded = levels && peak <= RSS_CEILING;
  const passed = unexpected === 0 && result.errors === 0 && result.timeouts === 0 && bounded;

  console.log(`# cannery under load: ${seconds} s, ${connections} connections, loopback\n`);
  console.log(
    markdownTable(
      ['request', 'expected', 'answers (status: count)', 'unexpected'],
      KINDS.map((kind) => {
        const tally = tallies.get(kind.label)!;
        const statuses = [...tally.statuses].sort(([a], [b]) => a - b).map(([status, count]) => `${status}: ${count}`).join(', ');
        return [kind.label, String(kind.expected), statuses || 'none', String(tally.unexpected)];
      }),
    ),
  );
  console.log('');
  console.log(
    markdownTable(
      ['figure', 'value'],
      [
        ['requests', `${result.requests.total} (${result.requests.average.toFixed(0)} req/s)`],
        ['latency p50 / p99 / max', `${result.latency.p50} / ${result.latency.p99} / ${result.latency.max} ms`],
        ['unexpected answers', String(unexpected)],
        ['5xx', String(fiveHundreds)],
        ['connection errors / timeouts', `${result.errors} / ${result.timeouts}`],
        ['RSS at start / peak / end', `${mib(rss[0]!)} / ${mib(peak)} / ${mib(rss.at(-1)!)}`],
        ['RSS every 5 s', rss.filter((_, index) => index % 5 === 0).map((bytes) => (bytes / 2 ** 20).toFixed(0)).join(' ') + ' MiB'],
        ['RSS mean, middle third -> last third', `${mib(middle)} -> ${mib(last)} (${levels ? 'levels off' : 'STILL GROWING'}; ceiling ${mib(RSS_CEILING)})`],
        ['verdict', passed ? 'PASS' : 'FAIL'],
      ],
    ),
  );
  if (!passed) process.exitCode = 1;
}

await main();
