/**
 * CORS, for browser callers from the origins in CANNERY_CORS_ORIGINS (`*`: any). A key travels
 * in a header, never in a cookie, so there is no credentials mode and `*` can be answered as is.
 * A request from an origin not allowed gets no CORS headers at all (so the browser refuses it)
 * and is otherwise served like any other; so is every request when no origin is configured.
 */
import type { ServerRequest } from 'srvx';
import { REDACTION_HEADER } from './redaction-header.js';

const ALLOW_METHODS = 'GET, POST';
/** What callers send: the key, a JSON body, the redaction header, and revalidation. */
const ALLOW_HEADERS = ['X-API-KEY', 'Authorization', 'Content-Type', REDACTION_HEADER, 'If-None-Match'].join(', ');
/** Response headers a script may read beyond the safelisted ones: the cache's, and when to retry. */
const EXPOSE_HEADERS = 'X-Cache, ETag, Age, Retry-After';
/** How long a browser may reuse a preflight's answer (Chromium caps it at 7200). */
const PREFLIGHT_MAX_AGE_SECONDS = '600';

export interface Cors {
  /**
   * The answer to a preflight from an allowed origin, which `decorate` completes like any other
   * response; undefined for any other request.
   */
  preflight(request: ServerRequest): Response | undefined;
  /** Adds the headers an allowed origin's request needs to its response. */
  decorate(request: ServerRequest, response: Response): void;
}

/** Undefined when no origin is allowed: no CORS at all. */
export function createCors(origins: readonly string[]): Cors | undefined {
  if (origins.length === 0) return undefined;
  const anyOrigin = origins.includes('*');
  const allowed = new Set(origins);

  /** Access-Control-Allow-Origin for this request, or undefined. */
  const allowOrigin = (request: ServerRequest): string | undefined => {
    const origin = request.headers.get('origin');
    if (origin === null) return undefined;
    if (anyOrigin) return '*';
    return allowed.has(origin) ? origin : undefined;
  };

  /** An answer that names the origin differs by origin, and caches must know it. */
  const varyByOrigin = (headers: Headers) => {
    if (!anyOrigin) headers.append('vary', 'Origin');
  };

  return {
    preflight(request) {
      if (request.method !== 'OPTIONS' || !request.headers.has('access-control-request-method')) return undefined;
      if (allowOrigin(request) === undefined) return undefined;
      const headers = {
        'access-control-allow-methods': ALLOW_METHODS,
        'access-control-allow-headers': ALLOW_HEADERS,
        'access-control-max-age': PREFLIGHT_MAX_AGE_SECONDS,
      };
      return new Response(null, { status: 204, headers });
    },
    decorate(request, response) {
      const origin = allowOrigin(request);
      if (origin === undefined) {
        if (request.headers.has('origin')) varyByOrigin(response.headers);
        return;
      }
      response.headers.set('access-control-allow-origin', origin);
      response.headers.set('access-control-expose-headers', EXPOSE_HEADERS);
      varyByOrigin(response.headers);
    },
  };
}
