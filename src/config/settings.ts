/**
 * Service settings, from the environment (and CLI flags, which win). Every setting is
 * listed in docs/settings.md; a malformed value is refused at start-up, not guessed at.
 */
import { availableParallelism } from 'node:os';
import { dirname, join } from 'node:path';
import { LOG_THRESHOLDS, type LogThreshold } from '../core/logger.js';
import { readBigQuerySettings, type BigQuerySettings } from './bigquery-settings.js';
import { parseDuration } from './durations.js';

export type BackendName = 'duckdb' | 'bigquery';

export interface Settings {
  endpointsDir: string;
  /** The folder of source files (CANNERY_SOURCES); undefined: `sources` beside the endpoint folder (sourcesDirOf). */
  sourcesDir: string | undefined;
  dbPath: string;
  port: number;
  host: string;
  /**
   * Unscoped keys; undefined when CANNERY_API_KEYS is unset (`serve` then generates one and prints
   * it, unless scoped keys or tokens are configured), empty when it is set empty.
   */
  apiKeys: string[] | undefined;
  /** Scoped keys (docs/access.md), re-read while serving; undefined: none. */
  keysFile: string | undefined;
  /** The key a command sends when it asks a running server (`cannery run` beside `serve`); undefined: none. */
  callerKey: string | undefined;
  /** The HS256 secret of signed tokens; undefined: HS256 tokens are refused. */
  jwtSecret: string | undefined;
  /** A JWKS file of public keys for RS256 and ES256 tokens; undefined: those are refused. */
  jwtJwksFile: string | undefined;
  /** The longest a signed token may live, in seconds: one whose `exp` is further off is refused. */
  jwtMaxTtlSeconds: number;
  backend: BackendName;
  queryTimeoutMs: number;
  /** On SIGTERM/SIGINT, how long requests in flight may take to finish. */
  shutdownGraceMs: number;
  /** Cap on the in-process result cache's bytes (bodies and keys); least recently used entries go first. */
  cacheMaxBytes: number;
  /** The shared cache store (redis:// or rediss://, Redis or Valkey); undefined: the in-process cache alone. */
  cacheUrl: string | undefined;
  /** The longest a request waits on the shared store for any one call. */
  cacheTimeoutMs: number;
  /** Namespace of the shared store's keys, so deployments can share one server. */
  cachePrefix: string;
  /** The most one answer may weigh, encoded; past it, result_too_large. */
  maxResultBytes: number;
  /** Threads that compile sandbox SQL, off the event loop. */
  sandboxThreads: number;
  /** The longest one sandbox query may take to compile; past it, sandbox_violation. */
  sandboxCompileMs: number;
  duckdbMemoryLimit: string;
  duckdbThreads: number;
  /** DuckDB memory_limit of `import` and `seed` (and the first run's seed of `serve --demo`). */
  loadMemoryLimit: string;
  /** Backend queries that may run at once; cache hits take no slot. */
  maxConcurrentQueries: number;
  /** Backend queries that may wait for a slot; past that, 429. */
  maxQueuedQueries: number;
  /** Least severe request-log level written. */
  logLevel: LogThreshold;
  /** GET /metrics without a key (for a scraper on a private network). */
  metricsPublic: boolean;
  /** Origins CORS allows (`*`: any); empty: no CORS headers at all. */
  corsOrigins: string[];
  /** Serve the browser console at `/`. */
  console: boolean;
  /** With `serve --demo`: top the demo data up to now at start and write live events while serving. */
  demoLive: boolean;
  /**
   * `serve` on a DuckDB file holds it for writing and takes events over HTTP (docs/ingest.md); off,
   * it opens the file read-only, so other readers (`cannery run`) may open it beside it.
   */
  ingest: boolean;
  /** The most one ingest request's body may hold, gzip unpacked; past it, 413. */
  ingestMaxBytes: number;
  /** Events waiting for the writer, across requests; a request that would pass it gets 429. */
  ingestQueueEvents: number;
  /** CANNERY_BQ_*; project and dataset are checked present when the backend is bigquery. */
  bigquery: BigQuerySettings;
  /** The folder of the compile cache (docs/operations.md); undefined: every start compiles every file. */
  compileCache: string | undefined;
  /**
   * CANNERY_NOW: a time that stands still in place of the clock (queries' execution time, the
   * demo's seed and top-up), so a run shows the same answers every time (the docs tier sets it);
   * undefined: the real clock.
   */
  now: Date | undefined;
}

