/**
 * The cache keys of query strings already read. Nearly every cache hit repeats a query string
 * seen before, and reading one again (splitting it, validating each parameter, building the key)
 * took about 2 µs of a hit's JavaScript; a lookup here takes a tenth of that.
 *
 * A query string's key depends on nothing but the endpoint's definition (its version names it),
 * the string itself and the redaction flag: reading parameters is a pure function. So an
 * entry stays right until it is pushed out. Only strings that read without error are kept, and
 * only short ones (a long one is usually a sandbox query, which a hit does not repeat much):
 * memory stays within MAX_ENTRIES query strings of MAX_QUERY_LENGTH, each with MAX_READINGS
 * keys, oldest string out first.
 */
import { cacheKey } from './key.js';
import { readRequestParams } from '../params.js';
import type { CompiledEndpoint } from '../../compiled-endpoint.js';

/** Query strings remembered, across endpoints. */
const MAX_ENTRIES = 4096;
/** Characters of the longest query string remembered. */
const MAX_QUERY_LENGTH = 1024;
/**
 * Readings kept per query string. One string is nearly always read for one endpoint, with and
 * without redaction at most; a few more cover a reload (a new version) and two endpoints that
 * share parameters.
 */
const MAX_READINGS = 4;

export interface QueryKeys {
  /** The cache key of `query` (form-encoded, without `?`); throws what reading its parameters throws. */
  keyOf(endpoint: CompiledEndpoint, query: string, redactPii: boolean): string;
}

/** A query string's key for one endpoint version and redaction flag. */
interface Reading {
  /** A fixed-length hash of the whole definition, id included: it names the endpoint too. */
  version: string;
  redactPii: boolean;
  key: string;
}

export function createQueryKeys(): QueryKeys {
  // Looked up by the query string alone: a key made of version, flag and query would be a new
  // string on every request, to be joined, copied and hashed (a fifth of a hit's JavaScript).
  // One map for every endpoint, so that the cap bounds them all.
  const readings = new Map<string, Reading[]>();
  return {
    keyOf(endpoint, query, redactPii) {
      if (query.length > MAX_QUERY_LENGTH) return read(endpoint, query, redactPii);
      return remembered(endpoint, query, redactPii).key;
    },
  };

  /** The reading of `query` for this version and flag, read now if it is not kept. */
  function remembered(endpoint: CompiledEndpoint, query: string, redactPii: boolean): Reading {
    const { version } = endpoint;
    let known = readings.get(query);
    if (known !== undefined) {
      for (const reading of known) if (reading.version === version && reading.redactPii === redactPii) return reading;
    }
    const reading: Reading = { version, redactPii, key: read(endpoint, query, redactPii) };
    if (known === undefined) {
      if (readings.size >= MAX_ENTRIES) readings.delete(readings.keys().next().value!);
      readings.set(query, (known = []));
    } else if (known.length >= MAX_READINGS) {
      known.shift();
    }
    known.push(reading);
    return reading;
  }
}

function read(endpoint: CompiledEndpoint, query: string, redactPii: boolean): string {
  const { values, sql } = readRequestParams(endpoint.definition, new URLSearchParams(query));
  return cacheKey(endpoint, { values, sql, redactPii });
}
