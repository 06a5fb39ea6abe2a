/**
 * The read-through result cache between the service and the backend: freshness, single flight,
 * stale results when a refresh fails, invalidation on a new endpoint version, and warming.
 *
 * An entry is fresh for ttl after its query's execution time. A request for a key that is not
 * fresh runs the query once however many requests wait for it; if that fails and the previous
 * entry is less than ttl past its freshness, the previous entry is served as STALE (and the
 * failure logged) instead of the error. Errors are never stored.
 */
import { cacheEntry, createCacheStore, type CacheEntry } from './store.js';
import { cacheKey, type CacheKeyParts } from './key.js';
import type { CompiledEndpoint } from '../compiled-endpoint.js';
import { createWarmer, type Timers } from './warming.js';

export type CacheStatus = 'HIT' | 'MISS' | 'STALE';

/** What HTTP needs to describe a cached answer. */
export interface CacheOutcome {
  status: CacheStatus;
  etag: string;
  /** Whole seconds since the result was computed. */
  ageSeconds: number;
  /** Whole seconds it stays fresh; 0 for a stale answer. */
  maxAgeSeconds: number;
}

export interface LayerResult {
  /** The encoded response body. */
  body: Uint8Array;
  /** Rows in the body. */
  rows: number;
  /** The backend's time in ms for the query this answer waited for; absent when it waited for none. */
  backendMs?: number;
  /** Absent for an endpoint with `cache: false`. */
  cache?: CacheOutcome;
}

/** A query's answer: the encoded response body, its rows, and the backend's time in ms. */
export interface Computed {
  body: Uint8Array;
  rows: number;
  backendMs: number;
}

/** Runs the query at execution time `now` and encodes the response body. */
export type Compute = (now: Date) => Promise<Computed>;

export interface CacheLayerOptions {
  maxBytes: number;
  clock: () => Date;
  /** The clock's time in ms, read on every hit (Date.now rather than a Date, unless a test injects a clock). */
  now: () => number;
  timers: Timers;
  warmConcurrency: number;
  log: (message: string, error: unknown) => void;
  /** Told when a warming refresh ends, and whether it got a new result. */
  onWarmed: (endpointName: string, ok: boolean) => void;
}

export interface CacheLayer {
  /** The answer to a request: from the cache when the endpoint has one, else computed now. */
  fetch(endpoint: CompiledEndpoint, parts: CacheKeyParts, compute: Compute): Promise<LayerResult>;
  /**
   * The answer for `key` (cacheKey's) when it is a fresh hit that needs nothing else (its key is
   * warmed already, if the endpoint warms), without waiting; otherwise undefined, and fetch gives
   * the answer.
   */
  peek(endpoint: CompiledEndpoint, key: string): LayerResult | undefined;
  /** Drops every entry of an endpoint (changed or deleted), which also stops their warming. */
  dropEndpoint(id: string): void;
  /** Stops warming; waits for refreshes in flight. */
  close(): Promise<void>;
}

interface Settled {
  entry: CacheEntry;
  status: 'MISS' | 'STALE';
  /** The backend's time for a new result. */
  backendMs?: number;
}

interface Cached {
  endpoint: CompiledEndpoint;
  key: string;
  ttlMs: number;
  warmEveryMs: number | undefined;
  compute: Compute;
}

