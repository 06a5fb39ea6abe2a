/**
 * cannery against its peers, in the same run, on the same events, with answers checked equal:
 *
 * - cannery serve: cannery as users get it, the built CLI's `serve` on the seeded file, asked over
 *   HTTP on a real socket with the result cache off (CANNERY_CACHE_MAX_BYTES=0), so every request
 *   runs the query; the clock stands at the data's time (CANNERY_NOW). Its other settings are this
 *   process's CANNERY_* ones (say CANNERY_DUCKDB_THREADS). Throughout its rounds `/health` is
 *   probed on a new connection every PROBE_EVERY_MS (bench/health-probes.ts); a probe sent while
 *   one of its requests is in flight counts for that question;
 * - cannery in-process: the shipped endpoints' SQL as the DuckDB backend compiles it, with the
 *   values the service binds, run on the same file by DuckDB in this process with the server's
 *   thread count: what the engine costs, without the service around it;
 * - cannery after ten imports (in-process): the same events loaded by ten `cannery import` runs of
 *   a tenth of them each, in time order, as continuous ingest writes them (no compaction);
 * - ClickHouse through chDB (installed on demand, bench/on-demand.ts): a flat MergeTree ordered by
 *   timestamp, with url and path as columns and metadata as JSON text, asked once its merges settle;
 * - Postgres, when Debian's `postgresql` is installed: a private cluster in a temporary folder,
 *   one table with metadata as JSONB and a B-tree index on timestamp, as self-hosters run it.
 *
 * The questions are the endpoints': usage.api-counts per interval with a literal project ref (what
 * callers send) and with `ref|nomatchN` (the alternation the service benchmark uses to miss the
 * cache, the worse case), and logs.all's newest 100 without bounds and over the last hour. Every
 * engine is asked in turn, each round in a different order; each figure is a median. A time runs
 * to the answer's last byte; decoding the bytes into objects is the client's, after the clock.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DuckDBInstance, DuckDBValue } from '#duckdb-api';
import { freePort } from './free-port.js';
import { epochMs, startProbes, type Probe } from './health-probes.js';
import { requireOnDemand } from './on-demand.js';
import { API_KEY, cannerySettings, CLI, DEMO_PROJECT, DIST, median, parseSize, percentile, serve, SHIPPED_ENDPOINTS } from './support.js';

export type Interval = 'minutely' | 'hourly' | 'daily';

export interface PeerQuestion {
  label: string;
  endpoint: 'usage.api-counts' | 'logs.all';
  interval?: Interval;
  /** usage.api-counts: the project ref as callers send it, or `ref|nomatchN`. */
  pattern?: 'literal' | 'alternation';
  /** logs.all: only the last hour. */
  lastHour?: boolean;
}

export const PEER_QUESTIONS: PeerQuestion[] = [
  ...(['minutely', 'hourly', 'daily'] as const).map((interval) => ({ label: `usage.api-counts ${interval}`, endpoint: 'usage.api-counts' as const, interval, pattern: 'literal' as const })),
  { label: 'logs.all, no bounds', endpoint: 'logs.all', lastHour: false },
  { label: 'logs.all, last hour', endpoint: 'logs.all', lastHour: true },
  ...(['minutely', 'hourly', 'daily'] as const).map((interval) => ({ label: `usage.api-counts ${interval}, ref|nomatchN`, endpoint: 'usage.api-counts' as const, interval, pattern: 'alternation' as const })),
];

/** What every engine answers, in one form: buckets with four counts, or the newest rows. */
type Answer = { buckets: [number, number, number, number, number][] } | { newest: { id: string; micros: number }[] };

/** An answer as received: decoded once the clock has stopped (a function), or already decoded. */
type Received = Answer | (() => Answer);

/** A probe of /health sent while a request for `question` was in flight. */
interface QuestionProbe {
  question: string;
  ms: number | undefined;
}

interface Engine {
  name: string;
  ask(question: PeerQuestion, n: number): Promise<Received>;
  /** A served engine's /health probes, by the question in flight when each was sent; the probing stops. */
  probes?(): Promise<QuestionProbe[]>;
  close(): Promise<void>;
}

const MICROS = { minutely: 60_000_000, hourly: 3_600_000_000, daily: 86_400_000_000 } as const;
const WINDOW_MICROS = { minutely: 3_600_000_000, hourly: 3_600_000_000, daily: 7 * 86_400_000_000 } as const;
const HOUR_MS = 3_600_000;

function patternOf(question: PeerQuestion, n: number): string {
  return question.pattern === 'alternation' ? `${DEMO_PROJECT}|nomatch${n}` : DEMO_PROJECT;
}

/** The request parameters the question sends, as a caller would. */
function requestParams(question: PeerQuestion, n: number, now: Date): [string, string][] {
  return question.endpoint === 'usage.api-counts'
    ? [['interval', question.interval!], ['project', patternOf(question, n)]]
    : [['project', DEMO_PROJECT], ...(question.lastHour ? [['iso_timestamp_start', new Date(now.getTime() - HOUR_MS).toISOString()] as [string, string]] : [])];
}

