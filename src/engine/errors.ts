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
  | 'query_failed'
  | 'query_timeout'
  | 'internal';

export class CanneryError extends Error {
  readonly code: ErrorCode;
  readonly param: string | undefined;

  constructor(code: ErrorCode, message: string, options: { param?: string; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'CanneryError';
    this.code = code;
    this.param = options.param;
  }
}

export function isCanneryError(error: unknown): error is CanneryError {
  return error instanceof CanneryError;
}
