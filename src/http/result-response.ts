/**
 * A successful answer as HTTP: the engine's encoded bytes in the format asked for (JSON: as they
 * are), with caching headers. Cached endpoints: `Cache-Control: private, max-age=<seconds left>`,
 * `Age`, `ETag`, `X-Cache` and 304 for a matching `If-None-Match`; uncached ones:
 * `Cache-Control: no-store`.
 *
 * resultParts is the answer as status, plain header object and body: the cache-hit shortcut
 * writes them to node:http itself (cache-hits.ts). resultResponse makes them srvx's
 * FastResponse for the h3 route, which h3 passes through untouched and srvx writes straight to
 * node:http, where a standard Response would build a Headers object and stream the body.
 */
import { FastResponse } from 'srvx';
import type { QueryOutcome } from '../engine/service.js';
import type { Format } from './formats.js';
import { REDACTION_HEADER } from './redaction-header.js';

/** The same URL has a redacted and an unredacted answer, and one per format. */
const VARY = `Accept, ${REDACTION_HEADER}`;

/** A successful answer's status, headers and body, as both srvx and node:http take them. */
export interface ResultParts {
  status: 200 | 304;
  headers: Record<string, string>;
  body: ReturnType<Format['body']> | null;
}

export function resultResponse(outcome: QueryOutcome, ifNoneMatch: string | null, format: Format): Response {
  const { status, headers, body } = resultParts(outcome, ifNoneMatch, format);
  return new FastResponse(body, { status, headers });
}

export function resultParts(outcome: QueryOutcome, ifNoneMatch: string | null, format: Format): ResultParts {
  const { cache } = outcome;
  if (!cache) return { status: 200, headers: { 'content-type': format.contentType, 'cache-control': 'no-store' }, body: format.body(outcome.body) };
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
  if (ifNoneMatch !== null && matchesEtag(ifNoneMatch, etag)) return { status: 304, headers, body: null };
  headers['content-type'] = format.contentType;
  return { status: 200, headers, body: format.body(outcome.body) };
}

/** If-None-Match compares weakly (RFC 9110 13.1.2): a W/ prefix does not matter, and `*` matches any. */
function matchesEtag(header: string, etag: string): boolean {
  return header.split(',').some((candidate) => {
    const tag = candidate.trim();
    return tag === '*' || (tag.startsWith('W/') ? tag.slice(2) : tag) === etag;
  });
}
