/** API keys: `X-API-KEY: <key>` or `Authorization: Bearer <key>`, compared in constant time. */
import { CanneryError } from '../core/errors.js';

/** The part of a request's fetch Headers the check reads. */
export interface HeaderReader {
  /** The header named `name`, given in lowercase; null when absent. */
  get(name: string): string | null;
}

export type KeyCheck = (headers: HeaderReader) => void;

export function apiKeyCheck(keys: readonly string[]): KeyCheck {
  return (headers) => {
    const presented = presentedKey(headers);
    if (presented === undefined) {
      throw new CanneryError('unauthorized', 'missing API key: send it as X-API-KEY: <key> or Authorization: Bearer <key>');
    }
    // Compare against every key, without stopping early.
    let matched = false;
    for (const key of keys) matched = sameInConstantTime(presented, key) || matched;
    if (!matched) throw new CanneryError('unauthorized', 'invalid API key');
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

function presentedKey(headers: HeaderReader): string | undefined {
  const apiKey = headers.get('x-api-key');
  if (apiKey) return apiKey.trim();
  const authorization = headers.get('authorization');
  const bearer = authorization ? /^Bearer\s+(.+)$/i.exec(authorization.trim()) : null;
  return bearer ? bearer[1]!.trim() : undefined;
}
