/**
 * Errors are values with a code. Every layer raises a CanneryError at its edge;
 * the HTTP layer maps the code to a status in one place (http/errors.ts).
 */
export type ErrorCode =
  | 'unauthorized'
  | 'endpoint_not_found'
  | 'missing_parameter'
  | 'invalid_parameter'
  | 'unknown_parameter'
  | 'sandbox_not_enabled'
  | 'sandbox_violation'
  | 'invalid_header'
  | 'not_found'
  | 'method_not_allowed'
  | 'not_acceptable'
  | 'uri_too_long'
  | 'too_many_requests'
  | 'query_failed'
  | 'query_timeout'
  | 'internal';

export interface CanneryErrorOptions {
  param?: string;
  cause?: unknown;
  /**
   * The backend refused the query text itself (names, types, values), as opposed to failing
   * to run it. For a caller's sandbox SQL that is the caller's mistake (400), not ours (502).
   */
  queryRejected?: boolean;
}

export class CanneryError extends Error {
  readonly code: ErrorCode;
  readonly param: string | undefined;
  readonly queryRejected: boolean;

  constructor(code: ErrorCode, message: string, options: CanneryErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'CanneryError';
    this.code = code;
    this.param = options.param;
    this.queryRejected = options.queryRejected ?? false;
  }
}

export function isCanneryError(error: unknown): error is CanneryError {
  return error instanceof CanneryError;
}
