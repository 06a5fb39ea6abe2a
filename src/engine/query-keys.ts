/**
 * The cache keys of query strings already read. Nearly every cache hit repeats a query string
 * seen before, and reading one again (splitting it, validating each parameter, building the key)
 * took about 2 µs of a hit's JavaScript; a lookup here takes a tenth of that.
 *
 * A query string's key depends on nothing but the endpoint's definition (its version names it),
 * the string itself and the redaction flag: reading parameters is a pure function. So an
 * entry stays right until it is pushed out. Only strings that read without error are kept, and
 * only short ones (a long one is usually a sandbox query, which a hit does not repeat much):
 * memory stays within MAX_ENTRIES x MAX_QUERY_LENGTH, oldest out first.
 */
import { cacheKey } from './cache-key.js';
import { readRequestParams } from './params.js';
import type { CompiledEndpoint } from './types.js';

/** Query strings remembered, across endpoints. */
const MAX_ENTRIES = 4096;
/** Characters of the longest query string remembered. */
const MAX_QUERY_LENGTH = 1024;

export interface QueryKeys {
  /** The cache key of `query` (form-encoded, without `?`); throws what reading its parameters throws. */
  keyOf(endpoint: CompiledEndpoint, query: string, redactPii: boolean): string;
}

export function createQueryKeys(): QueryKeys {
  // One map for every endpoint, so that the cap bounds them all.
  const keys = new Map<string, string>();
  return {
    keyOf(endpoint, query, redactPii) {
      if (query.length > MAX_QUERY_LENGTH) return read(endpoint, query, redactPii);
      // A version is a fixed-length hash of the whole definition, id included.
      const memoKey = `${redactPii ? 'r' : '-'}${endpoint.version}${query}`;
      let key = keys.get(memoKey);
      if (key === undefined) {
        key = read(endpoint, query, redactPii);
        if (keys.size >= MAX_ENTRIES) keys.delete(keys.keys().next().value!);
        keys.set(memoKey, key);
      }
      return key;
    },
  };
}

function read(endpoint: CompiledEndpoint, query: string, redactPii: boolean): string {
  const { values, sql } = readRequestParams(endpoint.definition, new URLSearchParams(query));
  return cacheKey(endpoint, { values, sql, redactPii });
}
