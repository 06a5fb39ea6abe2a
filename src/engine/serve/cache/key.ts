/**
 * The cache key of a request: what can change the result, and nothing else. Unlike keying on the
 * raw query string, `?x=1` with an undeclared `x` never reaches here (it is a 400), parameter
 * order and spelling of a value do not matter, and the redaction header does.
 */
import type { BoundParams } from '../../../core/types.js';
import type { CompiledEndpoint } from '../../compiled-endpoint.js';

export interface CacheKeyParts {
  /** Declared parameters as readRequestParams normalised them; absent and empty are both null. */
  values: BoundParams;
  /** Sandbox SQL, verbatim; undefined when the caller sent none. */
  sql: string | undefined;
  /** Whether the rows are redacted: the endpoint's setting or the caller's header. */
  redactPii: boolean;
}

/**
 * By id, so calls by name and by UUID share entries; with the version, so a changed definition
 * never answers from the old one's results. Values go in the order the parameters are declared,
 * which the version fixes: whatever order the request gave them in, one key. Each value is a JSON
 * text, which ends where it ends whatever it holds, and the version fixes how many there are, so
 * two requests share a key only when they share every part. Built by concatenation: this runs on
 * every cache hit.
 */
export function cacheKey(endpoint: CompiledEndpoint, parts: CacheKeyParts): string {
  const { definition } = endpoint;
  let key = `${definition.id} ${endpoint.version} ${parts.redactPii ? 'redacted' : 'plain'}`;
  for (const name in definition.params) key += ` ${JSON.stringify(parts.values[name] ?? null)}`;
  return parts.sql === undefined ? key : `${key} sql ${JSON.stringify(parts.sql)}`;
}
