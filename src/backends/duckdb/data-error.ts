/**
 * Errors of the data layer (creating, widening and filling source tables). They carry the
 * NDJSON line and the dotted field path when there is one, so `cannery import` can point at
 * the exact place in a file of millions of lines.
 */
export type DataErrorCode =
  /** A line is not a log event cannery can store (bad JSON, missing id, zone-less timestamp...). */
  | 'invalid_event'
  /** A line longer than the import's limit (--max-line-bytes). */
  | 'line_too_long'
  /** A line that is not UTF-8 (without --replace-invalid-utf8). */
  | 'invalid_utf8'
  /** A field is an object or array in one place and a scalar in another: no type holds both. */
  | 'type_conflict'
  /** An existing table does not follow the source-table convention, so it cannot be widened. */
  | 'unsupported_table';

export class DataError extends Error {
  readonly code: DataErrorCode;
  readonly line: number | undefined;
  readonly field: string | undefined;

  constructor(code: DataErrorCode, message: string, options: { line?: number; field?: string; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'DataError';
    this.code = code;
    this.line = options.line;
    this.field = options.field;
  }
}
