/**
 * The serve pipeline below HTTP: resolve endpoint -> validate params -> cache (single flight)
 * -> backend -> redact -> encode. HTTP and the CLI's `run` are thin shells over this.
 */
import type { Backend, QueryRequest, QueryResult } from '../backend.js';
import { DEFAULTS } from '../../config/settings.js';
import { didYouMean } from '../../config/spelling.js';
import { createCacheLayer, type CacheOutcome, type LayerResult } from './cache/read-through.js';
import type { SharedStore } from './cache/shared-store.js';
import { createSharedTier, type SharedHealth } from './cache/shared-tier.js';
import { encodeResult } from './encode.js';
import { CanneryError } from '../../core/errors.js';
import { limitedBackend } from './limited-backend.js';
import { createLimiter } from './limiter.js';
import { UNOBSERVED, type EngineObserver } from './observer.js';
import { readRequestParams } from './params.js';
import { checkSandboxRequest } from './sandbox-compile.js';
import { createSandboxCompiler, type SandboxCompilerOptions } from './sandbox-pool.js';
import { withDerivedValues } from '../../sql/analyse/derived-parameters.js';
import type { Registry } from './registry.js';
import { redactString, redactValue } from './redact.js';
import type { EndpointDefinition, WireRow } from '../../core/types.js';
import type { CompiledEndpoint } from '../compiled-endpoint.js';
import { realTimers, type Timers } from './cache/warming.js';

export interface ServiceOptions {
  registry: Registry;
  backend: Backend;
  timeoutMs: number;
  /** Injectable for tests; the execution time of each query, and the cache's clock. */
  clock?: () => Date;
  /** Injectable for tests: the timers that schedule cache warming. */
  timers?: Timers;
  /** Cap on the result cache's bytes (CANNERY_CACHE_MAX_BYTES). */
  cacheMaxBytes?: number;
  /** Cache refreshes that may run at once when warming. */
  warmConcurrency?: number;
  /** Where failures that are not any request's answer go (a failed refresh). */
  log?: (message: string, error: unknown) => void;
  /** Backend queries that may run at once (CANNERY_MAX_CONCURRENT_QUERIES); cache hits take none. */
  maxConcurrentQueries?: number;
  /** Backend queries that may wait for one of those slots (CANNERY_MAX_QUEUED_QUERIES); past it, too_many_requests. */
  maxQueuedQueries?: number;
  /** Told about backend queries and cache warming (metrics). */
  observer?: EngineObserver;
  /** The most an answer may weigh, encoded (CANNERY_MAX_RESULT_BYTES); past it, result_too_large. */
  maxResultBytes?: number;
  /** Sandbox SQL's compile threads (CANNERY_SANDBOX_THREADS, CANNERY_SANDBOX_COMPILE_MS); defaults from settings. */
  sandbox?: Partial<SandboxCompilerOptions>;
  /** The shared cache tier (CANNERY_CACHE_URL); absent: the in-process cache alone. */
  sharedCache?: SharedCacheSettings;
}

export interface SharedCacheSettings {
  store: SharedStore;
  /** Whether it answered at start-up. */
  up: boolean;
  /** The longest a request waits on the store for any one call (CANNERY_CACHE_TIMEOUT_MS). */
  timeoutMs: number;
}

export interface QueryOutcome {
  endpoint: CompiledEndpoint;
  /** The response body, `{"result": [...]}`, encoded once: a cache hit is the stored bytes. */
  body: Uint8Array;
  /** Rows in the body. */
  rows: number;
  /** The backend's time in ms for the query this answer waited for; absent when it waited for none (a hit, a stale answer). */
  backendMs?: number;
  /** How the cache answered; absent for an endpoint with `cache: false`. */
  cache?: CacheOutcome;
}

export interface QueryOptions {
  /**
   * The caller asks for PII redaction. It can only add to the endpoint's `redact_pii`, never
   * turn it off; a cache keys on the result, `redact_pii || redactPii`.
   */
  redactPii?: boolean;
}

