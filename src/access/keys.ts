/**
 * API keys: the unscoped keys of CANNERY_API_KEYS, compared as they are, and the scoped keys of
 * the keys file, compared by their SHA-256. Both in constant time: every key is compared, and
 * nothing stops at the first difference.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
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
  digest: Buffer;
  grant: Grant;
  expiresAt: number | undefined;
}

/** The keys file's keys: the presented key's SHA-256 against each stored one. An expired key is a 401 saying so. */
export function scopedKeys(entries: readonly KeyEntry[]): KeyMatch {
  const keys: ScopedKey[] = entries.map((entry) => ({
    digest: Buffer.from(entry.sha256, 'hex'),
    grant: grantOf(entry.name, entry.endpoints.map((endpoint) => ({ endpoint, params: entry.params })), entry.ratePerSecond, `key ${entry.name}`),
    expiresAt: entry.expiresAt,
  }));
  if (keys.length === 0) return () => undefined;
  return (presented, nowMs) => {
    const digest = createHash('sha256').update(presented).digest();
    let matched: ScopedKey | undefined;
    for (const key of keys) if (timingSafeEqual(digest, key.digest)) matched = key;
    if (matched?.expiresAt !== undefined && nowMs >= matched.expiresAt) {
      throw new CanneryError('unauthorized', `API key ${matched.grant.name} expired at ${new Date(matched.expiresAt).toISOString()}`);
    }
    return matched?.grant;
  };
}

/** The hex SHA-256 of a key: what the keys file stores. */
export function keyDigest(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}
