/**
 * What redaction costs a sandbox query (issue 15): the same `sql` on logs.all over HTTP with
 * `SVC-ENDPOINT-REDACT-PII: true` and without it, in the same run, taking turns. logs.all has
 * `cache: false`, so every request runs its query. Before scan-side redaction (every string a
 * sandbox query reads redacted where it is read) the header costs only the redaction of the
 * answer; after it, this measures what redacting at the scan adds.
 *
 * The built CLI seeds a DuckDB file with the demo data (40,000 edge events, the size
 * bench/redaction.ts uses) and serves it; like the other benchmarks it runs the built code (dist/),
 * compiled by tsconfig.bench.json.
 *
 *   npm run bench:redaction-scan [-- --events 40000 --rounds 30]
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { API_KEY, DEMO_PROJECT, describeMachine, isMain, markdownTable, median, ms, percentile, seed, serve } from './support.js';

const HEADER = 'SVC-ENDPOINT-REDACT-PII';
const UNNEST_HEADERS = 'cross join unnest(metadata) as m cross join unnest(m.request) as r cross join unnest(r.headers) as h';

/** The sandbox queries, each a shape a log client sends; (a) to (d) of the measurement plan. */
export const QUERIES: { name: string; sql: string }[] = [
  {
    name: '(a) newest 100 edge rows with event_message',
    sql: 'select id, timestamp, event_message from edge_logs order by timestamp desc limit 100',
  },
  {
    name: '(b) count(*) where event_message LIKE',
    sql: "select count(*) as n from edge_logs where event_message like '%/rest/v1/%'",
  },
  {
    name: '(c) r.path, h.x_real_ip of the newest 100 (UNNEST)',
    sql: `select timestamp, r.path, h.x_real_ip from edge_logs ${UNNEST_HEADERS} order by timestamp desc limit 100`,
  },
  {
    name: '(d) all rows grouped by r.path',
    sql: 'select r.path, count(*) as n from edge_logs cross join unnest(metadata) as m cross join unnest(m.request) as r group by 1 order by n desc, 1 limit 100',
  },
];

export interface ScanCost {
  name: string;
  rows: number;
  /** Whether the answers with the header held REDACTED (the query read an address). */
  redacted: boolean;
  off: { p50: number; p95: number };
  on: { p50: number; p95: number };
}

/** One request; its time in ms, the rows and whether REDACTED was in the answer. */
async function timed(url: string, sql: string, redact: boolean): Promise<{ ms: number; rows: number; redacted: boolean }> {
  const query = new URLSearchParams({ project: DEMO_PROJECT, sql });
  const headers: Record<string, string> = { 'x-api-key': API_KEY, ...(redact ? { [HEADER]: 'true' } : {}) };
  const started = performance.now();
  const response = await fetch(`${url}/api/endpoints/query/logs.all?${query}`, { headers });
  const text = await response.text();
  const elapsed = performance.now() - started;
  if (response.status !== 200) throw new Error(`logs.all answered ${response.status} to ${sql}: ${text.slice(0, 500)}`);
  return { ms: elapsed, rows: (JSON.parse(text) as { result: unknown[] }).result.length, redacted: text.includes('REDACTED') };
}

/**
 * Each query `rounds` times with the header and `rounds` times without, after two warm-up
 * requests of each; off and on take turns (which goes first alternates), so background load
 * falls on both alike.
 */
export async function measureScanRedaction(edgeEvents: number, rounds: number): Promise<ScanCost[]> {
  const dir = await mkdtemp(join(tmpdir(), 'cannery-bench-'));
  const db = join(dir, 'bench.duckdb');
  let server: Awaited<ReturnType<typeof serve>> | undefined;
  try {
    seed(db, edgeEvents);
    server = await serve({ db });
    const results: ScanCost[] = [];
    for (const { name, sql } of QUERIES) {
      for (let i = 0; i < 2; i += 1) {
        await timed(server.url, sql, false);
        await timed(server.url, sql, true);
      }
      const times = { off: [] as number[], on: [] as number[] };
      let rows = 0;
      let redacted = false;
      for (let round = 0; round < rounds; round += 1) {
        const order = round % 2 === 0 ? [false, true] : [true, false];
        for (const redact of order) {
          const result = await timed(server.url, sql, redact);
          (redact ? times.on : times.off).push(result.ms);
          rows = result.rows;
          if (redact) redacted ||= result.redacted;
          else if (result.redacted) throw new Error(`REDACTED in an answer without the header: ${sql}`);
        }
      }
      const summary = (values: number[]) => ({ p50: median(values), p95: percentile(values, 95) });
      results.push({ name, rows, redacted, off: summary(times.off), on: summary(times.on) });
    }
    return results;
  } finally {
    await server?.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { events: { type: 'string', default: '40000' }, rounds: { type: 'string', default: '30' } } });
  const edgeEvents = Number(values.events);
  const rounds = Number(values.rounds);
  const machine = describeMachine();
  const costs = await measureScanRedaction(edgeEvents, rounds);
  const ratio = (on: number, off: number) => `${(on / off).toFixed(2)}x`;
  console.log(`cannery bench: redaction of sandbox queries, header on against off (node ${process.version})`);
  console.log(`  ${edgeEvents} seeded edge events; ${rounds} requests per query and setting, uncached (logs.all has cache: false)`);
  console.log(`  ${machine.cpu}, ${machine.cores} cores, load ${machine.load}, ${machine.date}`);
  console.log('');
  console.log(
    markdownTable(
      ['query', 'rows', 'REDACTED in answer', 'off p50', 'on p50', 'on/off p50', 'off p95', 'on p95', 'on/off p95'],
      costs.map((cost) => [
        cost.name,
        String(cost.rows),
        cost.redacted ? 'yes' : 'no',
        ms(cost.off.p50),
        ms(cost.on.p50),
        ratio(cost.on.p50, cost.off.p50),
        ms(cost.off.p95),
        ms(cost.on.p95),
        ratio(cost.on.p95, cost.off.p95),
      ]),
    ),
  );
}

if (isMain(import.meta.url)) await main();
