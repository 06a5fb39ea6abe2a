/**
 * What the engine reports while it works, for metrics: backend queries and cache warming, which
 * no single request sees whole (one backend query answers every request that waits for it).
 * Calls are synchronous and must stay cheap; nothing here changes what a request gets.
 */
import type { ErrorCode } from '../../core/errors.js';
import type { CacheSource } from './cache/read-through.js';

export interface EngineObserver {
  /** Backend queries running, and waiting for a slot, after each change. */
  backendLoad(running: number, queued: number): void;
  /** A backend query finished: the backend's own time in ms, and the rows it returned. */
  backendQuery(endpoint: string, ms: number, rows: number): void;
  /** A backend query failed after `ms`, with `code`. */
  backendFailure(endpoint: string, ms: number, code: ErrorCode): void;
  /** A warming refresh ended; `ok` is false when it failed (a previous result, if any, stays). */
  warmed(endpoint: string, ok: boolean): void;
  /** Where an answer of a cached endpoint came from (once per request: cache hits call this too). */
  cacheAnswered(endpoint: string, source: CacheSource): void;
  /** A call to the shared cache store failed (timed out, lost its connection, got an error). */
  sharedStoreError(operation: string): void;
  /** The shared cache store is in use (true) or down (false); told at the start and on each change. */
  sharedStoreAvailable(up: boolean): void;
}

export const UNOBSERVED: EngineObserver = {
  backendLoad() {},
  backendQuery() {},
  backendFailure() {},
  warmed() {},
  cacheAnswered() {},
  sharedStoreError() {},
  sharedStoreAvailable() {},
};
