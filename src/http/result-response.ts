/**
 * A successful answer as HTTP: the engine's encoded bytes in the format asked for (JSON: as they
 * are), with caching headers. Cached endpoints: `Cache-Control: private, max-age=<seconds left>`,
 * `Age`, `ETag`, `X-Cache` and 304 for a matching `If-None-Match`; uncached ones:
 * `Cache-Control: no-store`.
 *
 * srvx's FastResponse with a plain header object, because this is a cache hit's whole cost:
 * h3 passes it through untouched and srvx writes the object straight to node:http, where a
 * standard Response (or h3's HTTPResponse) would build a Headers object and stream the body.
 */
import { FastResponse } from 'srvx';
import type { QueryOutcome } from '../engine/service.js';
import type { Format } from './formats.js';
import { REDACTION_HEADER } from './redaction-header.js';

/** The same URL has a redacted and an unredacted answer, and one per format. */
const VARY = `Accept, ${REDACTION_HEADER}`;

export function resultResponse(outcome: QueryOutcome, ifNoneMatch: string | null, format: Format): Response {
  const { cache } = outcome;
  if (!cache) return new FastResponse(format.body(outcome.body), { status: 200, headers: { 'content-type': format.contentType, 'cache-control': 'no-store' } });
  const etag = format.etag(cache.etag);
  const headers: Record<string, string> = {
    // private: a key authorises the request, and X-API-KEY is not a header shared caches know to
    // respect, so a CDN could otherwise hand the result to a caller without one.
    'cache-control': `private, max-age=${cache.maxAgeSeconds}`,
    age: String(cache.ageSeconds),
    etag,
    'x-cache': cache.status,
    vary: VARY,
  };
  if (ifNoneMatch !== null && matchesEtag(ifNoneMatch, etag)) return new FastResponse(null, { status: 304, headers });
  headers['content-type'] = format.contentType;
  return new FastResponse(format.body(outcome.body), { status: 200, headers });
}

/** If-None-Match compares weakly (RFC 9110 13.1.2): a W/ prefix does not matter, and `*` matches any. */
function matchesEtag(header: string, etag: string): boolean {
  return header.split(',').some((candidate) => {
    const tag = candidate.trim();
    return tag === '*' || (tag.startsWith('W/') ? tag.slice(2) : tag) === etag;
  });
}