/** An endpoint's rows in cannery's wire form (as served, or as the backend converts them), as an Answer. */
function answerOf(question: PeerQuestion, rows: readonly Record<string, unknown>[]): Answer {
  if (question.endpoint === 'logs.all') return { newest: rows.map((row) => ({ id: String(row.id), micros: Number(row.timestamp) })) };
  return {
    buckets: rows.map((row) => [
      Date.parse(`${String(row.timestamp)}Z`) * 1000,
      Number(row.total_rest_requests),
      Number(row.total_storage_requests),
      Number(row.total_auth_requests),
      Number(row.total_realtime_requests),
    ]),
  };
}

// ---------------------------------------------------------------------------------------------
// cannery

/** The built modules used here, and the parts of their shapes this file reads. */
interface CanneryModules {
  openDuckDb(options: { path: string; memoryLimit?: string; readOnly?: boolean; threads?: number }): Promise<DuckDBInstance>;
  readTableColumns(connection: unknown, sources: readonly string[]): Promise<unknown>;
  duckDbDialect(sources: readonly string[], options: { sourceColumns: unknown; strictNames: boolean }): unknown;
  loadRegistry(dir: string, context: { dialect: unknown; sources: readonly string[] }): Promise<{ find(name: string): CompiledEndpoint | undefined }>;
  readRequestParams(definition: CompiledEndpoint['definition'], entries: Iterable<[string, string]>): { values: Record<string, DuckDBValue> };
  withDerivedValues(derived: Record<string, unknown>, values: Record<string, DuckDBValue>): Record<string, DuckDBValue>;
  generate(query: unknown, dialect: unknown): { sql: string; parameters: string[] };
  parseQuery(sql: string): unknown;
  toWireValue: unknown;
  readSettings(env: NodeJS.ProcessEnv): { duckdbThreads: number };
  sourceNames(): string[];
  EXECUTION_TIME_PARAM: string;
}

interface CompiledEndpoint {
  definition: { name: string; max_rows: number; params: Record<string, unknown> };
  sql: string;
  sqlParameters: string[];
  sqlDerived: Record<string, unknown>;
}

export async function canneryModules(): Promise<CanneryModules> {
  const load = (path: string) => import(new URL(path, DIST).href);
  const parts = await Promise.all(
    ['backends/duckdb/backend.js', 'backends/duckdb/table-columns.js', 'sql/dialects/duckdb/dialect.js', 'engine/serve/registry.js', 'engine/serve/params.js', 'sql/analyse/derived-parameters.js', 'sql/generator/generate.js', 'sql/parse/to-tree.js', 'backends/duckdb/values.js', 'config/settings.js', 'config/sources.js', 'sql/language.js'].map(load),
  );
  return Object.assign({}, ...parts) as CanneryModules;
}

/** The SQL of a BigQuery query for the tables of an open cannery database, as the backend would write it. */
async function compileFor(modules: CanneryModules, instance: DuckDBInstance, sql: string): Promise<string> {
  const connection = await instance.connect();
  try {
    const dialect = modules.duckDbDialect(modules.sourceNames(), { sourceColumns: await modules.readTableColumns(connection, modules.sourceNames()), strictNames: true });
    return modules.generate(modules.parseQuery(sql), dialect).sql;
  } finally {
    connection.closeSync();
  }
}

export async function openCannery(name: string, db: string, now: Date): Promise<Engine> {
  const modules = await canneryModules();
  // The served process's threads (CANNERY_DUCKDB_THREADS or its default), so the two differ by the service alone.
  const threads = modules.readSettings(process.env).duckdbThreads;
  const instance = await modules.openDuckDb({ path: db, memoryLimit: '1GB', readOnly: true, threads });
  const connection = await instance.connect();
  const dialect = modules.duckDbDialect(modules.sourceNames(), { sourceColumns: await modules.readTableColumns(connection, modules.sourceNames()), strictNames: true });
  connection.closeSync();
  const registry = await modules.loadRegistry(SHIPPED_ENDPOINTS, { dialect, sources: modules.sourceNames() });
  return {
    name,
    async ask(question, n) {
      const endpoint = registry.find(question.endpoint)!;
      const values = modules.withDerivedValues(endpoint.sqlDerived, modules.readRequestParams(endpoint.definition, requestParams(question, n, now)).values);
      const bound: Record<string, DuckDBValue> = {};
      for (const parameter of endpoint.sqlParameters) bound[parameter] = parameter === modules.EXECUTION_TIME_PARAM ? now.toISOString() : (values[parameter] ?? null);
      const run = await instance.connect();
      try {
        const reader = await run.streamAndReadUntil(endpoint.sql, endpoint.definition.max_rows, bound);
        // Converting to wire values is the backend's work, so it is timed.
        return answerOf(question, reader.convertRowObjects(modules.toWireValue as never) as Record<string, unknown>[]);
      } finally {
        run.closeSync();
      }
    },
    async close() {
      instance.closeSync();
    },
  };
}

/** How often /health is probed while cannery serve is asked: several probes land in a 20 ms request. */
const PROBE_EVERY_MS = 10;

