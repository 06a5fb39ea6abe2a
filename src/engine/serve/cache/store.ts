/**
 * The result cache's store: encoded response bodies under their cache keys, bounded by bytes,
 * least recently used out first. It knows nothing of time or endpoints' settings: freshness is
 * decided by the read-through layer (read-through.ts), which owns the policy.
 */
import { createHash } from 'node:crypto';

export interface CacheEntry {
  readonly key: string;
  /** The endpoint it belongs to, so a new version of the endpoint can drop all of its entries. */
  readonly endpointId: string;
  /** The response body exactly as sent: a hit writes these bytes and re-serialises nothing. */
  readonly body: Uint8Array;
  /** Rows in the body, for the request log. */
  readonly rows: number;
  /** Strong validator of the body: equal bytes, equal ETag, so a refresh that changes nothing keeps clients' 304s. */
  readonly etag: string;
  /** Execution time of the query that produced it (ms since the epoch). */
  readonly computedAt: number;
  /** Bytes charged against the cap: the body and the key (a sandbox key carries its SQL). */
  readonly size: number;
}

export function cacheEntry(key: string, endpointId: string, result: { body: Uint8Array; rows: number }, computedAt: number): CacheEntry {
  const digest = createHash('sha256').update(result.body).digest('base64url').slice(0, 27);
  return storedEntry(key, endpointId, { ...result, etag: `"${digest}"`, computedAt });
}

/** An entry computed elsewhere (another replica, by way of the shared store), with the ETag it was given there. */
export function storedEntry(key: string, endpointId: string, result: { body: Uint8Array; rows: number; etag: string; computedAt: number }): CacheEntry {
  const { body, rows, etag, computedAt } = result;
  return { key, endpointId, body, rows, etag, computedAt, size: body.byteLength + Buffer.byteLength(key) };
}

export interface CacheStore {
  /** The entry, marked as just used. */
  get(key: string): CacheEntry | undefined;
  /** The entry, without marking it used (a look that is not a request's). */
  peek(key: string): CacheEntry | undefined;
  has(key: string): boolean;
  /**
   * Stores `entry`. Replacing an entry keeps its place in the LRU order (a refresh is not a use);
   * a new key goes in as most recently used. Least recently used entries are evicted until the
   * total fits; an entry larger than the whole cap is not stored, and the key's older entry goes.
   */
  set(entry: CacheEntry): void;
  /** Drops every entry of an endpoint. */
  deleteEndpoint(endpointId: string): void;
  /** Bytes held. */
  readonly bytes: number;
  /** Entries held. */
  readonly size: number;
}

export interface CacheStoreOptions {
  maxBytes: number;
  /** Told about each key that leaves the store without being replaced (evicted, oversized or dropped). */
  onRemove?: (key: string, entry: CacheEntry) => void;
}

export function createCacheStore(options: CacheStoreOptions): CacheStore {
  // A Map iterates in insertion order, so its first key is the least recently used one.
  const entries = new Map<string, CacheEntry>();
  let bytes = 0;
  const onRemove = options.onRemove ?? (() => {});

  const remove = (entry: CacheEntry) => {
    entries.delete(entry.key);
    bytes -= entry.size;
    onRemove(entry.key, entry);
  };

  return {
    get(key) {
      const entry = entries.get(key);
      if (entry) {
        entries.delete(key);
        entries.set(key, entry);
      }
      return entry;
    },
    peek: (key) => entries.get(key),
    has: (key) => entries.has(key),
    set(entry) {
      const previous = entries.get(entry.key);
      if (entry.size > options.maxBytes) {
        if (previous) remove(previous);
        return;
      }
      entries.set(entry.key, entry);
      bytes += entry.size - (previous?.size ?? 0);
      for (const oldest of entries.values()) {
        if (bytes <= options.maxBytes) break;
        remove(oldest);
      }
    },
    deleteEndpoint(endpointId) {
      for (const entry of entries.values()) if (entry.endpointId === endpointId) remove(entry);
    },
    get bytes() {
      return bytes;
    },
    get size() {
      return entries.size;
    },
  };
}
