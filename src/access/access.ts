/**
 * Who is calling: a presented key or token -> its grant (401 when it is none), then the grant's
 * own rate (429). Keys are matched on the request's own tick; a token is verified once and its
 * grant kept until it expires, so a caller's later requests (a browser's, say) are matched on
 * their own tick too.
 */
import type { KeyEntry } from '../config/keys-file.js';
import { CanneryError } from '../core/errors.js';
import type { Grant } from './grant.js';
import { scopedKeys, unscopedKeys, type KeyMatch } from './keys.js';
import { createRates } from './rates.js';
import { looksLikeToken, tokenCheck, type TokenKeys, type VerifiedToken } from './tokens.js';

export interface AccessOptions {
  /** CANNERY_API_KEYS. */
  apiKeys: readonly string[];
  /** The keys file's entries (replaceKeys swaps them while serving). */
  keys?: readonly KeyEntry[];
  tokens?: TokenKeys;
  /** Milliseconds since the epoch; injectable for tests. */
  now?: () => number;
}

export interface Access {
  /**
   * The grant of a presented credential (undefined: none was sent): a 401 when it is none, a 429
   * with the seconds to wait when its rate is spent. `onGrant` hears of the grant before its rate
   * is checked, so a refused request is still told apart by its credential's name.
   */
  admit(presented: string | undefined, onGrant?: (grant: Grant) => void): Grant | Promise<Grant>;
  /** Serves `entries` as the scoped keys from the next request on: revoked keys stop here. */
  replaceKeys(entries: readonly KeyEntry[]): void;
}

/** Verified tokens kept; past this, the oldest is dropped (and verified again if it comes back). */
const MAX_TOKENS = 10_000;

export function createAccess(options: AccessOptions): Access {
  const now = options.now ?? Date.now;
  const unscoped = unscopedKeys(options.apiKeys);
  let scoped: KeyMatch = scopedKeys(options.keys ?? []);
  const checkToken = options.tokens && tokenCheck(options.tokens);
  const verified = new Map<string, VerifiedToken>();
  const rates = createRates();

  const paced = (grant: Grant, nowMs: number, onGrant: ((grant: Grant) => void) | undefined): Grant => {
    onGrant?.(grant);
    if (grant.ratePerSecond === undefined) return grant;
    const wait = rates.take(grant.rateKey, grant.ratePerSecond, nowMs);
    if (wait > 0) {
      throw new CanneryError('too_many_requests', `${grant.name} is limited to ${grant.ratePerSecond} requests per second; retry in ${wait} s`, { retryAfterSeconds: wait });
    }
    return grant;
  };

  /** A token verified before and still valid: looked up before a key is hashed, as its holder presents it on every request. */
  const knownToken = (presented: string, nowMs: number): Grant | undefined => {
    const known = checkToken && verified.get(presented);
    if (!known) return undefined;
    if (nowMs < known.expiresAt) return known.grant;
    verified.delete(presented);
    throw new CanneryError('unauthorized', 'token expired');
  };

  const verify = (presented: string): Promise<Grant> | undefined => {
    if (!checkToken || !looksLikeToken(presented)) return undefined;
    return checkToken(presented, now()).then((fresh) => {
      if (verified.size >= MAX_TOKENS) verified.delete(verified.keys().next().value!);
      verified.set(presented, fresh);
      return fresh.grant;
    });
  };

  return {
    admit(presented, onGrant) {
      if (presented === undefined) {
        throw new CanneryError('unauthorized', 'missing API key: send it as X-API-KEY: <key> or Authorization: Bearer <key>');
      }
      const nowMs = now();
      const known = unscoped(presented, nowMs) ?? knownToken(presented, nowMs) ?? scoped(presented, nowMs);
      if (known) return paced(known, nowMs, onGrant);
      const checking = verify(presented);
      if (!checking) throw new CanneryError('unauthorized', 'invalid API key');
      return checking.then((grant) => paced(grant, now(), onGrant));
    },
    replaceKeys(entries) {
      scoped = scopedKeys(entries);
    },
  };
}