export interface Service {
  /** The endpoints served now; hot reload replaces it. */
  readonly registry: Registry;
  /**
   * Serves `next` from the next request on (requests in flight finish with what they resolved),
   * and drops the cache entries of endpoints that changed or went away.
   */
  replaceRegistry(next: Registry): void;
  readonly backend: Backend;
  /**
   * The endpoint with that id or name, or `endpoint_not_found` suggesting the closest name among
   * those `visible` admits (a scoped caller is never told the names of endpoints it may not run).
   */
  resolve(idOrName: string, visible?: (definition: EndpointDefinition) => boolean): CompiledEndpoint;
  /**
   * The one entry point of a request: its parameters read and validated (once), then the answer
   * from the cache when the endpoint has one and holds it, else from the backend. A fresh hit is
   * answered at once rather than as a promise; a caller awaits either. A mistake in the request
   * throws at once.
   */
  query(endpoint: CompiledEndpoint, params: Iterable<[string, string]>, options?: QueryOptions): QueryOutcome | Promise<QueryOutcome>;
  /** The shared cache store's state; undefined when there is none (the in-process cache alone). */
  sharedCacheHealth(): SharedHealth | undefined;
  /** Stops cache warming, waits for refreshes in flight and closes the shared cache store; the backend stays open. */
  close(): Promise<void>;
}

/** Enough to keep a few endpoints' keys fresh without taking every backend slot from requests. */
const WARM_CONCURRENCY = 4;
/**
 * An entry from the shared store is answered from the process for this long before the store is
 * asked again. Replicas are told at once when a key gets a new result; this bounds what a missed
 * notification (a reconnecting subscriber) can cost: a few seconds of an older answer.
 */
const LOCAL_CHECK_MS = 5_000;
/** How often a replica waiting for another one's query checks that the other is alive. */
const PEER_POLL_MS = 250;
/** How often a shared store that failed is pinged until it answers. */
const STORE_PROBE_MS = 1_000;

function redactionOn(definition: EndpointDefinition, options: QueryOptions): boolean {
  return definition.redact_pii || options.redactPii === true;
}

const redactRow = (row: WireRow) => redactValue(row) as WireRow;

/** Named, not spread: this runs on every cache hit, and copying by spread costs more. */
function outcomeOf(endpoint: CompiledEndpoint, answer: LayerResult): QueryOutcome {
  return { endpoint, body: answer.body, rows: answer.rows, backendMs: answer.backendMs, cache: answer.cache };
}

/**
 * The error with its message redacted: a backend quotes the values it failed on (a cast of a
 * row's message, a regular expression built from one), and a redacted answer must not carry in
 * its error what it hides in its rows.
 */
function redactedError(error: unknown): unknown {
  if (!(error instanceof CanneryError)) return error;
  const message = redactString(error.message);
  if (message === error.message) return error;
  return new CanneryError(error.code, message, { param: error.param, queryRejected: error.queryRejected, cause: error.cause });
}

/** Runs a query; a sandbox query the backend refuses is the caller's mistake, reported as such. */
async function runOnBackend(backend: Backend, sandboxed: boolean, request: QueryRequest): Promise<QueryResult> {
  try {
    return await backend.run(request);
  } catch (error) {
    if (sandboxed && error instanceof CanneryError && error.queryRejected) {
      throw new CanneryError('invalid_parameter', `sql cannot run: ${error.message}`, { param: 'sql', cause: error });
    }
    throw error;
  }
}

