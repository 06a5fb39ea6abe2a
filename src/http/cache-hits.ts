/**
 * Cache hits, answered before h3 builds its event and routes. A hit needs no I/O, and answering
 * it on the request's own tick, outside h3's promise chain, roughly halves what it costs the
 * server (bench/cache-hits.ts).
 *
 * Only the plain case is taken: a GET of QUERY_PATH<name or UUID> without percent-encoding, with
 * a valid key, header, Accept and parameters, whose answer is a fresh hit. Everything else, every
 * error included, goes on to the h3 route, which takes the same steps in full and answers the
 * same way: this is a shortcut through one route, not a second one.
 */
import type { ServerRequest } from 'srvx';
import type { Service } from '../engine/service.js';
import type { KeyCheck } from './auth.js';
import { negotiate } from './formats.js';
import { QUERY_PATH } from './paths.js';
import { requestsRedaction } from './redaction-header.js';
import { recordOutcome, type RequestRecord } from './request-record.js';
import { resultResponse } from './result-response.js';

/** A last segment h3 would pass on unchanged: no percent-encoding, no further segments. */
const PLAIN_SEGMENT = /^[A-Za-z0-9._-]+$/;

/** The answer when the request is a plain cache hit, told to `record`; otherwise undefined. */
export type CacheHitAnswerer = (request: ServerRequest, url: URL, record: RequestRecord) => Response | undefined;

export function cacheHitAnswerer(service: Service, checkKey: KeyCheck): CacheHitAnswerer {
  return (request, url, record) => {
    if (request.method !== 'GET') return undefined;
    const { pathname } = url;
    if (!pathname.startsWith(QUERY_PATH)) return undefined;
    const idOrName = pathname.slice(QUERY_PATH.length);
    if (!PLAIN_SEGMENT.test(idOrName)) return undefined;
    try {
      checkKey(request.headers);
      const format = negotiate(request.headers.get('accept'));
      const endpoint = service.resolve(idOrName);
      const outcome = service.cached(endpoint, url.searchParams.entries(), { redactPii: requestsRedaction(request.headers) });
      if (!outcome) return undefined;
      record.endpoint = endpoint.definition.name;
      // Only a sandbox endpoint takes sql (elsewhere it is an error, never a hit).
      if (endpoint.definition.sandbox) record.sql = url.searchParams.get('sql') ?? undefined;
      recordOutcome(record, outcome);
      return resultResponse(outcome, request.headers.get('if-none-match'), format);
    } catch {
      // The h3 route meets the same error and answers it.
      return undefined;
    }
  };
}