/**
 * Threads that may work beside the event loop: all cores but one. The event loop accepts
 * connections (one per turn) and answers /health; when DuckDB, the sandbox compiles and it share
 * every core, a probe on a new connection waited seconds under load.
 */
const BESIDE_THE_EVENT_LOOP = Math.max(1, availableParallelism() - 1);

export const DEFAULTS = {
  endpointsDir: './endpoints',
  dbPath: './data/cannery.duckdb',
  port: 4000,
  host: '127.0.0.1',
  queryTimeoutMs: 25_000,
  // A token cannot be revoked before its exp (docs/access.md): a day bounds what a leaked one is
  // worth, and is far longer than the minutes an app's backend mints them for.
  jwtMaxTtlSeconds: 24 * 3600,
  shutdownGraceMs: 10_000,
  // A bound, so one heavy query cannot take the machine's memory (DuckDB's own default is 80%):
  // the process peaks at about this plus half a GiB (docs/operations.md). Queries of the shipped
  // endpoints need a small part of it; a sandbox query that needs more is refused with a 400.
  duckdbMemoryLimit: '1GB',
  // A load streams through DuckDB a batch at a time: it needs far less than queries may, and a
  // bound keeps its peak flat however large the input (docs/storage.md, Loading).
  loadMemoryLimit: '512MB',
  cacheMaxBytes: 256 * 1024 * 1024,
  // A store on the same network answers in well under a millisecond; past this it is in trouble,
  // and answering without it is better than waiting.
  cacheTimeoutMs: 250,
  cachePrefix: 'cannery',
  // Far above what a log client reads in one answer (1,000 rows of a few KB), far below what
  // would strain the process: a request's memory is a small multiple of it.
  maxResultBytes: 32 * 1024 * 1024,
  // Compiling a real client's query takes milliseconds, and the budget is far above any real query,
  // far below a stall anyone would wait out.
  sandboxThreads: BESIDE_THE_EVENT_LOOP,
  // Every core: DuckDB's threads run at nice 10 once serve listens, below the event loop, and on 2
  // quiet cores /health p99 under 300 callers stayed under 100 ms with both (62.7 and 68.0 ms,
  // against 113 and 70.7 ms with one) and under a result bomb (30 ms), while a scan on two threads
  // takes about half the time (issue 40: the daily count at 10M 1,970 -> 1,022 ms; benchmarks.md).
  // The compile threads stay beside the event loop: a second one made /health worse.
  duckdbThreads: availableParallelism(),
  sandboxCompileMs: 2_000,
  // Enough to keep a backend busy; more at once only queue inside it, and each costs memory.
  maxConcurrentQueries: 16,
  maxQueuedQueries: 64,
  logLevel: 'info',
  // A shipper's batch (Vector's http sink: 10 MB; Fluent Bit's: a few MB) fits whole.
  ingestMaxBytes: 10 * 1024 * 1024,
  // About one second of writing at the target rate, ten times over: a burst waits, a stalled writer is refused.
  ingestQueueEvents: 100_000,
} as const;

type Env = Record<string, string | undefined>;

