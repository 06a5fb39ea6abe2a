/**
 * Cache hits, answered before h3 builds its event and routes. A hit needs no I/O, and answering
 * it on the request's own tick, outside h3's promise chain, roughly halves what it costs the
 * server (bench/cache-hits.ts).
 *
 * Only the plain case is taken: a GET of QUERY_PATH<name or UUID> without percent-encoding, with
 * a valid key, header and parameters, whose answer is a fresh hit. Everything else, every error
 * included, goes on to the h3 route, which takes the same steps in full and answers the same way:
 * this is a shortcut through one route, not a second one.
 */
import { FastURL, type ServerRequest } from 'srvx';
import type { Service } from '../engine/service.js';
import type { KeyCheck } from './auth.js';
import { QUERY_PATH } from './paths.js';
import { requestsRedaction } from './redaction-header.js';
import { resultResponse } from './result-response.js';

/** A last segment h3 would pass on unchanged: no percent-encoding, no further segments. */
const PLAIN_SEGMENT = /^[A-Za-z0-9._-]+$/;

export type CacheHitAnswerer = (request: ServerRequest) => Response | undefined;

export function cacheHitAnswerer(service: Service, checkKey: KeyCheck): CacheHitAnswerer {
  return (request) => {
    if (request.method !== 'GET') return undefined;
    const url = requestUrl(request);
    const { pathname } = url;
    if (!pathname.startsWith(QUERY_PATH)) return undefined;
    const idOrName = pathname.slice(QUERY_PATH.length);
    if (!PLAIN_SEGMENT.test(idOrName)) return undefined;
    try {
      checkKey(request.headers);
      const endpoint = service.resolve(idOrName);
      const outcome = service.cached(endpoint, url.searchParams.entries(), { redactPii: requestsRedaction(request.headers) });
      return outcome && resultResponse(outcome, request.headers.get('if-none-match'));
    } catch {
      // The h3 route meets the same error and answers it.
      return undefined;
    }
  };
}

/**
 * The request's URL exactly as h3 takes it (H3Event's constructor): srvx's, parsed lazily from
 * node's request target, else parsed from the href.
 */
function requestUrl(request: ServerRequest): URL {
  const { _url: url } = request as { _url?: unknown };
  return url instanceof URL ? url : new FastURL(request.url);
}
