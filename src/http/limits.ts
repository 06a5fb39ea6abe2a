/**
 * Bounds on the size of a request that HTTP enforces (docs/http.md, "Limits"). The others: the
 * request body (request-body.ts), sandbox `sql` (engine/serve/sandbox-compile.ts), and backend queries at once
 * (engine/serve/limiter.ts).
 *
 * Node refuses a request whose request line and headers exceed its `maxHeaderSize` itself, before
 * any handler runs, with a bare 431 and no body. The server raises that to MAX_HEADER_BYTES, so a
 * URL longer than MAX_URL_LENGTH but within it reaches cannery and gets a JSON 414 that says to
 * POST instead; past MAX_HEADER_BYTES, node's 431 is the answer.
 */
import { CanneryError } from '../core/errors.js';

/** Characters of path and query string; the common bound of proxies and CDNs (nginx, Apache: 8 KiB). */
export const MAX_URL_LENGTH = 8192;

/** Bytes of request line and headers node accepts (its default is 16 KiB). */
export const MAX_HEADER_BYTES = 64 * 1024;

/** The error for a URL over MAX_URL_LENGTH; undefined for any other. */
export function urlLengthError(url: URL): CanneryError | undefined {
  const length = url.pathname.length + url.search.length;
  if (length <= MAX_URL_LENGTH) return undefined;
  return new CanneryError(
    'uri_too_long',
    `the URL is ${length} characters long; the limit is ${MAX_URL_LENGTH}. Send long parameters (such as sql) as a JSON body with POST`,
  );
}
