/**
 * The shared store as the cache uses it: every call bounded by a short timeout, and a failure
 * (a timeout, a lost connection, an error reply) marks the store down. While it is down no call
 * reaches it: the cache answers from the in-process tier and runs its own queries, and a probe
 * pings the store until it answers again. So a dead or slow store costs a request at most one
 * timeout, once, rather than one per request.
 */
import type { SharedStore } from './shared-store.js';

/** Thrown instead of a store call while the store is down, and by the call that finds it so. */
export class StoreUnavailable extends Error {}

export interface SharedHealth {
  /** What backs it (redis). */
  kind: string;
  up: boolean;
  /** When it last went up or down (ms since the epoch). */
  since: number;
  /** Why it went down, while it is. */
  error?: string;
}

export interface SharedTierOptions {
  store: SharedStore;
  /** The longest any call may take. */
  timeoutMs: number;
  /** How often a down store is pinged. */
  probeEveryMs: number;
  /** Whether the store answered when the service started. */
  up: boolean;
  /** Going down and coming back, one line each. */
  log: (message: string, error: unknown) => void;
  /** A failed call, for metrics. */
  onError: (operation: string) => void;
  /** After every change of state, and at the start. */
  onAvailability: (up: boolean) => void;
}

export interface SharedTier {
  readonly store: SharedStore;
  readonly up: boolean;
  /** Runs `operation` on the store within the timeout; throws StoreUnavailable when the store is or goes down. */
  call<T>(operation: string, run: (store: SharedStore) => Promise<T>): Promise<T>;
  health(): SharedHealth;
  /** Stops probing and closes the store. */
  close(): Promise<void>;
}

export function createSharedTier(options: SharedTierOptions): SharedTier {
  const { store, timeoutMs } = options;
  let up = options.up;
  let since = Date.now();
  let error: string | undefined;
  let probe: NodeJS.Timeout | undefined;
  let closed = false;

  const within = <T>(operation: string, work: Promise<T>): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${store.kind} ${operation} took more than ${timeoutMs} ms`)), timeoutMs);
      work.then(
        (value) => {
          clearTimeout(timer);
          resolve(value);
        },
        (failure: unknown) => {
          clearTimeout(timer);
          reject(failure);
        },
      );
    });

  const startProbing = () => {
    if (probe || closed) return;
    probe = setInterval(() => {
      within('ping', store.ping()).then(
        () => {
          if (closed || up) return;
          up = true;
          since = Date.now();
          error = undefined;
          clearInterval(probe);
          probe = undefined;
          options.log(`cache: the shared ${store.kind} store answers again; the shared tier is back in use`, undefined);
          options.onAvailability(true);
        },
        () => {},
      );
    }, options.probeEveryMs);
    probe.unref();
  };

  const down = (operation: string, failure: unknown) => {
    options.onError(operation);
    if (!up) return;
    up = false;
    since = Date.now();
    error = failure instanceof Error ? failure.message : String(failure);
    options.log(`cache: the shared ${store.kind} store failed (${operation}: ${error}); answering from the in-process cache until it is back`, undefined);
    options.onAvailability(false);
    startProbing();
  };

  options.onAvailability(up);
  if (!up) {
    error = `${store.kind} did not answer at start-up`;
    startProbing();
  }

  return {
    store,
    get up() {
      return up;
    },
    async call(operation, run) {
      if (!up) throw new StoreUnavailable(`the shared ${store.kind} store is down`);
      try {
        return await within(operation, run(store));
      } catch (failure) {
        down(operation, failure);
        throw new StoreUnavailable(`the shared ${store.kind} store failed`, { cause: failure });
      }
    },
    health: () => ({ kind: store.kind, up, since, ...(error === undefined ? {} : { error }) }),
    async close() {
      closed = true;
      clearInterval(probe);
      await store.close();
    },
  };
}
