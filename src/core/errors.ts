/**
 * Errors are values with a code. Every layer raises a CanneryError at its edge;
 * the HTTP layer maps the code to a status in one place (http/errors.ts).
 */
/** Every code a caller can get, in one list: the OpenAPI document's enum is this list. */
export const ERROR_CODES = [
  'unauthorized',
  'forbidden',
  'endpoint_not_found',
  'missing_parameter',
  'invalid_parameter',
  'unknown_parameter',
  'sandbox_not_enabled',
  'sandbox_violation',
  'invalid_header',
  'invalid_event',
  'not_found',
  'method_not_allowed',
  'not_acceptable',
  'body_too_large',
  'uri_too_long',
  'unsupported_media_type',
  'result_too_large',
  'resources_exceeded',
  'too_many_requests',
  'query_failed',
  'query_timeout',
  'internal',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

export interface CanneryErrorOptions {
  param?: string;
  cause?: unknown;
  /**
   * The backend refused the query text itself (names, types, values), as opposed to failing
   * to run it. For a caller's sandbox SQL that is the caller's mistake (400), not ours (502).
   */
  queryRejected?: boolean;
  /** For too_many_requests: the seconds to wait, when the refusal knows them (a key's own rate). */
  retryAfterSeconds?: number;
}

export class CanneryError extends Error {
  readonly code: ErrorCode;
  readonly param: string | undefined;
  readonly queryRejected: boolean;
  readonly retryAfterSeconds: number | undefined;

  constructor(code: ErrorCode, message: string, options: CanneryErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'CanneryError';
    this.code = code;
    this.param = options.param;
    this.queryRejected = options.queryRejected ?? false;
    this.retryAfterSeconds = options.retryAfterSeconds;
  }
}

export function isCanneryError(error: unknown): error is CanneryError {
  return error instanceof CanneryError;
}
