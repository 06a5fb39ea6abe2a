/**
 * The backend as the service runs it: through the limiter (so many queries at once, so many
 * waiting), each query's time, rows or failure told to the observer. Time in the queue is not
 * query time, and a refused query never reached the backend, so neither is reported as a query.
 */
import type { Backend } from '../backend.js';
import { isCanneryError } from '../../core/errors.js';
import type { Limiter } from './limiter.js';
import type { EngineObserver } from './observer.js';

export function limitedBackend(backend: Backend, limiter: Limiter, observer: EngineObserver): Backend {
  return {
    name: backend.name,
    get dialect() {
      return backend.dialect;
    },
    run: (request) =>
      limiter.run(async () => {
        const started = performance.now();
        try {
          const result = await backend.run(request);
          observer.backendQuery(request.endpointName, result.backendMs, result.rows.length);
          return result;
        } catch (error) {
          observer.backendFailure(request.endpointName, performance.now() - started, isCanneryError(error) ? error.code : 'internal');
          throw error;
        }
      }),
    close: () => backend.close(),
  };
}
