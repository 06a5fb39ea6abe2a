/**
 * The request log's lines (src/http/request-log.ts), built by hand rather than by JSON.stringify:
 * over a long run of requests that repeat and change every field, each line must read exactly as
 * the documented object of its request.
 */
import { describe, expect, it } from 'vitest';
import { CanneryError } from '../../src/core/errors.js';
import { requestLog } from '../../src/http/request-log.js';
import type { RequestRecord } from '../../src/http/request-record.js';
import { createLogger } from '../../src/core/logger.js';

interface Request {
  method: string;
  path: string;
  status: number;
  ms: number;
  record: RequestRecord;
}

/** The line's object as docs/operations.md describes it, member by member, in order. */
function expected({ method, path, status, ms, record }: Request): Record<string, unknown> {
  const line: Record<string, unknown> = { level: status >= 500 ? 'error' : status >= 400 ? 'warn' : 'info', msg: 'request', method };
  line.path = path.length > 2000 ? `${path.slice(0, 2000)}…` : path;
  if (record.endpoint !== undefined) line.endpoint = record.endpoint;
  line.status = status;
  line.duration_ms = Math.round(ms * 1000) / 1000;
  if (record.cache !== undefined) line.cache = record.cache;
  if (record.rows !== undefined) line.rows = record.rows;
  if (record.backendMs !== undefined) line.backend_ms = Math.round(record.backendMs * 1000) / 1000;
  if (record.sql !== undefined) Object.assign(line, { sql: record.sql.slice(0, 200), sql_length: record.sql.length });
  if (record.error) {
    line.error = record.error.code;
    if (status >= 500) line.message = record.error.message;
    if (record.error.code === 'internal') line.stack = (record.error.cause as Error).stack;
  }
  return line;
}

describe('request log lines', () => {
  it('read as built afresh, however requests repeat or change', () => {
    const lines: string[] = [];
    const log = requestLog(createLogger('debug', (line) => lines.push(line)));
    let seed = 11;
    const pick = <T>(choices: readonly T[]): T => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      // The high bits: an LCG's low bits repeat with a short period.
      return choices[Math.floor(seed / 65536) % choices.length]!;
    };
    const requests: Request[] = [];
    for (let index = 0; index < 3000; index++) {
      const status = pick([200, 200, 200, 304, 400, 404, 500]);
      const error =
        status === 500
          ? new CanneryError('internal', 'boom "quoted"', { cause: new TypeError('x is undefined') })
          : status >= 400
            ? new CanneryError(pick(['invalid_parameter', 'not_found'] as const), 'bad é')
            : undefined;
      const request: Request = {
        method: pick(['GET', 'GET', 'HEAD', 'POST']),
        path: pick(['/api/endpoints/query/a.b', '/api/endpoints/query/a.b', '/api/endpoints/query/c', '/health', '/api/é "x"', `/${'p'.repeat(2100)}`]),
        status,
        ms: pick([0.0123, 1.5, 41.4329, 0]),
        record: {
          started: 0,
          endpoint: pick(['a.b', 'a.b', 'c', undefined]),
          cache: pick(['HIT', 'HIT', 'MISS', 'STALE', undefined] as const),
          rows: pick([0, 0, 24, undefined]),
          backendMs: pick([undefined, undefined, undefined, 12.3456]),
          sql: pick([undefined, undefined, undefined, 'select "1"', 's'.repeat(300)]),
          error,
        },
      };
      requests.push(request);
      log(request.method, request.path, request.status, request.ms, request.record);
    }
    expect(lines).toHaveLength(requests.length);
    for (const [index, line] of lines.entries()) {
      const { time, ...rest } = JSON.parse(line) as Record<string, unknown>;
      expect(typeof time).toBe('string');
      expect(Object.entries(rest), `line ${index}`).toEqual(Object.entries(expected(requests[index]!)));
    }
  });
});