export function createCacheLayer(options: CacheLayerOptions): CacheLayer {
  const now = options.now;
  const warmer = createWarmer({
    now,
    timers: options.timers,
    concurrency: options.warmConcurrency,
    // Jobs report their own failures (keepWarm); this is for one that throws anyway.
    onError: (_key, error) => options.log('cache: a warming job failed', error),
  });
  // An entry that leaves the store is no longer warmed: warming keeps entries fresh, it does not
  // bring back what the memory cap pushed out (a request will).
  const store = createCacheStore({ maxBytes: options.maxBytes, onRemove: (key) => warmer.forget(key) });
  const flights = new Map<string, Promise<Settled>>();
  // The version of each endpoint the cache holds results for.
  const versions = new Map<string, string>();

  const isCurrent = (endpoint: CompiledEndpoint) => versions.get(endpoint.definition.id) === endpoint.version;
  // The endpoint last found current: a run of hits on one endpoint skips the lookup.
  let lastCurrent: CompiledEndpoint | undefined;

  const useVersion = (endpoint: CompiledEndpoint) => {
    if (endpoint === lastCurrent) return;
    if (!isCurrent(endpoint)) {
      const { id } = endpoint.definition;
      if (versions.has(id)) store.deleteEndpoint(id);
      versions.set(id, endpoint.version);
    }
    lastCurrent = endpoint;
  };

  const runQuery = async (request: Cached): Promise<Settled> => {
    const { endpoint, key } = request;
    const executedAt = options.clock();
    try {
      const computed = await request.compute(executedAt);
      const entry = cacheEntry(key, endpoint.definition.id, computed, executedAt.getTime());
      // A query of a superseded version answers its own callers but is not kept.
      if (isCurrent(endpoint)) store.set(entry);
      return { entry, status: 'MISS', backendMs: computed.backendMs };
    } catch (error) {
      const previous = store.get(key);
      const at = now();
      if (!previous || at >= previous.computedAt + 2 * request.ttlMs) throw error;
      const age = Math.floor((at - previous.computedAt) / 1000);
      options.log(`cache: refreshing ${endpoint.definition.name} failed; serving its previous result (${age} s old) as stale`, error);
      return { entry: previous, status: 'STALE' };
    }
  };

  /** One query per key at a time: later callers (requests or warming) join the one running. */
  const flight = (request: Cached): Promise<Settled> => {
    const running = flights.get(request.key);
    if (running) return running;
    const started = runQuery(request);
    flights.set(request.key, started);
    const release = () => {
      if (flights.get(request.key) === started) flights.delete(request.key);
    };
    started.then(release, release);
    return started;
  };

  /** Only a key with an entry is warmed: a query that fails on a cold key is not retried in the background. */
  const keepWarm = (request: Cached) => {
    if (request.warmEveryMs === undefined || !store.has(request.key)) return;
    warmer.requested(request.key, {
      everyMs: request.warmEveryMs,
      activeForMs: request.ttlMs,
      run: async () => {
        const { name } = request.endpoint.definition;
        try {
          const settled = await flight(request);
          options.onWarmed(name, settled.status === 'MISS');
        } catch (error) {
          options.onWarmed(name, false);
          // A failure that keeps a previous result is logged by runQuery; this one has none left.
          options.log(`cache: warming ${name} failed, with no previous result to keep`, error);
        }
      },
    });
  };

  const describe = (entry: CacheEntry, status: CacheStatus, ttlMs: number, at: number, backendMs?: number): LayerResult => ({
    body: entry.body,
    rows: entry.rows,
    backendMs,
    cache: {
      status,
      etag: entry.etag,
      ageSeconds: Math.max(0, Math.floor((at - entry.computedAt) / 1000)),
      maxAgeSeconds: status === 'STALE' ? 0 : Math.max(0, Math.floor((entry.computedAt + ttlMs - at) / 1000)),
    },
  });

  /** The entry for `key` if it is fresh at `at`. */
  const freshEntry = (endpoint: CompiledEndpoint, key: string, ttlMs: number, at: number): CacheEntry | undefined => {
    useVersion(endpoint);
    const entry = store.get(key);
    return entry && at < entry.computedAt + ttlMs ? entry : undefined;
  };

  return {
    async fetch(endpoint, parts, compute) {
      const { cache } = endpoint.definition;
      if (cache === false) return compute(options.clock());
      const request: Cached = {
        endpoint,
        key: cacheKey(endpoint, parts),
        ttlMs: cache.ttl_seconds * 1000,
        warmEveryMs: cache.warm_every_seconds === undefined ? undefined : cache.warm_every_seconds * 1000,
        compute,
      };
      const at = now();
      const entry = freshEntry(endpoint, request.key, request.ttlMs, at);
      if (entry) {
        keepWarm(request);
        return describe(entry, 'HIT', request.ttlMs, at);
      }
      const settled = await flight(request);
      keepWarm(request);
      return describe(settled.entry, settled.status, request.ttlMs, now(), settled.backendMs);
    },
    peek(endpoint, key) {
      const { cache } = endpoint.definition;
      if (cache === false) return undefined;
      const ttlMs = cache.ttl_seconds * 1000;
      const at = now();
      const entry = freshEntry(endpoint, key, ttlMs, at);
      // Starting to warm a key needs the query, which only fetch has.
      if (!entry || (cache.warm_every_seconds !== undefined && !warmer.touch(key, at))) return undefined;
      return describe(entry, 'HIT', ttlMs, at);
    },
    dropEndpoint(id) {
      store.deleteEndpoint(id);
      versions.delete(id);
      if (lastCurrent?.definition.id === id) lastCurrent = undefined;
    },
    close: () => warmer.close(),
  };
}