export function readSettings(env: Env = process.env): Settings {
  return {
    endpointsDir: env.CANNERY_ENDPOINTS || DEFAULTS.endpointsDir,
    sourcesDir: env.CANNERY_SOURCES || undefined,
    dbPath: env.CANNERY_DB || DEFAULTS.dbPath,
    port: integer(env, 'PORT', DEFAULTS.port, 0, 65535),
    host: env.HOST || DEFAULTS.host,
    apiKeys: apiKeys(env.CANNERY_API_KEYS),
    keysFile: env.CANNERY_KEYS_FILE || undefined,
    callerKey: env.CANNERY_KEY || undefined,
    jwtSecret: jwtSecret(env.CANNERY_JWT_SECRET),
    jwtJwksFile: env.CANNERY_JWT_JWKS_FILE || undefined,
    jwtMaxTtlSeconds: duration(env, 'CANNERY_JWT_MAX_TTL', DEFAULTS.jwtMaxTtlSeconds),
    backend: backendName(env.CANNERY_BACKEND),
    queryTimeoutMs: integer(env, 'CANNERY_QUERY_TIMEOUT_MS', DEFAULTS.queryTimeoutMs, 1, 3_600_000),
    shutdownGraceMs: integer(env, 'CANNERY_SHUTDOWN_GRACE_MS', DEFAULTS.shutdownGraceMs, 0, 3_600_000),
    cacheMaxBytes: integer(env, 'CANNERY_CACHE_MAX_BYTES', DEFAULTS.cacheMaxBytes, 0, Number.MAX_SAFE_INTEGER),
    cacheUrl: cacheUrl(env.CANNERY_CACHE_URL),
    cacheTimeoutMs: integer(env, 'CANNERY_CACHE_TIMEOUT_MS', DEFAULTS.cacheTimeoutMs, 1, 60_000),
    cachePrefix: cachePrefix(env.CANNERY_CACHE_PREFIX),
    maxResultBytes: integer(env, 'CANNERY_MAX_RESULT_BYTES', DEFAULTS.maxResultBytes, 1024, Number.MAX_SAFE_INTEGER),
    sandboxThreads: integer(env, 'CANNERY_SANDBOX_THREADS', DEFAULTS.sandboxThreads, 1, 64),
    sandboxCompileMs: integer(env, 'CANNERY_SANDBOX_COMPILE_MS', DEFAULTS.sandboxCompileMs, 1, 600_000),
    duckdbMemoryLimit: env.CANNERY_DUCKDB_MEMORY_LIMIT || DEFAULTS.duckdbMemoryLimit,
    duckdbThreads: integer(env, 'CANNERY_DUCKDB_THREADS', DEFAULTS.duckdbThreads, 1, 1024),
    loadMemoryLimit: env.CANNERY_LOAD_MEMORY_LIMIT ? memorySize('CANNERY_LOAD_MEMORY_LIMIT', env.CANNERY_LOAD_MEMORY_LIMIT) : DEFAULTS.loadMemoryLimit,
    maxConcurrentQueries: integer(env, 'CANNERY_MAX_CONCURRENT_QUERIES', DEFAULTS.maxConcurrentQueries, 1, 10_000),
    maxQueuedQueries: integer(env, 'CANNERY_MAX_QUEUED_QUERIES', DEFAULTS.maxQueuedQueries, 0, 1_000_000),
    logLevel: logThreshold(env.CANNERY_LOG_LEVEL),
    metricsPublic: boolean(env, 'CANNERY_METRICS_PUBLIC', false),
    corsOrigins: corsOrigins(env.CANNERY_CORS_ORIGINS),
    console: boolean(env, 'CANNERY_CONSOLE', true),
    demoLive: boolean(env, 'CANNERY_DEMO_LIVE', true),
    ingest: boolean(env, 'CANNERY_INGEST', false),
    ingestMaxBytes: integer(env, 'CANNERY_INGEST_MAX_BYTES', DEFAULTS.ingestMaxBytes, 1024, 1 << 30),
    ingestQueueEvents: integer(env, 'CANNERY_INGEST_QUEUE_EVENTS', DEFAULTS.ingestQueueEvents, 1, 100_000_000),
    bigquery: readBigQuerySettings(env, env.CANNERY_BACKEND === 'bigquery'),
    now: fixedNow(env.CANNERY_NOW),
    compileCache: compileCacheDir(env),
  };
}

/** CANNERY_NOW: ISO 8601 with a zone, as `seed --now` and the tests' `now` take it (a time without one would mean another instant on each machine). */
function fixedNow(raw: string | undefined): Date | undefined {
  if (!raw) return undefined;
  const now = new Date(raw);
  if (!/^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:\d\d)$/.test(raw) || Number.isNaN(now.getTime())) {
    throw new Error(`CANNERY_NOW must be an ISO 8601 time with Z or an offset, such as 2026-11-27T15:00:00Z (got "${raw}")`);
  }
  return now;
}

/** CANNERY_COMPILE_CACHE, `off`, or by default the user's cache folder (XDG), when there is one. */
function compileCacheDir(env: Env): string | undefined {
  const raw = env.CANNERY_COMPILE_CACHE;
  if (raw === 'off') return undefined;
  if (raw) return raw;
  const base = env.XDG_CACHE_HOME?.startsWith('/') ? env.XDG_CACHE_HOME : env.HOME ? join(env.HOME, '.cache') : undefined;
  return base === undefined ? undefined : join(base, 'cannery', 'compiled');
}

export function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new Error(`${name} must be a whole number from ${min} to ${max} (got "${raw}")`);
  }
  return value;
}

/** A length of time such as `24h` (durations.ts), in seconds. */
function duration(env: Env, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const seconds = parseDuration(raw);
  if (seconds === undefined) throw new Error(`${name} must be a length of time such as 90s, 15m, 24h or 7d (got "${raw}")`);
  return seconds;
}

/** A size as DuckDB's memory_limit takes it (`512MB`, `1.5GiB`); DuckDB's own refusal says only "Failed to set config". */
export function memorySize(name: string, raw: string): string {
  if (!/^\d+(\.\d+)?\s*(B|KB|MB|GB|TB|KiB|MiB|GiB|TiB)$/i.test(raw.trim())) {
    throw new Error(`${name} must be a size such as 512MB or 2GB (got "${raw}")`);
  }
  return raw.trim();
}

