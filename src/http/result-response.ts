/**
 * A successful answer as HTTP: the engine's encoded bytes in the format asked for (JSON: as they
 * are), with caching headers. Cached endpoints: `Cache-Control: private, max-age=<seconds left>`,
 * `Age`, `ETag`, `X-Cache` and 304 for a matching `If-None-Match`; uncached ones:
 * `Cache-Control: no-store`.
 *
 * The answer is srvx's FastResponse, built from a plain header object: h3 passes it through
 * untouched and srvx writes it straight to node:http, where a standard Response would build a
 * Headers object and stream the body.
 */
import { FastResponse } from 'srvx';
import type { QueryOutcome } from '../engine/serve/service.js';
import type { Format } from './formats.js';
import { REDACTION_HEADER } from './redaction-header.js';

/** The same URL has a redacted and an unredacted answer, and one per format. */
const VARY = `Accept, ${REDACTION_HEADER}`;

/** A successful answer's status, headers and body. */
interface ResultParts {
  status: 200 | 304;
  headers: Record<string, string>;
  body: ReturnType<Format['body']> | null;
}

export function resultResponse(outcome: QueryOutcome, ifNoneMatch: string | null, format: Format): Response {
  const { status, headers, body } = resultParts(outcome, ifNoneMatch, format);
  return new FastResponse(body, { status, headers });
}

function resultParts(outcome: QueryOutcome, ifNoneMatch: string | null, format: Format): ResultParts {
  const { cache } = outcome;
  const { contentType } = format;
  if (!cache) {
    const body = format.body(outcome.body);
    if (!(body instanceof Uint8Array)) return { status: 200, headers: { 'content-type': contentType, 'cache-control': 'no-store' }, body };
    return { status: 200, headers: { 'content-type': contentType, 'content-length': String(body.byteLength), 'cache-control': 'no-store' }, body };
  }
  const etag = format.etag(cache.etag);
  // private: a key authorises the request, and X-API-KEY is not a header shared caches know to
  // respect, so a CDN could otherwise hand the result to a caller without one.
  const cacheControl = `private, max-age=${cache.maxAgeSeconds}`;
  const age = String(cache.ageSeconds);
  const xCache = cache.status;
  // Each set of headers is one object literal, never added to after: one shape, which node:http
  // reads a little faster on every hit.
  if (ifNoneMatch !== null && matchesEtag(ifNoneMatch, etag)) {
    return { status: 304, headers: { 'cache-control': cacheControl, age, etag, 'x-cache': xCache, vary: VARY }, body: null };
  }
  const body = format.body(outcome.body);
  // A length: written by node:http itself, a body without one is sent chunked, and a HEAD answer
  // carries it too. Streams have none.
  if (!(body instanceof Uint8Array)) {
    return { status: 200, headers: { 'cache-control': cacheControl, age, etag, 'x-cache': xCache, vary: VARY, 'content-type': contentType }, body };
  }
  return {
    status: 200,
    headers: { 'cache-control': cacheControl, age, etag, 'x-cache': xCache, vary: VARY, 'content-type': contentType, 'content-length': String(body.byteLength) },
    body,
  };
}

/** If-None-Match compares weakly (RFC 9110 13.1.2): a W/ prefix does not matter, and `*` matches any. */
function matchesEtag(header: string, etag: string): boolean {
  return header.split(',').some((candidate) => {
    const tag = candidate.trim();
    return tag === '*' || (tag.startsWith('W/') ? tag.slice(2) : tag) === etag;
  });
}
