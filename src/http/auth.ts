/** API keys: `X-API-KEY: <key>` or `Authorization: Bearer <key>`, compared in constant time. */
import { hash, timingSafeEqual } from 'node:crypto';
import { CanneryError } from '../engine/errors.js';

export type KeyCheck = (headers: Headers) => void;

/** Hashing first gives equal-length buffers, so the comparison's time says nothing about the key. */
function digest(value: string): Buffer {
  // One-shot hash: it runs on every request, and a Hash object costs three times as much.
  return hash('sha256', value, 'buffer');
}

export function apiKeyCheck(keys: readonly string[]): KeyCheck {
  const digests = keys.map(digest);
  return (headers) => {
    const presented = presentedKey(headers);
    if (presented === undefined) {
      throw new CanneryError('unauthorized', 'missing API key: send it as X-API-KEY: <key> or Authorization: Bearer <key>');
    }
    const candidate = digest(presented);
    // Compare against every key, without stopping early.
    let matched = false;
    for (const key of digests) matched = timingSafeEqual(candidate, key) || matched;
    if (!matched) throw new CanneryError('unauthorized', 'invalid API key');
  };
}

function presentedKey(headers: Headers): string | undefined {
  const apiKey = headers.get('x-api-key');
  if (apiKey) return apiKey.trim();
  const authorization = headers.get('authorization');
  const bearer = authorization ? /^Bearer\s+(.+)$/i.exec(authorization.trim()) : null;
  return bearer ? bearer[1]!.trim() : undefined;
}
