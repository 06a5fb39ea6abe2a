/**
 * Queries that call host functions run one at a time. A host function runs in JavaScript on the
 * event loop, a chunk of rows per call (host-functions/register.ts): one such query over a large
 * table takes the loop a chunk at a time (INITCAP: about 60 µs a row, a tenth of a second a
 * chunk), and the rest of the service is answered between its chunks. Several at once added up:
 * four INITCAP queries over 50,000 edge rows held `/health` for 2.4 s, one at a time 0.15 s at
 * most (bench:host-functions). The others wait their turn, a few at most, then get 429.
 */
import { CanneryError } from '../../core/errors.js';
import { createLimiter } from '../../engine/serve/limiter.js';
import { HOST_FUNCTION_PREFIX } from '../../sql/dialects/duckdb/host-functions.js';

/** Queries that may wait for the one running: beyond them, a host-function query is a 429. */
export const HOST_QUERIES_QUEUED = 8;

const CALLS_HOST_FUNCTION = new RegExp(`\\b${HOST_FUNCTION_PREFIX}[a-z0-9_]+\\(`);

export type QueryRun<T> = (sql: string, run: () => Promise<T>) => Promise<T>;

/** Whether the (translated) query calls a host function, and so takes its turn. */
export function callsHostFunction(sql: string): boolean {
  return CALLS_HOST_FUNCTION.test(sql);
}

export function hostFunctionGate<T>(): QueryRun<T> {
  const limiter = createLimiter({ maxRunning: 1, maxQueued: HOST_QUERIES_QUEUED });
  return async (sql, run) => {
    if (!callsHostFunction(sql)) return run();
    try {
      return await limiter.run(run);
    } catch (error) {
      if (error instanceof CanneryError && error.code === 'too_many_requests') {
        throw new CanneryError('too_many_requests', `${HOST_QUERIES_QUEUED + 1} queries calling functions the embedded engine runs in JavaScript (docs/sql.md) are running or waiting, one at a time; retry shortly`);
      }
      throw error;
    }
  };
}
