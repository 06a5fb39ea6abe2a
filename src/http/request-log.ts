/**
 * The request log: one JSON line per request (docs/operations.md, "Request logs"). Never a key or
 * a token (no header is logged; the name of the caller's key or token is), never the query string (it holds parameter values), and a sandbox `sql`
 * only as its first SQL_SHOWN characters and its length. Built by hand from known fields rather than by
 * JSON.stringify of an object: it runs on every cache hit, and that halves its cost.
 */
import type { LogLevel, Logger } from '../core/logger.js';
import type { RequestRecord } from './request-record.js';
import { CLIENT_CLOSED_REQUEST } from './request-body.js';

/** Characters of a sandbox query the log shows. */
const SQL_SHOWN = 200;
/** Characters of a path, an error message or a stack the log shows: a line stays a line. */
const TEXT_SHOWN = 2000;

/**
 * Server errors are errors; a caller's mistakes are warnings (an operator may want to see a flood
 * of 401s); a caller who left before sending its body (499) did nothing wrong that anyone can fix.
 */
function levelOf(status: number): LogLevel {
  if (status >= 500) return 'error';
  if (status === CLIENT_CLOSED_REQUEST) return 'info';
  return status >= 400 ? 'warn' : 'info';
}

/** Writes one request's line. */
export type RequestLog = (method: string, path: string, status: number, durationMs: number, record: RequestRecord) => void;

/** The request log writing to `logger`. */
export function requestLog(logger: Logger): RequestLog {
  return (method, path, status, durationMs, record) => {
    const level = levelOf(status);
    if (!logger.enabled(level)) return;
    logger.write(level, `${headText(method, path, record, status)}${milliseconds(durationMs)}${tailText(status, record)}`);
  };
}

/** The members up to duration_ms's value. */
function headText(method: string, path: string, record: RequestRecord, status: number): string {
  // A method is an HTTP token, an endpoint name letters, digits and `._-`, a key's name letters,
  // digits and `._:@-` (config/keys-file.ts): nothing to escape.
  let members = `"msg":"request","method":"${method}","path":${text(path)}`;
  if (record.key !== undefined) members += `,"key":"${record.key}"`;
  if (record.endpoint !== undefined) members += `,"endpoint":"${record.endpoint}"`;
  // A source's name is a declared one (letters, digits, `._-`): nothing to escape.
  if (record.source !== undefined) members += `,"source":"${record.source}"`;
  return `${members},"status":${status},"duration_ms":`;
}

/** The members after duration_ms. */
function tailText(status: number, record: RequestRecord): string {
  let members = '';
  if (record.cache !== undefined) members += `,"cache":"${record.cache}"`;
  if (record.rows !== undefined) members += `,"rows":${record.rows}`;
  if (record.backendMs !== undefined) members += `,"backend_ms":${milliseconds(record.backendMs)}`;
  if (record.sql !== undefined) members += `,"sql":${JSON.stringify(record.sql.slice(0, SQL_SHOWN))},"sql_length":${record.sql.length}`;
  const { error } = record;
  if (error) {
    members += `,"error":"${error.code}"`;
    // Server-side failures are the operator's to fix: say what happened, and where for a bug.
    if (status >= 500) members += `,"message":${text(error.message)}`;
    if (error.code === 'internal') members += `,"stack":${text(stackOf(error.cause))}`;
  }
  return members;
}

function milliseconds(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}

/** Printable ASCII without `"` and `\`: JSON as it is (what nearly every path is). */
const PLAIN_TEXT = /^[ !#-[\]-~]*$/;

function text(value: string): string {
  const shown = value.length > TEXT_SHOWN ? `${value.slice(0, TEXT_SHOWN)}…` : value;
  return PLAIN_TEXT.test(shown) ? `"${shown}"` : JSON.stringify(shown);
}

function stackOf(cause: unknown): string {
  return cause instanceof Error ? (cause.stack ?? String(cause)) : String(cause);
}
