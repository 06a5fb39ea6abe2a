/**
 * API keys: the unscoped keys of CANNERY_API_KEYS, each compared as it is in constant time; and
 * the scoped keys of the keys file, by their SHA-256. The presented key's digest is looked up
 * among the stored digests, so a file of ten thousand tenants costs what a file of one does, and
 * the digest found is compared in constant time. A lookup's timing could tell something of the
 * digest, which the caller computed from its own input: it tells nothing of any stored key.
 */
import { hash } from 'node:crypto';
import { EVERY_ENDPOINT, type KeyEntry } from '../config/keys-file.js';
import { CanneryError } from '../core/errors.js';
import { grantOf, type Grant } from './grant.js';

/** The grant of a presented key; undefined when it is none of these keys. */
export type KeyMatch = (presented: string, nowMs: number) => Grant | undefined;

/** CANNERY_API_KEYS: each may run everything; it is named by its place in the list (`api-key-1`). */
export function unscopedKeys(keys: readonly string[]): KeyMatch {
  const grants = keys.map((_, index) => grantOf(`api-key-${index + 1}`, [{ endpoint: EVERY_ENDPOINT, params: {} }], undefined, `api-key-${index + 1}`));
  return (presented) => {
    // Every key is compared, whichever matches.
    let matched: Grant | undefined;
    for (let index = 0; index < keys.length; index++) if (sameInConstantTime(presented, keys[index]!)) matched = grants[index];
    return matched;
  };
}

/**
 * Whether `presented` equals `key`, in a time that depends on the key's length only: every
 * character is compared, differences are OR-ed together, nothing stops early (what Go's
 * subtle.ConstantTimeCompare does). Not SHA-256 and timingSafeEqual: that costs 1.5 µs, a tenth of
 * a cache hit's whole budget (bench/cache-hits.ts), for the same guarantee.
 */
function sameInConstantTime(presented: string, key: string): boolean {
  let difference = presented.length ^ key.length;
  for (let index = 0; index < key.length; index++) {
    // Past the end of a shorter `presented`, charCodeAt is NaN, and `NaN | 0` is 0; the
    // lengths already differ then.
    difference |= (presented.charCodeAt(index) | 0) ^ key.charCodeAt(index);
  }
  return difference === 0;
}

interface ScopedKey {
  /** The SHA-256, one character per byte ('binary', which is latin1): a map key, and comparable as a string. */
  digest: string;
  grant: Grant;
  expiresAt: number | undefined;
}

/** The keys file's keys: the presented key's SHA-256 among the stored ones. An expired key is a 401 saying so. */
export function scopedKeys(entries: readonly KeyEntry[]): KeyMatch {
  const keys = new Map<string, ScopedKey>();
  for (const entry of entries) {
    const digest = Buffer.from(entry.sha256, 'hex').toString('binary');
    keys.set(digest, {
      digest,
      grant: grantOf(entry.name, entry.endpoints.map((endpoint) => ({ endpoint, params: entry.params })), entry.ratePerSecond, `key ${entry.name}`, entry.ingest),
      expiresAt: entry.expiresAt,
    });
  }
  if (keys.size === 0) return () => undefined;
  return (presented, nowMs) => {
    // The one-shot hash: a Hash object per request would cost several times as much.
    const digest = hash('sha256', presented, 'binary');
    const found = keys.get(digest);
    if (!found || !sameInConstantTime(digest, found.digest)) return undefined;
    if (found.expiresAt !== undefined && nowMs >= found.expiresAt) {
      throw new CanneryError('unauthorized', `API key ${found.grant.name} expired at ${new Date(found.expiresAt).toISOString()}`);
    }
    return found.grant;
  };
}

/** The hex SHA-256 of a key: what the keys file stores. */
export function keyDigest(key: string): string {
  return hash('sha256', key, 'hex');
}
