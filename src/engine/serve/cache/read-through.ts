/**
 * The read-through result cache between the service and the backend: freshness, single flight,
 * stale results when a refresh fails, invalidation on a new endpoint version, and warming.
 *
 * An entry is fresh for ttl after its query's execution time. A request for a key that is not
 * fresh runs the query once however many requests wait for it; if that fails and the previous
 * entry is less than ttl past its freshness, the previous entry is served as STALE (and the
 * failure logged) instead of the error. Errors are never stored.
 *
 * With a shared store (CANNERY_CACHE_URL), the in-process store is a small tier in front of it,
 * and what holds within a process holds across replicas: a key missed everywhere runs one query
 * (cluster-flight.ts), a warmed key is refreshed by the one replica holding its refresh lease,
 * and every replica serves the one stored entry, so they agree on its ETag and Age. An entry
 * taken from the shared store is answered from the process for at most `localCheckMs` before the
 * store is asked again; a replica's notification that it stored a newer one ends that at once.
 * While the store is down (shared-tier.ts) the in-process tier is the whole cache, as without one.
 */
import { cacheEntry, createCacheStore, storedEntry, type CacheEntry } from './store.js';
import { cacheKey, type CacheKeyParts } from './key.js';
import type { CompiledEndpoint } from '../../compiled-endpoint.js';
import { createWarmer, type Timers } from './warming.js';
import { createClusterFlight, type ClusterOutcome } from './cluster-flight.js';
import { sharedName, type FillLock, type StoredResult } from './shared-store.js';
import { StoreUnavailable, type SharedHealth, type SharedTier } from './shared-tier.js';

export type CacheStatus = 'HIT' | 'MISS' | 'STALE';

/**
 * Where a cached endpoint's answer came from: this process's tier, the shared store, another
 * replica's query (waited for), or a query run here (a miss, whatever its outcome).
 */
export type CacheSource = 'local_hit' | 'shared_hit' | 'peer_wait' | 'miss';

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
  /** Told where each answer of a cached endpoint came from. */
  onAnswered: (endpointName: string, source: CacheSource) => void;
  /** The shared tier; absent: the in-process store is the whole cache. */
  shared?: SharedCacheOptions;
}

export interface SharedCacheOptions {
  tier: SharedTier;
  /** The longest a request waits for another replica's query before running it itself. */
  peerWaitMs: number;
  /** How often a waiting replica checks that the query's holder is alive. */
  pollMs: number;
  /** How long an entry from the shared store is answered from the process before asking the store again. */
  localCheckMs: number;
}

export interface CacheLayer {
  /**
   * The answer to a request: from the cache when the endpoint has one, else computed now. A fresh
   * hit in this process is answered at once, not as a promise: most hits need nothing to wait for.
   */
  fetch(endpoint: CompiledEndpoint, parts: CacheKeyParts, compute: Compute): LayerResult | Promise<LayerResult>;
  /** Drops every entry of an endpoint (changed or deleted), which also stops their warming. */
  dropEndpoint(id: string): void;
  /** The shared tier's state; undefined without one. */
  sharedHealth(): SharedHealth | undefined;
  /** Stops warming; waits for refreshes in flight; closes the shared store. */
  close(): Promise<void>;
}

interface Settled {
  entry: CacheEntry;
  status: CacheStatus;
  source: CacheSource;
  /** The backend's time for a new result. */
  backendMs?: number;
}

interface Cached {
  endpoint: CompiledEndpoint;
  key: string;
  ttlMs: number;
  warmEveryMs: number | undefined;
  compute: Compute;
  /** The key's name in the shared store, made when first needed. */
  name?: string;
}

/** What the process knows of an entry it holds that is in the shared store too. */
interface SharedCopy {
  name: string;
  /** Until when (ms) it is answered without asking the store. */
  checkAt: number;
}

/**
 * A warmed key's refresh lease outlasts its period by half a period (at least a second): the
 * holder renews it at each refresh, before it lapses, and another replica takes it over only once
 * the holder has missed a refresh.
 */
function leaseMs(everyMs: number): number {
  return everyMs + Math.max(everyMs / 2, 1000);
}

