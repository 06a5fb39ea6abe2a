/**
 * What one request did, filled in while it is served and read when its response is ready: the
 * request log line and the metrics both come from it. It lives in the h3 event's context.
 */
import type { H3Event } from 'h3';
import type { CacheStatus } from '../engine/serve/cache/read-through.js';
import type { CanneryError } from '../core/errors.js';
import type { QueryOutcome } from '../engine/serve/service.js';

export interface RequestRecord {
  /** performance.now() when the request arrived. */
  readonly started: number;
  /** The name of the caller's key or token, once it was recognised; never the key or token. */
  key?: string;
  /** The endpoint's name, once the request resolved one. */
  endpoint?: string;
  /** The source an ingest request sends to, once it named a declared one. */
  source?: string;
  cache?: CacheStatus;
  /** Rows in the answer. */
  rows?: number;
  /** The backend's time for the query the answer waited for. */
  backendMs?: number;
  /** The sandbox query, as sent. */
  sql?: string;
  /** What the caller was answered with, when it was an error. */
  error?: CanneryError;
}

declare module 'h3' {
  interface H3EventContext {
    record?: RequestRecord;
  }
}

export function newRecord(): RequestRecord {
  return { started: performance.now() };
}

export function recordOf(event: H3Event): RequestRecord {
  return (event.context.record ??= newRecord());
}

/** What the service answered: how the cache did, the rows, and the backend's time. */
export function recordOutcome(record: RequestRecord, outcome: QueryOutcome): void {
  record.cache = outcome.cache?.status;
  record.rows = outcome.rows;
  record.backendMs = outcome.backendMs;
}
