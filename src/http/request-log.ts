/**
 * The request log: one JSON line per request (README, "Logs"). Never a key (no header is
 * logged), never the query string (it holds parameter values), and a sandbox `sql` only as its
 * first SQL_SHOWN characters and its length. Built by hand from known fields rather than by
 * JSON.stringify of an object: it runs on every cache hit, and that halves its cost.
 */
import type { LogLevel, Logger } from '../logger.js';
import type { RequestRecord } from './request-record.js';

/** Characters of a sandbox query the log shows. */
const SQL_SHOWN = 200;
/** Characters of a path, an error message or a stack the log shows: a line stays a line. */
const TEXT_SHOWN = 2000;

/** Server errors are errors; a caller's mistakes are warnings (an operator may want to see a flood of 401s). */
function levelOf(status: number): LogLevel {
  if (status >= 500) return 'error';
  return status >= 400 ? 'warn' : 'info';
}

export function logRequest(logger: Logger, method: string, path: string, status: number, durationMs: number, record: RequestRecord): void {
  const level = levelOf(status);
  if (!logger.enabled(level)) return;
  // A method is an HTTP token and an endpoint name is letters, digits and `._-`: nothing to escape.
  let members = `"msg":"request","method":"${method}","path":${text(path)}`;
  if (record.endpoint !== undefined) members += `,"endpoint":"${record.endpoint}"`;
  members += `,"status":${status},"duration_ms":${milliseconds(durationMs)}`;
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
  logger.write(level, members);
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
