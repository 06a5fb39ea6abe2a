/**
 * The real DuckDB backend, wrapped to count the queries that reach it, to hold them at a gate,
 * and to fail on demand (a backend outage), so tests can see what the cache asks of it.
 */
import type { Backend, QueryRequest } from '../../../../src/engine/backend.js';
import { CanneryError } from '../../../../src/core/errors.js';

export interface CountingBackend extends Backend {
  /** Every query that reached the backend, in order. */
  readonly requests: QueryRequest[];
  readonly inFlight: number;
  readonly maxInFlight: number;
  /** While true, every query fails as a backend would (query_failed). */
  failing: boolean;
  /** Holds every query until the returned function is called. */
  hold(): () => void;
}

export function countingBackend(inner: Backend): CountingBackend {
  const requests: QueryRequest[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  let gate: Promise<void> = Promise.resolve();
  const backend: CountingBackend = {
    name: inner.name,
    dialect: inner.dialect,
    requests,
    get inFlight() {
      return inFlight;
    },
    get maxInFlight() {
      return maxInFlight;
    },
    failing: false,
    hold() {
      let release!: () => void;
      gate = new Promise((resolve) => (release = resolve));
      return () => {
        gate = Promise.resolve();
        release();
      };
    },
    async run(request) {
      requests.push(request);
      inFlight += 1;
      maxInFlight = Math.max(maxInFlight, inFlight);
      try {
        await gate;
        if (backend.failing) throw new CanneryError('query_failed', `${request.endpointName}: the query failed: backend unavailable`);
        return await inner.run(request);
      } finally {
        inFlight -= 1;
      }
    },
    close: () => inner.close(),
  };
  return backend;
}
