/**
 * The shared tier's store: what every replica of a deployment reaches (Redis or Valkey, in
 * stores/redis/), behind each replica's in-process tier. The read-through layer decides what
 * to ask of it; an implementation only keeps entries, locks, leases and notifications.
 *
 * Keys are named by `name` (sharedName below): the endpoint's id and version and a hash of the
 * rest of the cache key, so entries of a changed endpoint are never read again and expire.
 */
import { createHash } from 'node:crypto';
import type { CompiledEndpoint } from '../../compiled-endpoint.js';

/** A result as the shared store keeps it. */
export interface StoredResult {
  /** The encoded response body, as every replica sends it. */
  body: Uint8Array;
  rows: number;
  /** Kept with the body, so every replica answers the same ETag for it. */
  etag: string;
  /** Execution time of the query that produced it (ms since the epoch): every replica's Age. */
  computedAt: number;
  /** Fresh for this long after computedAt. */
  ttlMs: number;
}

/** What claiming a key found. */
export type Claim =
  /** A fresh entry: nothing to run. */
  | { kind: 'fresh'; result: StoredResult }
  /** The key's fill lock is this replica's: it runs the query. `previous` is the entry there was, if any. */
  | { kind: 'locked'; lock: FillLock; previous: StoredResult | undefined }
  /** Another replica holds the fill lock: it runs the query. */
  | { kind: 'busy'; previous: StoredResult | undefined };

/**
 * A key's fill lock, held while its query runs. It expires on its own (the holder keeps it alive
 * while it runs), so a replica that dies mid-query hands the key over.
 */
export interface FillLock {
  /** Keeps `result` (unless a newer one is there), releases the lock and tells every replica. */
  fill(result: StoredResult): Promise<void>;
  /** Releases the lock and tells every replica that the query failed. */
  fail(): Promise<void>;
}

/** A result stored or a query failed, on any replica (this one too). */
export interface Settlement {
  name: string;
  filled: boolean;
  /** The stored result's computedAt; 0 for a failure. */
  computedAt: number;
}

export interface SharedStore {
  /** What backs it, for /health and logs (never the URL: it may carry a password). */
  readonly kind: string;
  /**
   * At `now`: the fresh entry if there is one (unless `force`: a warming refresh runs anyway);
   * else the key's fill lock if it is free; else word that another replica holds it.
   */
  claim(name: string, now: number, force: boolean): Promise<Claim>;
  get(name: string): Promise<StoredResult | undefined>;
  /** Whether some replica holds the key's fill lock. */
  locked(name: string): Promise<boolean>;
  /**
   * Takes the key's refresh lease for `ms`, or renews it if this replica holds it; false when
   * another replica does. One replica refreshes a warmed key per period.
   */
  lease(name: string, ms: number): Promise<boolean>;
  /** Answers when the store does. */
  ping(): Promise<void>;
  /** Told about every settlement any replica publishes, for as long as the store is open. */
  onSettled(listener: (settlement: Settlement) => void): void;
  close(): Promise<void>;
}

/** The key's name in the shared store: endpoint id, version, and a fixed-length hash of the whole key. */
export function sharedName(endpoint: CompiledEndpoint, key: string): string {
  const digest = createHash('sha256').update(key).digest('base64url').slice(0, 32);
  return `${endpoint.definition.id}:${endpoint.version}:${digest}`;
}