/** The built `cannery serve` on `db`, asked over HTTP with its cache off, its /health probed throughout. */
export async function openServedCannery(name: string, db: string, now: Date): Promise<Engine> {
  const served = await serve({
    db,
    // A session of its own: scheduled as a server on its own machine, apart from this process's chDB.
    ownSession: true,
    env: { CANNERY_LOG_LEVEL: 'warn', ...cannerySettings(), CANNERY_CACHE_MAX_BYTES: '0', CANNERY_NOW: now.toISOString() },
  });
  const prober = startProbes(served.url, PROBE_EVERY_MS);
  let probed: Promise<Probe[]> | undefined;
  const stopProbing = () => (probed ??= prober.stop());
  const asked: { question: string; from: number; to: number }[] = [];
  return {
    name,
    async ask(question, n) {
      const from = epochMs();
      const response = await fetch(`${served.url}/api/endpoints/query/${question.endpoint}?${new URLSearchParams(requestParams(question, n, now))}`, { headers: { 'x-api-key': API_KEY } });
      const body = await response.text();
      asked.push({ question: question.label, from, to: epochMs() });
      if (response.status !== 200) throw new Error(`${name}: ${question.label} answered ${response.status}: ${body.slice(0, 500)}`);
      return () => answerOf(question, (JSON.parse(body) as { result: Record<string, unknown>[] }).result);
    },
    async probes() {
      const probes = await stopProbing();
      return probes.flatMap((probe) => {
        const during = asked.find((request) => request.from <= probe.at && probe.at < request.to);
        return during === undefined ? [] : [{ question: during.question, ms: probe.ms }];
      });
    },
    async close() {
      await stopProbing();
      await served.stop();
    },
  };
}

// ---------------------------------------------------------------------------------------------
// The events, exported for the peers and for the imports

/**
 * DuckDB's memory for the exports, in the benchmark's own process: writing the flattened events
 * ran out of the service's 1 GB at 1M events.
 */
const EXPORT_MEMORY_LIMIT = '4GB';

/** The edge events in BigQuery's terms (metadata as arrays of objects), with url and path beside. */
const EDGE_EVENTS = `select t.id, t.timestamp, t.project, t.event_message, r.url, r.path, t.metadata
  from \`cloudflare.logs.prod\` as t left join unnest(t.metadata) as m on true left join unnest(m.request) as r on true`;

export interface Exported {
  parquet: string;
  csv: string;
}

/** The seeded edge events as Parquet (for ClickHouse) and CSV (for Postgres' COPY). */
export async function exportForPeers(db: string, dir: string, csv: boolean): Promise<Exported> {
  const modules = await canneryModules();
  const instance = await modules.openDuckDb({ path: db, memoryLimit: EXPORT_MEMORY_LIMIT, readOnly: true });
  const files = { parquet: join(dir, 'edge.parquet'), csv: join(dir, 'edge.csv') };
  try {
    const events = await compileFor(modules, instance, EDGE_EVENTS);
    const connection = await instance.connect();
    try {
      // The peers order the events themselves (ClickHouse by its key, Postgres by its index).
      await connection.run('SET preserve_insertion_order = false');
      const flat = `SELECT id, "timestamp", project, event_message, url, path, to_json(metadata)::VARCHAR AS metadata FROM (${events})`;
      await connection.run(`COPY (${flat}) TO '${files.parquet}' (FORMAT parquet)`);
      if (csv) await connection.run(`COPY (SELECT id, "timestamp", project, event_message, metadata FROM (${flat})) TO '${files.csv}' (FORMAT csv, HEADER false)`);
    } finally {
      connection.closeSync();
    }
  } finally {
    instance.closeSync();
  }
  return files;
}

/**
 * A second database holding the same edge events, written by `batches` runs of `cannery import`,
 * one slice of time each, oldest first. Returns the seconds the imports took.
 */
export async function importInBatches(db: string, dir: string, target: string, batches: number): Promise<number> {
  const modules = await canneryModules();
  const instance = await modules.openDuckDb({ path: db, memoryLimit: EXPORT_MEMORY_LIMIT, readOnly: true });
  const files: string[] = [];
  try {
    const events = await compileFor(modules, instance, EDGE_EVENTS);
    const connection = await instance.connect();
    try {
      const fractions = Array.from({ length: batches - 1 }, (_, index) => (index + 1) / batches);
      const reader = await connection.runAndReadAll(`SELECT quantile_disc(epoch_us("timestamp"), [${fractions.join(', ')}]) AS bounds FROM "cloudflare.logs.prod"`);
      const bounds = ((reader.getRowObjectsJS()[0] as { bounds: bigint[] }).bounds ?? []).map(String);
      for (let index = 0; index < batches; index += 1) {
        const from = index === 0 ? '' : `epoch_us("timestamp") >= ${bounds[index - 1]}`;
        const to = index === batches - 1 ? '' : `epoch_us("timestamp") < ${bounds[index]}`;
        const where = [from, to].filter(Boolean).join(' AND ') || 'TRUE';
        const file = join(dir, `batch-${index}.ndjson`);
        await connection.run(
          `COPY (SELECT id, epoch_us("timestamp") AS "timestamp", event_message, project, metadata FROM (${events}) WHERE ${where}) TO '${file}' (FORMAT json)`,
        );
        files.push(file);
      }
    } finally {
      connection.closeSync();
    }
  } finally {
    instance.closeSync();
  }
  const started = performance.now();
  for (const file of files) {
    execFileSync(process.execPath, [CLI, 'import', '--db', target, '--source', 'cloudflare.logs.prod', file], { stdio: ['ignore', 'ignore', 'inherit'] });
    await rm(file, { force: true });
  }
  return (performance.now() - started) / 1000;
}

