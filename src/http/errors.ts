/** The one place error codes become HTTP statuses, headers and JSON error bodies. */
import { CanneryError, type ErrorCode } from '../core/errors.js';

const STATUS: Record<ErrorCode, number> = {
  unauthorized: 401,
  forbidden: 403,
  endpoint_not_found: 404,
  not_found: 404,
  method_not_allowed: 405,
  not_acceptable: 406,
  body_too_large: 413,
  uri_too_long: 414,
  unsupported_media_type: 415,
  too_many_requests: 429,
  missing_parameter: 400,
  invalid_parameter: 400,
  unknown_parameter: 400,
  sandbox_not_enabled: 400,
  sandbox_violation: 400,
  invalid_header: 400,
  // An ingest request's event does not fit its source: nothing of the request was written.
  invalid_event: 400,
  // The caller's request asks for more than an answer may weigh: theirs to narrow, never worth
  // retrying as is (docs/decisions.md: why not 413, 422 or BigQuery's 403).
  result_too_large: 400,
  // The query asks a function of the embedded engine for more work than one of its bounds allows
  // (docs/sql.md): the caller's to make smaller, as BigQuery's resourcesExceeded is.
  resources_exceeded: 400,
  query_failed: 502,
  query_timeout: 504,
  internal: 500,
};

/**
 * Seconds a caller refused for a full queue is told to wait. The queue frees in about one query's
 * time, which is short next to a client's retry loop; a longer wait would leave slots idle. A key
 * past its own rate is told its own wait instead.
 */
const RETRY_AFTER_SECONDS = 1;

/** Headers HTTP asks for with some statuses. */
const HEADERS: Partial<Record<ErrorCode, Record<string, string>>> = {
  unauthorized: { 'www-authenticate': 'Bearer' },
  too_many_requests: { 'retry-after': String(RETRY_AFTER_SECONDS) },
};

export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

export function statusOf(code: ErrorCode): number {
  return STATUS[code];
}

/** Anything that is not a CanneryError is our bug: the caller gets a 500 without internals. */
export function toCanneryError(error: unknown): CanneryError {
  if (error instanceof CanneryError) return error;
  return new CanneryError('internal', 'internal error; the server log has the details', { cause: error });
}

export function errorResponse(error: CanneryError): Response {
  const body: { code: ErrorCode; message: string; param?: string } = { code: error.code, message: error.message };
  if (error.param !== undefined) body.param = error.param;
  const headers: Record<string, string> = { 'content-type': JSON_CONTENT_TYPE, ...HEADERS[error.code] };
  if (error.retryAfterSeconds !== undefined) headers['retry-after'] = String(error.retryAfterSeconds);
  return new Response(JSON.stringify({ error: body }), { status: statusOf(error.code), headers });
}
