/**
 * Cache hits, answered straight from node:http's request, before srvx and h3 see it. A hit needs
 * no I/O, and what it costs is nearly all per-request machinery: srvx's fetch Request and
 * Response, h3's event and promise chain, a WHATWG URL. Without them a hit costs about what a
 * bare node:http server returning the same bytes does (bench/cache-hits.ts).
 *
 * Only the plain case is taken: a GET of QUERY_PATH<name or UUID> without percent-encoding, with
 * a valid key and parameters, a JSON answer and no CORS to add, whose answer is a fresh hit.
 * Everything else, every error included, goes on to srvx and the h3 route, which takes the same
 * steps in full and answers the same way: this is a shortcut through one route, not a second one.
 * So where node's reading of a request could differ from srvx's, it is left to srvx.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { CacheOutcome } from '../engine/cache/read-through.js';
import type { QueryOutcome, Service } from '../engine/service.js';
import type { HeaderReader, KeyCheck } from './auth.js';
import { JSON_FORMAT, negotiate } from './formats.js';
import { MAX_URL_LENGTH } from './limits.js';
import { QUERY_PATH } from './paths.js';
import { requestsRedaction } from './redaction-header.js';
import { newRecord, recordOutcome, type RequestRecord } from './request-record.js';
import { resultParts, type ResultParts } from './result-response.js';

/** A last segment h3 would pass on unchanged: no percent-encoding, no further segments. */
const PLAIN_SEGMENT = /^[A-Za-z0-9._-]+$/;

export interface CacheHitOptions {
  service: Service;
  checkKey: KeyCheck;
  /** Whether CORS is configured: then a request with an Origin goes to h3, which adds its headers. */
  cors: boolean;
  /** Counts and logs an answered request, as every other answer is; a hit's route is known. */
  answered(method: string, path: string, status: number, record: RequestRecord, route: 'query'): void;
}

/** Answers `request` when it is a plain cache hit, and says whether it did. */
export type CacheHitAnswerer = (request: IncomingMessage, response: ServerResponse) => boolean;

export function cacheHitAnswerer(options: CacheHitOptions): CacheHitAnswerer {
  const { service, checkKey } = options;
  const lastAnswer = repeatedAnswers();
  return (request, response) => {
    const target = request.url;
    // node gives the request target as sent: origin-form starts with the path.
    if (request.method !== 'GET' || target === undefined || !target.startsWith(QUERY_PATH) || target.length > MAX_URL_LENGTH) return false;
    const queryAt = target.indexOf('?');
    const path = queryAt === -1 ? target : target.slice(0, queryAt);
    const query = queryAt === -1 ? '' : target.slice(queryAt + 1);
    // A fragment is not the query's (WHATWG URL drops it); no client sends one.
    if (!PLAIN_SEGMENT.test(path.slice(QUERY_PATH.length)) || query.includes('#')) return false;
    const headers = headerReader(request);
    if (options.cors && headers.get('origin') !== null) return false;
    const record = newRecord();
    let status: number;
    try {
      checkKey(headers);
      // Other formats stream their body from h3.
      const format = negotiate(headers.get('accept'));
      if (format !== JSON_FORMAT) return false;
      const endpoint = service.resolve(path.slice(QUERY_PATH.length));
      const outcome = service.cached(endpoint, query, { redactPii: requestsRedaction(headers) });
      if (!outcome) return false;
      record.endpoint = endpoint.definition.name;
      // Only a sandbox endpoint takes sql (elsewhere it is an error, never a hit); most hits have none.
      if (endpoint.definition.sandbox && query.includes('sql=')) record.sql = new URLSearchParams(query).get('sql') ?? undefined;
      recordOutcome(record, outcome);
      const answer = lastAnswer.of(outcome, headers.get('if-none-match'));
      const { body } = answer;
      if (body instanceof ReadableStream) return false;
      status = answer.status;
      response.writeHead(status, answer.headers);
      response.end(body ?? undefined);
    } catch {
      // The h3 route meets the same error and answers it.
      return false;
    }
    options.answered('GET', path, status, record, 'query');
    return true;
  };
}

/**
 * A JSON hit's answer, the last one kept: a run of hits on one entry within a second has the
 * same status, headers and body. Made again only when one of them would differ; node:http then
 * writes header values it has read before (1.4k of a hit's 93.6k instructions, callgrind).
 */
function repeatedAnswers(): { of(outcome: QueryOutcome, ifNoneMatch: string | null): ResultParts } {
  let last: { body: Uint8Array; cache: CacheOutcome; answer: ResultParts } | undefined;
  return {
    of(outcome, ifNoneMatch) {
      const { cache } = outcome;
      if (ifNoneMatch === null && cache !== undefined && last !== undefined && outcome.body === last.body && sameOutcome(cache, last.cache)) return last.answer;
      const answer = resultParts(outcome, ifNoneMatch, JSON_FORMAT);
      if (ifNoneMatch === null && cache !== undefined) last = { body: outcome.body, cache, answer };
      return answer;
    },
  };
}

function sameOutcome(one: CacheOutcome, other: CacheOutcome): boolean {
  return (
    one.status === other.status && one.etag === other.etag && one.ageSeconds === other.ageSeconds && one.maxAgeSeconds === other.maxAgeSeconds
  );
}

/** Thrown by headerReader for a header node and fetch read differently; the request goes to h3. */
const AMBIGUOUS = new Error('a header srvx reads differently from node');

/**
 * node's request headers as srvx's fetch Headers reads them: a repeated one joined with `, `.
 * node joins as fetch does except for a few headers it keeps only the first of: of those read
 * here, only Authorization, and a request that repeats it is left to srvx. (node builds the
 * headers object for every request itself, to look for Expect, so reading it costs nothing more.)
 */
function headerReader(request: IncomingMessage): HeaderReader {
  return {
    get(name) {
      const value = request.headers[name];
      if (value === undefined) return null;
      if (name === 'authorization' && repeated(request.rawHeaders, name)) throw AMBIGUOUS;
      return Array.isArray(value) ? value.join(', ') : value;
    },
  };
}

/** Whether `rawHeaders` (names and values, alternating) names `lowerName` more than once. */
function repeated(rawHeaders: string[], lowerName: string): boolean {
  let seen = 0;
  for (let index = 0; index < rawHeaders.length; index += 2) {
    const name = rawHeaders[index]!;
    if (name.length === lowerName.length && name.toLowerCase() === lowerName) seen++;
  }
  return seen > 1;
}