export function createService(options: ServiceOptions): Service {
  const { clock: injectedClock } = options;
  const clock = injectedClock ?? (() => new Date());
  const observer = options.observer ?? UNOBSERVED;
  const limiter = createLimiter({
    maxRunning: options.maxConcurrentQueries ?? DEFAULTS.maxConcurrentQueries,
    maxQueued: options.maxQueuedQueries ?? DEFAULTS.maxQueuedQueries,
    onChange: (running, queued) => observer.backendLoad(running, queued),
  });
  // Every backend query passes the limiter, warming's too: they share the backend's capacity.
  const backend = limitedBackend(options.backend, limiter, observer);
  const log = options.log ?? ((message: string, error: unknown) => (error === undefined ? console.error(message) : console.error(message, error)));
  const cache = createCacheLayer({
    maxBytes: options.cacheMaxBytes ?? DEFAULTS.cacheMaxBytes,
    clock,
    now: injectedClock ? () => injectedClock().getTime() : Date.now,
    timers: options.timers ?? realTimers,
    warmConcurrency: options.warmConcurrency ?? WARM_CONCURRENCY,
    log,
    onWarmed: (endpointName, ok) => observer.warmed(endpointName, ok),
    onAnswered: (endpointName, source) => observer.cacheAnswered(endpointName, source),
    shared: options.sharedCache && {
      tier: createSharedTier({
        store: options.sharedCache.store,
        timeoutMs: options.sharedCache.timeoutMs,
        probeEveryMs: STORE_PROBE_MS,
        up: options.sharedCache.up,
        log,
        onError: (operation) => observer.sharedStoreError(operation),
        onAvailability: (up) => observer.sharedStoreAvailable(up),
      }),
      // A peer's query may wait for a backend slot and then run to the query timeout; past
      // that and a little, it is not coming.
      peerWaitMs: options.timeoutMs + 5_000,
      pollMs: PEER_POLL_MS,
      localCheckMs: LOCAL_CHECK_MS,
    },
  });
  const maxResultBytes = options.maxResultBytes ?? DEFAULTS.maxResultBytes;
  const sandbox = createSandboxCompiler({
    threads: options.sandbox?.threads ?? DEFAULTS.sandboxThreads,
    budgetMs: options.sandbox?.budgetMs ?? DEFAULTS.sandboxCompileMs,
    maxQueued: options.maxQueuedQueries ?? DEFAULTS.maxQueuedQueries,
  });
  let registry = options.registry;
  return {
    get registry() {
      return registry;
    },
    replaceRegistry(next) {
      for (const endpoint of registry.endpoints) {
        const { id } = endpoint.definition;
        if (next.find(id)?.version !== endpoint.version) cache.dropEndpoint(id);
      }
      registry = next;
    },
    backend: options.backend,
    resolve(idOrName, visible) {
      const endpoint = registry.find(idOrName);
      if (!endpoint) {
        const names = registry.endpoints
          .filter((candidate) => !visible || visible(candidate.definition))
          .map((candidate) => candidate.definition.name);
        throw new CanneryError('endpoint_not_found', `no endpoint with id or name "${idOrName}"${didYouMean(idOrName, names)}`);
      }
      return endpoint;
    },
    query(endpoint, params, queryOptions = {}) {
      const { definition } = endpoint;
      const request = readRequestParams(definition, params);
      const { sql } = request;
      // Refused at once when no parsing is needed; otherwise compiled on a miss only, off the event loop.
      if (sql !== undefined) checkSandboxRequest(definition, sql);
      const redact = redactionOn(definition, queryOptions);
      const compute = async (now: Date) => {
        try {
          const compiled =
            sql === undefined
              ? { sql: endpoint.sql, parameters: endpoint.sqlParameters, derived: endpoint.sqlDerived, writeBack: endpoint.sqlWriteBack }
              : await sandbox.compile(endpoint, sql, options.backend.dialect, { redact });
          const result = await runOnBackend(backend, request.sql !== undefined, {
            sql: compiled.sql,
            recurring: sql === undefined,
            parameters: compiled.parameters,
            writeBack: compiled.writeBack,
            values: withDerivedValues(compiled.derived, request.values),
            specs: definition.params,
            now,
            maxRows: definition.max_rows,
            maxBytes: maxResultBytes,
            timeoutMs: options.timeoutMs,
            endpointName: definition.name,
          });
          // After the backend, inside the service: whatever caches around this sees redacted rows
          // exactly when its key says so, and the backend's own rows are never rewritten.
          const body = await encodeResult(result.rows, { maxBytes: maxResultBytes, transform: redact ? redactRow : undefined });
          return { body, rows: result.rows.length, backendMs: result.backendMs };
        } catch (error) {
          throw redact ? redactedError(error) : error;
        }
      };
      const answer = cache.fetch(endpoint, { values: request.values, sql: request.sql, redactPii: redact }, compute);
      return answer instanceof Promise ? answer.then((settled) => outcomeOf(endpoint, settled)) : outcomeOf(endpoint, answer);
    },
    sharedCacheHealth: () => cache.sharedHealth(),
    close: async () => {
      await Promise.all([cache.close(), sandbox.close()]);
    },
  };
}