export function createCacheLayer(options: CacheLayerOptions): CacheLayer {
  const now = options.now;
  const { shared } = options;
  const warmer = createWarmer({
    now,
    timers: options.timers,
    concurrency: options.warmConcurrency,
    // Jobs report their own failures (keepWarm); this is for one that throws anyway.
    onError: (_key, error) => options.log('cache: a warming job failed', error),
  });
  // Entries this process holds that are in the shared store too, and their names there: the
  // store's notifications name keys that way.
  const copies = new WeakMap<CacheEntry, SharedCopy>();
  const keysByName = new Map<string, string>();
  // An entry that leaves the store is no longer warmed: warming keeps entries fresh, it does not
  // bring back what the memory cap pushed out (a request will).
  const store = createCacheStore({
    maxBytes: options.maxBytes,
    onRemove: (key, entry) => {
      warmer.forget(key);
      const copy = copies.get(entry);
      if (copy && keysByName.get(copy.name) === key) keysByName.delete(copy.name);
    },
  });
  const flights = new Map<string, Promise<Settled>>();
  // The version of each endpoint the cache holds results for.
  const versions = new Map<string, string>();
  const cluster = shared && createClusterFlight({ tier: shared.tier, peerWaitMs: shared.peerWaitMs, pollMs: shared.pollMs });
  shared?.tier.store.onSettled((settlement) => {
    cluster!.settled(settlement);
    // Another replica stored a newer result: the copy here is asked about again on its next request.
    const key = keysByName.get(settlement.name);
    const entry = key === undefined ? undefined : store.peek(key);
    const copy = entry && copies.get(entry);
    if (copy && settlement.filled && entry.computedAt < settlement.computedAt) copy.checkAt = 0;
  });

  const isCurrent = (endpoint: CompiledEndpoint) => versions.get(endpoint.definition.id) === endpoint.version;
  const useVersion = (endpoint: CompiledEndpoint) => {
    if (isCurrent(endpoint)) return;
    const { id } = endpoint.definition;
    if (versions.has(id)) store.deleteEndpoint(id);
    versions.set(id, endpoint.version);
  };

  const nameOf = (request: Cached) => (request.name ??= sharedName(request.endpoint, request.key));

  /** Keeps `entry` in the process (only for the current version: a superseded one's answer is its callers' alone). */
  const keep = (request: Cached, entry: CacheEntry, inShared: boolean) => {
    if (!isCurrent(request.endpoint)) return;
    store.set(entry);
    if (!shared || !inShared) return;
    const name = nameOf(request);
    copies.set(entry, { name, checkAt: now() + shared.localCheckMs });
    keysByName.set(name, request.key);
  };

  const toStored = (entry: CacheEntry, ttlMs: number): StoredResult => ({
    body: entry.body,
    rows: entry.rows,
    etag: entry.etag,
    computedAt: entry.computedAt,
    ttlMs,
  });

  /** Tells the shared store how a query under its lock ended; a store that fails now is the tier's to note. */
  const settleLock = async (lock: FillLock | undefined, entry: CacheEntry | undefined, ttlMs: number): Promise<boolean> => {
    if (!lock || !shared) return false;
    try {
      await shared.tier.call(entry ? 'fill' : 'fail', () => (entry ? lock.fill(toStored(entry, ttlMs)) : lock.fail()));
      return entry !== undefined;
    } catch (error) {
      if (error instanceof StoreUnavailable) return false;
      throw error;
    }
  };

  /** The previous result to fall back on, of those known: the newest. */
  const newest = (one: CacheEntry | undefined, other: CacheEntry | undefined) =>
    one && other ? (one.computedAt >= other.computedAt ? one : other) : (one ?? other);

  /** `previous` as a STALE answer, if it is within ttl past its freshness. */
  const staleAnswer = (request: Cached, previous: CacheEntry | undefined, source: CacheSource, error: unknown): Settled | undefined => {
    const at = now();
    if (!previous || at >= previous.computedAt + 2 * request.ttlMs) return undefined;
    const age = Math.floor((at - previous.computedAt) / 1000);
    options.log(`cache: refreshing ${request.endpoint.definition.name} failed; serving its previous result (${age} s old) as stale`, error);
    return { entry: previous, status: 'STALE', source };
  };

  const runQuery = async (request: Cached, lock?: FillLock, sharedPrevious?: CacheEntry): Promise<Settled> => {
    const { endpoint, key } = request;
    const executedAt = options.clock();
    let computed: Computed;
    try {
      computed = await request.compute(executedAt);
    } catch (error) {
      await settleLock(lock, undefined, request.ttlMs);
      const stale = staleAnswer(request, newest(store.get(key), sharedPrevious), 'miss', error);
      if (stale) return stale;
      throw error;
    }
    const entry = cacheEntry(key, endpoint.definition.id, computed, executedAt.getTime());
    keep(request, entry, await settleLock(lock, entry, request.ttlMs));
    return { entry, status: 'MISS', source: 'miss', backendMs: computed.backendMs };
  };

  const fromStored = (request: Cached, result: StoredResult) => storedEntry(request.key, request.endpoint.definition.id, result);

  /** The key through the shared tier: its entry there, a peer's result, or a query run here. */
  const throughShared = async (request: Cached, force: boolean): Promise<Settled> => {
    let outcome: ClusterOutcome;
    try {
      outcome = await cluster!.resolve(nameOf(request), now, force);
    } catch (error) {
      if (error instanceof StoreUnavailable) return runQuery(request);
      throw error;
    }
    if (outcome.kind !== 'run') {
      const entry = fromStored(request, outcome.result);
      keep(request, entry, true);
      return outcome.kind === 'fresh' ? { entry, status: 'HIT', source: 'shared_hit' } : { entry, status: 'MISS', source: 'peer_wait' };
    }
    const previous = outcome.previous && fromStored(request, outcome.previous);
    if (outcome.peerFailed) {
      const stale = staleAnswer(request, newest(store.get(request.key), previous), 'peer_wait', 'the replica that ran the query failed');
      if (stale) return stale;
    }
    // A result this process kept while the store was away, still fresh: stored, it answers the
    // other replicas too, and no query runs.
    const local = store.get(request.key);
    if (outcome.lock && !force && local && now() < local.computedAt + request.ttlMs) {
      keep(request, local, await settleLock(outcome.lock, local, request.ttlMs));
      return { entry: local, status: 'HIT', source: 'local_hit' };
    }
    return runQuery(request, outcome.lock, previous);
  };

  /**
   * One query per key at a time in this process: later callers (requests or warming) join the
   * one running. `force` (warming) asks for a new result even over a fresh shared entry.
   */
  const flight = (request: Cached, force: boolean): Promise<Settled> => {
    const running = flights.get(request.key);
    if (running) return running;
    const started = shared?.tier.up ? throughShared(request, force) : runQuery(request);
    flights.set(request.key, started);
    const release = () => {
      if (flights.get(request.key) === started) flights.delete(request.key);
    };
    started.then(release, release);
    return started;
  };

  /**
   * With a shared store, the replica holding the key's refresh lease refreshes it; the others
   * leave it to that one. A store that cannot say leaves it to this one.
   */
  const holdsLease = async (request: Cached, everyMs: number): Promise<boolean> => {
    if (!shared?.tier.up) return true;
    try {
      return await shared.tier.call('lease', (store) => store.lease(nameOf(request), leaseMs(everyMs)));
    } catch {
      return true;
    }
  };

  /** Only a key with an entry is warmed: a query that fails on a cold key is not retried in the background. */
  const keepWarm = (request: Cached) => {
    if (request.warmEveryMs === undefined || !store.has(request.key)) return;
    const everyMs = request.warmEveryMs;
    warmer.requested(request.key, {
      everyMs,
      activeForMs: request.ttlMs,
      run: async () => {
        const { name } = request.endpoint.definition;
        if (!(await holdsLease(request, everyMs))) return;
        try {
          const settled = await flight(request, true);
          options.onWarmed(name, settled.status === 'MISS');
          // Renewed from the refresh's end, as the next one is scheduled from it.
          await holdsLease(request, everyMs);
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

  /**
   * The entry for `key` if it is fresh at `at` and the process may answer it: with a shared store
   * that is up, a copy of its entry only until its check time.
   */
  const freshEntry = (endpoint: CompiledEndpoint, key: string, ttlMs: number, at: number): CacheEntry | undefined => {
    useVersion(endpoint);
    const entry = store.get(key);
    if (!entry || at >= entry.computedAt + ttlMs) return undefined;
    if (shared?.tier.up && !(at < (copies.get(entry)?.checkAt ?? 0))) return undefined;
    return entry;
  };

  return {
    fetch(endpoint, parts, compute) {
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
        options.onAnswered(endpoint.definition.name, 'local_hit');
        return describe(entry, 'HIT', request.ttlMs, at);
      }
      return flight(request, false).then((settled) => {
        keepWarm(request);
        options.onAnswered(endpoint.definition.name, settled.source);
        return describe(settled.entry, settled.status, request.ttlMs, now(), settled.backendMs);
      });
    },
    dropEndpoint(id) {
      store.deleteEndpoint(id);
      versions.delete(id);
    },
    sharedHealth: () => shared?.tier.health(),
    async close() {
      await warmer.close();
      await shared?.tier.close();
    },
  };
}