// ---------------------------------------------------------------------------------------------
// ClickHouse (chDB)

interface ChdbModule {
  Session: new (path?: string) => {
    query(sql: string, format?: string): string;
    queryBindAsync(sql: string, params: object, options?: { format?: string }): Promise<{ text(): string }>;
    close(): void;
  };
}

/** No background merge of `edge` running for this long counts as settled. */
const MERGES_QUIET_MS = 5000;
/** The most a load waits for its merges: a 10M insert's take about a minute on 2 cores. */
const MERGES_WAIT_MS = 600_000;

/**
 * Waits for the MergeTree's background merges of the parts an insert wrote: they run on this
 * process's threads, so a question asked meanwhile shares the cores with them (cannery's too),
 * and ClickHouse's figures would be those of a table still being merged, not its steady state.
 */
async function mergesSettled(session: InstanceType<ChdbModule['Session']>): Promise<void> {
  const started = performance.now();
  let quietSince = started;
  while (performance.now() - started < MERGES_WAIT_MS) {
    const running = Number(session.query(`SELECT count() FROM system.merges WHERE database = currentDatabase() AND table = 'edge'`, 'CSV').trim());
    const now = performance.now();
    if (running > 0) quietSince = now;
    else if (now - quietSince >= MERGES_QUIET_MS) return;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

export async function openClickHouse(dir: string, parquet: string, now: Date): Promise<Engine> {
  const { Session } = requireOnDemand<ChdbModule>('chdb', '3.4.0');
  const session = new Session(join(dir, 'chdb'));
  session.query(
    `CREATE TABLE edge (id String, timestamp DateTime64(6, 'UTC'), project String, event_message String, url String, path String, metadata String)
     ENGINE = MergeTree ORDER BY timestamp`,
  );
  session.query(`INSERT INTO edge SELECT id, timestamp, project, event_message, ifNull(url, ''), ifNull(path, ''), metadata FROM file('${parquet}', Parquet)`);
  await mergesSettled(session);
  const nowMicros = now.getTime() * 1000;
  /** The answer's text, read while timed; its rows, decoded after. */
  const rows = async (sql: string, params: object) => {
    const text = (await session.queryBindAsync(sql, params, { format: 'JSONEachRow' })).text();
    return () =>
      text
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as Record<string, unknown>);
  };
  return {
    name: 'ClickHouse (chDB)',
    async ask(question, n) {
      if (question.endpoint === 'logs.all') {
        const since = question.lastHour ? 'AND timestamp > fromUnixTimestamp64Micro({since:Int64})' : '';
        const found = await rows(
          `SELECT id, toUnixTimestamp64Micro(timestamp) AS micros FROM edge WHERE project = {project:String} ${since} ORDER BY timestamp DESC LIMIT 100`,
          { project: DEMO_PROJECT, since: nowMicros - HOUR_MS * 1000 },
        );
        return () => ({ newest: found().map((row) => ({ id: String(row.id), micros: Number(row.micros) })) });
      }
      const found = await rows(
        `SELECT intDiv(toUnixTimestamp64Micro(timestamp), {unit:Int64}) * {unit:Int64} AS bucket,
           countIf(path LIKE '%/rest%') AS rest, countIf(path LIKE '%/storage%') AS storage,
           countIf(path LIKE '%/auth%') AS auth, countIf(path LIKE '%/realtime%') AS realtime
         FROM edge WHERE timestamp >= fromUnixTimestamp64Micro({since:Int64}) AND match(url, {pattern:String})
         GROUP BY bucket ORDER BY bucket`,
        { unit: MICROS[question.interval!], since: nowMicros - WINDOW_MICROS[question.interval!], pattern: patternOf(question, n) },
      );
      return () => ({ buckets: found().map((row) => [Number(row.bucket), Number(row.rest), Number(row.storage), Number(row.auth), Number(row.realtime)] as [number, number, number, number, number]) });
    },
    async close() {
      session.close();
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Postgres

interface PgModule {
  Client: new (config: object) => {
    connect(): Promise<void>;
    query(sql: string, values?: unknown[]): Promise<{ rows: Record<string, unknown>[] }>;
    end(): Promise<void>;
  };
}

/** Debian's Postgres binaries, when the package is installed. */
export function postgresBinaries(): string | undefined {
  for (const version of ['17', '16', '15', '14']) {
    const bin = `/usr/lib/postgresql/${version}/bin`;
    if (existsSync(join(bin, 'initdb')) && existsSync(join(bin, 'pg_ctl'))) return bin;
  }
  return undefined;
}

/** Runs a Postgres tool; as root through `runuser -u postgres`, since Postgres refuses to run as root. */
function asPostgresUser(command: string, args: string[]): string[] {
  return process.getuid?.() === 0 ? ['runuser', '-u', 'postgres', '--', command, ...args] : [command, ...args];
}

function run(argv: string[]): void {
  execFileSync(argv[0]!, argv.slice(1), { stdio: ['ignore', 'ignore', 'inherit'] });
}

/** A private cluster in a folder of its own, with the CSV in it: both must be the server's to read. */
export async function openPostgres(bin: string, csv: string, now: Date): Promise<Engine> {
  const { Client } = requireOnDemand<PgModule>('pg', '8.23.1');
  const cluster = await mkdtemp(join(tmpdir(), 'cannery-bench-postgres-'));
  await chmod(cluster, 0o755);
  const data = join(cluster, 'edge.csv');
  await rename(csv, data);
  if (process.getuid?.() === 0) run(['chown', '-R', 'postgres', cluster]);
  run(asPostgresUser(join(bin, 'initdb'), ['-D', join(cluster, 'data'), '-U', 'bench', '--auth', 'trust', '--no-sync']));
  const port = await freePort();
  const options = `-k ${cluster} -p ${port} -c listen_addresses='' -c shared_buffers=1GB -c work_mem=256MB -c max_parallel_workers_per_gather=2 -c fsync=off -c synchronous_commit=off -c full_page_writes=off`;
  run(asPostgresUser(join(bin, 'pg_ctl'), ['-D', join(cluster, 'data'), '-o', options, '-l', join(cluster, 'log'), '-w', 'start']));
  const stop = async () => {
    run(asPostgresUser(join(bin, 'pg_ctl'), ['-D', join(cluster, 'data'), '-m', 'fast', '-w', 'stop']));
    await rm(cluster, { recursive: true, force: true });
  };
  try {
    const client = new Client({ host: cluster, port, user: 'bench', database: 'postgres' });
    await client.connect();
    await client.query("SET TimeZone = 'UTC'");
    await client.query('CREATE TABLE edge (id text, "timestamp" timestamptz, project text, event_message text, metadata jsonb)');
    await client.query(`COPY edge FROM '${data}' WITH (FORMAT csv)`);
    await rm(data, { force: true });
    await client.query('CREATE INDEX edge_timestamp ON edge ("timestamp")');
    await client.query('VACUUM ANALYZE edge');
    const nowText = now.toISOString();
    return {
      name: 'Postgres (JSONB, timestamp index)',
      async ask(question, n) {
        if (question.endpoint === 'logs.all') {
          const since = question.lastHour ? `AND "timestamp" > $2::timestamptz - interval '1 hour'` : '';
          const { rows } = await client.query(
            `SELECT id, (extract(epoch FROM "timestamp") * 1000000)::bigint AS micros, event_message, metadata FROM edge
             WHERE project = $1 ${since} ORDER BY "timestamp" DESC LIMIT 100`,
            question.lastHour ? [DEMO_PROJECT, nowText] : [DEMO_PROJECT],
          );
          return { newest: rows.map((row) => ({ id: String(row.id), micros: Number(row.micros) })) };
        }
        const unit = { minutely: 'minute', hourly: 'hour', daily: 'day' }[question.interval!];
        const window = { minutely: '60 minutes', hourly: '1 hour', daily: '7 days' }[question.interval!];
        const { rows } = await client.query(
          `SELECT (extract(epoch FROM date_trunc('${unit}', "timestamp")) * 1000000)::bigint AS bucket,
             count(*) FILTER (WHERE path LIKE '%/rest%') AS rest, count(*) FILTER (WHERE path LIKE '%/storage%') AS storage,
             count(*) FILTER (WHERE path LIKE '%/auth%') AS auth, count(*) FILTER (WHERE path LIKE '%/realtime%') AS realtime
           FROM (SELECT "timestamp", metadata #>> '{0,request,0,path}' AS path FROM edge
                 WHERE "timestamp" >= $1::timestamptz - interval '${window}' AND metadata #>> '{0,request,0,url}' ~ $2) AS requests
           GROUP BY 1 ORDER BY 1`,
          [nowText, patternOf(question, n)],
        );
        return { buckets: rows.map((row) => [Number(row.bucket), Number(row.rest), Number(row.storage), Number(row.auth), Number(row.realtime)]) };
      },
      async close() {
        await client.end();
        await stop();
      },
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

// ---------------------------------------------------------------------------------------------
// Measuring

/** The answers compared: counts exactly, logs.all by its timestamps and, above the last one, its ids. */
function sameAnswer(a: Answer, b: Answer): boolean {
  if ('buckets' in a && 'buckets' in b) return JSON.stringify(a.buckets) === JSON.stringify(b.buckets);
  if ('newest' in a && 'newest' in b) {
    const last = Math.min(...a.newest.map((row) => row.micros));
    const ids = (answer: typeof a) => answer.newest.filter((row) => row.micros > last).map((row) => row.id).sort().join();
    return JSON.stringify(a.newest.map((row) => row.micros)) === JSON.stringify(b.newest.map((row) => row.micros)) && ids(a) === ids(b);
  }
  return false;
}

function describeAnswer(answer: Answer): string {
  return 'buckets' in answer ? `${answer.buckets.length} buckets, ${JSON.stringify(answer.buckets.slice(0, 2))}...` : `${answer.newest.length} rows, first ${JSON.stringify(answer.newest[0])}`;
}

export interface PeerFigure {
  question: string;
  /** Rows in the (checked) answer. */
  rows: number;
  /** Median milliseconds per engine, by name, and the samples each took. */
  medians: Record<string, { ms: number; samples: number }>;
  /** /health while cannery serve answered this question; undefined when it was not served. */
  health?: HealthFigure;
}

export interface HealthFigure {
  p50: number;
  p99: number;
  max: number;
  /** Probes that answered 200, and those that did not within the probe's wait. */
  probes: number;
  lost: number;
}

/** The probes' figures; a lost probe counts as the slowest. */
function healthOf(probes: readonly { ms: number | undefined }[]): HealthFigure | undefined {
  if (probes.length === 0) return undefined;
  const answered = probes.flatMap((probe) => (probe.ms === undefined ? [] : [probe.ms]));
  const latencies = probes.map((probe) => probe.ms ?? Infinity);
  return { p50: percentile(latencies, 50), p99: percentile(latencies, 99), max: Math.max(...latencies), probes: answered.length, lost: probes.length - answered.length };
}

export interface MeasureOptions {
  /** Samples per engine at most, and at least. */
  maxSamples: number;
  minSamples: number;
  /** Roughly the time an engine may spend on one question before it is held to `minSamples`. */
  budgetMs: number;
  onFigure?: (figure: PeerFigure) => void;
}

export async function measurePeers(engines: readonly Engine[], questions: readonly PeerQuestion[], options: MeasureOptions): Promise<PeerFigure[]> {
  const figures: PeerFigure[] = [];
  let n = 0;
  for (const question of questions) {
    // One round to warm every engine up and check that all give the same answer.
    const first = new Map<string, { answer: Answer; ms: number }>();
    n += 1;
    for (const engine of engines) {
      const started = performance.now();
      const received = await engine.ask(question, n);
      const ms = performance.now() - started;
      first.set(engine.name, { answer: typeof received === 'function' ? received() : received, ms });
    }
    const [reference, ...others] = engines.map((engine) => ({ name: engine.name, ...first.get(engine.name)! }));
    for (const other of others) {
      if (!sameAnswer(reference!.answer, other.answer)) {
        throw new Error(`${question.label}: ${other.name} answered ${describeAnswer(other.answer)}, ${reference!.name} ${describeAnswer(reference!.answer)}`);
      }
    }
    const times = new Map<string, number[]>(engines.map((engine) => [engine.name, []]));
    const wanted = new Map(engines.map((engine) => [engine.name, Math.max(options.minSamples, Math.min(options.maxSamples, Math.floor(options.budgetMs / Math.max(1, first.get(engine.name)!.ms))))]));
    for (let round = 0; [...wanted].some(([name, count]) => times.get(name)!.length < count); round += 1) {
      n += 1;
      // Each round starts with another engine, so none always runs right after the same one.
      const order = engines.map((_, index) => engines[(index + round) % engines.length]!);
      for (const engine of order) {
        if (times.get(engine.name)!.length >= wanted.get(engine.name)!) continue;
        const started = performance.now();
        await engine.ask(question, n);
        times.get(engine.name)!.push(performance.now() - started);
      }
    }
    const rows = 'buckets' in reference!.answer ? reference!.answer.buckets.length : reference!.answer.newest.length;
    const figure: PeerFigure = {
      question: question.label,
      rows,
      medians: Object.fromEntries([...times].map(([name, list]) => [name, { ms: median(list), samples: list.length }])),
    };
    options.onFigure?.(figure);
    figures.push(figure);
  }
  return figures;
}

/** Closes what it opened, in reverse order, whatever happens in `work`. */
export async function withEngines<T>(open: (() => Promise<Engine | undefined>)[], work: (engines: Engine[]) => Promise<T>): Promise<T> {
  const engines: Engine[] = [];
  try {
    for (const opener of open) {
      const engine = await opener();
      if (engine) engines.push(engine);
    }
    return await work(engines);
  } finally {
    for (const engine of engines.reverse()) await engine.close().catch((error: unknown) => console.error(`bench: closing ${engine.name}:`, error));
  }
}

// ---------------------------------------------------------------------------------------------
// One size's run, and its report

export interface PeerRun {
  label: string;
  figures: PeerFigure[];
  /** /health over all of cannery serve's rounds. */
  health?: HealthFigure;
  /** Seconds the ten imports took; undefined when they were not run (--no-imports). */
  importSeconds?: number;
  engines: string[];
}

export const CANNERY = 'cannery serve';
export const CANNERY_IN_PROCESS = 'cannery in-process';
export const CANNERY_IMPORTED = 'cannery, 10 imports';
export const CLICKHOUSE = 'ClickHouse (chDB)';
export const POSTGRES = 'Postgres (JSONB, timestamp index)';

/** `runPeers` with the samples `npm run bench` takes, telling `progress` each figure as it comes. */
export async function runPeersReporting(
  db: string,
  label: string,
  options: { dir: string; now: Date; postgres: boolean; imports: boolean; maxSamples: number; progress: (message: string) => void },
): Promise<PeerRun> {
  const run = await runPeers(db, label, {
    ...options,
    minSamples: 3,
    budgetMs: 15_000,
    onFigure: (figure) => options.progress(`${label} ${figure.question}: ${Object.entries(figure.medians).map(([name, at]) => `${name} ${ms(at.ms)}`).join(', ')}`),
  });
  if (run.importSeconds !== undefined) options.progress(`${label}: ten imports took ${run.importSeconds.toFixed(0)} s`);
  return run;
}

export interface PeerRunOptions extends MeasureOptions {
  /** Where the exports, the imported database and the peers' data go (removed after). */
  dir: string;
  /** The time the questions are asked at: the seeded week ends about then. */
  now: Date;
  postgres: boolean;
  /** Whether to import the events again in ten batches (the slowest part at 10M). */
  imports: boolean;
  progress: (message: string) => void;
}

export async function runPeers(db: string, label: string, options: PeerRunOptions): Promise<PeerRun> {
  const dir = join(options.dir, `peers-${label}`);
  await mkdir(dir, { recursive: true });
  try {
    const bin = options.postgres ? postgresBinaries() : undefined;
    if (options.postgres && bin === undefined) options.progress('no Postgres here (Debian: apt-get install postgresql); measuring without it');
    options.progress(`${label}: exporting the edge events for the peers`);
    const exported = await exportForPeers(db, dir, bin !== undefined);
    const imported = join(dir, 'imported.duckdb');
    let importSeconds: number | undefined;
    if (options.imports) {
      options.progress(`${label}: importing them again in 10 batches with cannery import`);
      importSeconds = await importInBatches(db, dir, imported, 10);
    }
    return await withEngines(
      [
        () => openCannery(CANNERY_IN_PROCESS, db, options.now),
        async () => (importSeconds === undefined ? undefined : openCannery(CANNERY_IMPORTED, imported, options.now)),
        () => (options.progress(`${label}: loading ClickHouse`), openClickHouse(dir, exported.parquet, options.now)),
        async () => {
          if (bin === undefined) return undefined;
          options.progress(`${label}: loading Postgres`);
          return openPostgres(bin, exported.csv, options.now);
        },
        // Last: loading a peer blocks this process, and a connection kept alive meanwhile would
        // be reused after the server had closed it.
        () => (options.progress(`${label}: starting cannery serve`), openServedCannery(CANNERY, db, options.now)),
      ],
      async (engines) => {
        const figures = await measurePeers(engines, PEER_QUESTIONS, options);
        const probes = (await engines.find((engine) => engine.probes)?.probes?.()) ?? [];
        for (const figure of figures) figure.health = healthOf(probes.filter((probe) => probe.question === figure.question));
        return { label, importSeconds, engines: engines.map((engine) => engine.name), figures, health: healthOf(probes) };
      },
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function ms(value: number | undefined): string {
  if (value === undefined) return '';
  return value >= 100 ? `${value.toFixed(0)} ms` : value >= 10 ? `${value.toFixed(1)} ms` : `${value.toFixed(2)} ms`;
}

function ratio(a: number | undefined, b: number | undefined): string {
  return a === undefined || b === undefined ? '' : (a / b).toFixed(2);
}

/** The peer table: p50 per engine and question, cannery serve's time as a multiple of each peer's, and /health meanwhile. */
export function peerTable(runs: readonly PeerRun[]): string[] {
  const header = ['data', 'question', 'rows', CANNERY, '/health p99', CANNERY_IN_PROCESS, `${CANNERY_IMPORTED} (x bulk)`, CLICKHOUSE, POSTGRES, 'cannery / ClickHouse', 'cannery / Postgres'];
  const rows = runs.flatMap((run) =>
    run.figures.map((figure) => {
      const at = (name: string) => figure.medians[name]?.ms;
      return [
        run.label,
        escape(figure.question),
        String(figure.rows),
        ms(at(CANNERY)),
        healthCell(figure.health),
        ms(at(CANNERY_IN_PROCESS)),
        at(CANNERY_IMPORTED) === undefined ? 'not run' : `${ms(at(CANNERY_IMPORTED))} (${ratio(at(CANNERY_IMPORTED), at(CANNERY_IN_PROCESS))})`,
        ms(at(CLICKHOUSE)),
        at(POSTGRES) === undefined ? 'not run' : `${ms(at(POSTGRES))} (${figure.medians[POSTGRES]!.samples})`,
        ratio(at(CANNERY), at(CLICKHOUSE)),
        ratio(at(CANNERY), at(POSTGRES)),
      ];
    }),
  );
  return [line(header), line(header.map((_, index) => (index < 2 ? '---' : '---:'))), ...rows.map(line)];
}

/** Each question's p50 from one size to the next, for cannery serve and ClickHouse, against the events' growth. */
export function growthTable(runs: readonly PeerRun[]): string[] {
  const steps = runs.slice(1).map((run, index) => ({ from: runs[index]!, to: run }));
  if (steps.length === 0) return [];
  const header = ['question', ...steps.flatMap(({ from, to }) => [`${CANNERY} ${from.label} -> ${to.label}`, `${CLICKHOUSE} ${from.label} -> ${to.label}`])];
  const rows = runs[0]!.figures.map((figure) => [
    escape(figure.question),
    ...steps.flatMap(({ from, to }) => [CANNERY, CLICKHOUSE].map((name) => growthCell(growthOf(from, to, figure.question, name)))),
  ]);
  const events = ['events', ...steps.flatMap(({ from, to }) => [CANNERY, CLICKHOUSE].map(() => `x${(eventsOf(to) / eventsOf(from)).toFixed(1)}`))];
  return [line(header), line(header.map((_, index) => (index === 0 ? '---' : '---:'))), ...rows.map(line), line(events)];
}

/**
 * The issue's targets, read at each size: every question within 1.5x of ClickHouse, the counts at
 * or below it, logs.all's p50 under 10 ms, /health's p99 under 100 ms while cannery serve answers,
 * and each question's growth from the size before no worse than linear in the events.
 */
export function verdictTable(runs: readonly PeerRun[]): string[] {
  const header = ['target', ...runs.map((run) => run.label)];
  const worst = (run: PeerRun, questions: (figure: PeerFigure) => boolean, value: (figure: PeerFigure) => number | undefined) =>
    run.figures
      .filter(questions)
      .map((figure) => ({ question: figure.question, value: value(figure) }))
      .filter((entry): entry is { question: string; value: number } => entry.value !== undefined)
      .reduce<{ question: string; value: number } | undefined>((most, entry) => (most === undefined || entry.value > most.value ? entry : most), undefined);
  const toClickHouse = (figure: PeerFigure) => (figure.medians[CLICKHOUSE] && figure.medians[CANNERY] ? figure.medians[CANNERY].ms / figure.medians[CLICKHOUSE].ms : undefined);
  const verdict = (found: { question: string; value: number } | undefined, limit: number, shown: (value: number) => string) =>
    found === undefined ? 'not measured' : `${found.value <= limit ? 'met' : 'MISSED'}: ${shown(found.value)} (${escape(found.question)})`;
  const times = (value: number) => `x${value.toFixed(2)}`;
  const rows = [
    ['every question within 1.5x of ClickHouse', ...runs.map((run) => verdict(worst(run, () => true, toClickHouse), 1.5, times))],
    ['the counts at or below ClickHouse', ...runs.map((run) => verdict(worst(run, (figure) => figure.question.startsWith('usage.api-counts'), toClickHouse), 1, times))],
    ['logs.all p50 < 10 ms', ...runs.map((run) => verdict(worst(run, (figure) => figure.question.startsWith('logs.all'), (figure) => figure.medians[CANNERY]?.ms), 10, ms))],
    [
      '/health p99 < 100 ms (new connections, while cannery serve answers)',
      ...runs.map((run) => (run.health === undefined ? 'not measured' : `${run.health.p99 < 100 ? 'met' : 'MISSED'}: ${healthCell(run.health)}`)),
    ],
    [
      'growth from the size before no worse than linear (x time / x events)',
      ...runs.map((run, index) => {
        if (index === 0) return 'no smaller size in this run';
        const from = runs[index - 1]!;
        return verdict(worst(run, () => true, (figure) => growthOf(from, run, figure.question, CANNERY)?.relative), 1, times);
      }),
    ],
  ];
  return [line(header), line(header.map(() => '---')), ...rows.map(line)];
}

function growthOf(from: PeerRun, to: PeerRun, question: string, engine: string): { factor: number; relative: number } | undefined {
  const before = from.figures.find((figure) => figure.question === question)?.medians[engine]?.ms;
  const after = to.figures.find((figure) => figure.question === question)?.medians[engine]?.ms;
  if (before === undefined || after === undefined) return undefined;
  return { factor: after / before, relative: after / before / (eventsOf(to) / eventsOf(from)) };
}

function growthCell(growth: { factor: number } | undefined): string {
  return growth === undefined ? '' : `x${growth.factor.toFixed(2)}`;
}

/** The edge events a run's label names (`1M`, `10M`). */
function eventsOf(run: PeerRun): number {
  return parseSize(run.label).edgeEvents;
}

function healthCell(health: HealthFigure | undefined): string {
  if (health === undefined) return '';
  return `${ms(health.p99)} (${health.probes}${health.lost > 0 ? `, ${health.lost} lost` : ''})`;
}

function escape(text: string): string {
  return text.replaceAll('|', '\\|');
}

function line(cells: readonly string[]): string {
  return `| ${cells.join(' | ')} |`;
}