/** Visible ASCII: what every client can send in a header as it is. */
const KEY_CHARACTERS = /^[!-~]+$/;

/**
 * Comma-separated keys. node reads header bytes as Latin-1, so a key with any other character
 * (a space, an accent) could never be presented and would refuse its callers without saying
 * why: it is refused here, at start-up, without echoing the key.
 */
function apiKeys(raw: string | undefined): string[] | undefined {
  if (raw === undefined) return undefined;
  const keys = raw.split(',').map((key) => key.trim()).filter(Boolean);
  keys.forEach((key, index) => {
    if (!KEY_CHARACTERS.test(key)) {
      throw new Error(`CANNERY_API_KEYS: key ${index + 1} has a character a header cannot carry as it is; use letters, digits and ASCII punctuation`);
    }
  });
  return keys;
}

/** RFC 7518 (3.2): an HS256 key is at least as long as the hash, 256 bits. */
const MIN_JWT_SECRET_LENGTH = 32;

/** The message never repeats the secret. */
function jwtSecret(raw: string | undefined): string | undefined {
  if (raw === undefined || raw === '') return undefined;
  if (raw.length < MIN_JWT_SECRET_LENGTH) {
    throw new Error(`CANNERY_JWT_SECRET must be at least ${MIN_JWT_SECRET_LENGTH} characters (HS256 needs 256 bits); generate one with: openssl rand -base64 32`);
  }
  return raw;
}

function boolean(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (raw === 'true') return true;
  if (raw === 'false') return false;
  throw new Error(`${name} must be true or false (got "${raw}")`);
}

function logThreshold(raw: string | undefined): LogThreshold {
  if (raw === undefined || raw === '') return DEFAULTS.logLevel;
  const threshold = LOG_THRESHOLDS.find((level) => level === raw);
  if (!threshold) throw new Error(`CANNERY_LOG_LEVEL must be one of ${LOG_THRESHOLDS.join(', ')} (got "${raw}")`);
  return threshold;
}

/** `*`, or origins exactly as browsers send them: scheme, host and port, no path or trailing slash. */
function corsOrigins(raw: string | undefined): string[] {
  const origins = (raw ?? '').split(',').map((origin) => origin.trim()).filter(Boolean);
  for (const origin of origins) {
    if (origin !== '*' && originOf(origin) !== origin) {
      throw new Error(`CANNERY_CORS_ORIGINS: "${origin}" is not an origin; write it as a browser sends it, like https://app.example.com or http://localhost:3000, or * for any`);
    }
  }
  return origins;
}

function originOf(text: string): string | undefined {
  try {
    return new URL(text).origin;
  } catch {
    return undefined;
  }
}

/** redis:// or rediss://, with a host; the message never repeats the URL, which may carry a password. */
function cacheUrl(raw: string | undefined): string | undefined {
  if (raw === undefined || raw === '') return undefined;
  let url: URL | undefined;
  try {
    url = new URL(raw);
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== 'redis:' && url.protocol !== 'rediss:') || url.hostname === '') {
    throw new Error('CANNERY_CACHE_URL must be a redis:// or rediss:// URL with a host, like redis://cache.internal:6379 (Redis or Valkey)');
  }
  return raw;
}

/** Letters, digits and a few separators: part of every key, and of the channel's name. */
function cachePrefix(raw: string | undefined): string {
  if (raw === undefined || raw === '') return DEFAULTS.cachePrefix;
  if (!/^[A-Za-z0-9._:-]{1,64}$/.test(raw)) {
    throw new Error(`CANNERY_CACHE_PREFIX must be 1 to 64 letters, digits or . _ : - (got "${raw}")`);
  }
  return raw;
}

function backendName(raw: string | undefined): BackendName {
  if (raw === undefined || raw === '' || raw === 'duckdb') return 'duckdb';
  if (raw === 'bigquery') return 'bigquery';
  throw new Error(`CANNERY_BACKEND must be duckdb or bigquery (got "${raw}")`);
}

/** The source folder of the settings: CANNERY_SOURCES, else `sources` beside the endpoint folder, as a project lays them out. */
export function sourcesDirOf(settings: Pick<Settings, 'endpointsDir' | 'sourcesDir'>): string {
  return settings.sourcesDir ?? join(dirname(settings.endpointsDir.replace(/[\\/]+$/, '') || '.'), 'sources');
}
