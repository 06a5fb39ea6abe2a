/**
 * Whether a liveness probe gets through while the service is as busy as its limiter lets it be:
 * `/health` asked on a NEW connection each time (as a Kubernetes probe does, with a 1 s timeout)
 * every HEALTH_EVERY_MS while CONCURRENCY callers send distinct sandbox queries back to back. It
 * reports the probe's p50, p99 and max, how many took over a second, the queries' statuses
 * (only 200 and 429 are due), the server's CPU time and peak RSS.
 *
 *   npm run bench:health [-- --seconds 20 --concurrency 300 --events 50000 --db FILE --baseline DIST/cli.js --rounds 1]
 *
 * The probes (bench/health-probes.ts) run on a thread of their own, so the callers' work in this
 * process does not delay them. The server gets this process's CANNERY_* settings (say
 * CANNERY_DUCKDB_THREADS). `--baseline` runs another build's CLI (say main's) on the same data in
 * the same run, in turns with this one, so the two are compared on the same loaded machine. The
 * target: p99 < 1 s.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startProbes } from './health-probes.js';
import { API_KEY, CLI, cannerySettings, cpuSeconds, DEMO_PROJECT, describeMachine, isMain, markdownTable, mib, ms, percentile, processMemory, seed, serve } from './support.js';

const HEALTH_EVERY_MS = 100;
/** A probe that takes longer than this counts as failed (a Kubernetes probe's default timeout). */
const PROBE_TIMEOUT_MS = 1_000;

/** Sandbox queries of the kinds a log explorer sends; `n` makes each one's text distinct. */
const QUERIES: ((n: number) => string)[] = [
  (n) => `select id, timestamp, event_message from edge_logs where event_message like '%${n % 997}%' limit 20`,
  (n) => `select r.path, count(*) as hits from edge_logs cross join unnest(metadata) as m cross join unnest(m.request) as r where r.path not like '/x${n}%' group by r.path order by hits desc limit 10`,
  (n) => `select id, timestamp from postgres_logs where regexp_contains(event_message, 'ERROR|${n}') limit 50`,
  (n) => `select m.status, count(*) as n from auth_logs cross join unnest(metadata) as m where m.status <> ${n} group by 1 order by n desc`,
];

interface Run {
  label: string;
  probes: number[];
  /** Probes that got no answer within PROBE_WAIT_MS (a refused or dropped connection too). */
  lost: number;
  statuses: Map<string, number>;
  queries: number;
  cpuSeconds: number;
  peakRss: number;
}

async function caller(url: string, first: number, step: number, until: number, statuses: Map<string, number>): Promise<number> {
  let sent = 0;
  for (let n = first; performance.now() < until; n += step) {
    const sql = QUERIES[n % QUERIES.length]!(n);
    const status = await fetch(`${url}/api/endpoints/query/logs.all`, {
      method: 'POST',
      headers: { 'x-api-key': API_KEY, 'content-type': 'application/json' },
      body: JSON.stringify({ project: DEMO_PROJECT, sql }),
    }).then(
      async (response) => {
        await response.arrayBuffer();
        return String(response.status);
      },
      (error: Error) => `error (${error.message})`,
    );
    statuses.set(status, (statuses.get(status) ?? 0) + 1);
    sent += 1;
  }
  return sent;
}

async function measure(label: string, cli: string, db: string, seconds: number, concurrency: number): Promise<Run> {
  const served = await serve({ db, cli, ownSession: true, env: { CANNERY_LOG_LEVEL: 'warn', ...cannerySettings() } });
  try {
    const pid = served.child.pid!;
    const cpuBefore = cpuSeconds(pid);
    const statuses = new Map<string, number>();
    const until = performance.now() + seconds * 1000;
    const callers = Promise.all(Array.from({ length: concurrency }, (_, index) => caller(served.url, index, concurrency, until, statuses)));
    // The callers have a moment to fill the queue first.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const prober = startProbes(served.url, HEALTH_EVERY_MS);
    const sent = await callers;
    const all = await prober.stop();
    const probes = all.flatMap((probe) => (probe.ms === undefined ? [] : [probe.ms]));
    const lost = all.length - probes.length;
    return {
      label,
      probes,
      lost,
      statuses,
      queries: sent.reduce((sum, count) => sum + count, 0),
      cpuSeconds: cpuSeconds(pid) - cpuBefore,
      peakRss: processMemory(pid, 'VmHWM'),
    };
  } finally {
    await served.stop();
  }
}

function table(runs: readonly Run[], seconds: number): string {
  return markdownTable(
    ['', '/health p50', 'p99', 'max', `over ${PROBE_TIMEOUT_MS} ms`, 'queries/s', 'statuses', 'server CPU', 'peak RSS'],
    runs.map((run) => [
      run.label,
      ms(percentile(run.probes, 50)),
      ms(percentile(run.probes, 99)),
      ms(Math.max(...run.probes)),
      `${run.probes.filter((latency) => latency > PROBE_TIMEOUT_MS).length + run.lost} of ${run.probes.length + run.lost}`,
      (run.queries / seconds).toFixed(1),
      [...run.statuses].sort().map(([status, count]) => `${status}: ${count}`).join(', '),
      `${run.cpuSeconds.toFixed(1)} s`,
      mib(run.peakRss),
    ]),
  );
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      seconds: { type: 'string', default: '20' },
      concurrency: { type: 'string', default: '300' },
      events: { type: 'string', default: '50000' },
      baseline: { type: 'string' },
      rounds: { type: 'string', default: '1' },
      db: { type: 'string' },
    },
  });
  const seconds = Number(values.seconds);
  const concurrency = Number(values.concurrency);
  const dir = await mkdtemp(join(tmpdir(), 'cannery-bench-health-'));
  try {
    const db = values.db ?? join(dir, 'bench.duckdb');
    if (!values.db) {
      console.error(`bench:health: seeding ${values.events} edge events`);
      seed(db, Number(values.events));
    }
    const before = describeMachine();
    const runs: Run[] = [];
    for (let round = 0; round < Number(values.rounds); round++) {
      if (values.baseline) runs.push(await measure(`baseline (${values.baseline})`, values.baseline, db, seconds, concurrency));
      runs.push(await measure('this build', CLI, db, seconds, concurrency));
    }
    const after = describeMachine();
    console.log(`/health on a new connection every ${HEALTH_EVERY_MS} ms while ${concurrency} callers send distinct sandbox queries to logs.all for ${seconds} s (${values.db ? values.db : `${values.events} edge events`}):`);
    console.log(`${before.cpu}, ${before.cores} cores, node ${before.node}, ${before.date}; load average ${before.load} before, ${after.load} after\n`);
    console.log(table(runs, seconds));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

if (isMain(import.meta.url)) {
  main().catch((error) => {
    console.error(error);
    process.exit(1);
  });
}
