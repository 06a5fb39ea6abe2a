/**
 * The serve pipeline below HTTP: resolve endpoint -> validate params -> backend -> rows.
 * HTTP and the CLI's `run` are thin shells over this.
 */
import type { Backend } from '../backends/types.js';
import { CanneryError } from './errors.js';
import { readRequestParams } from './params.js';
import type { Registry } from './registry.js';
import type { CompiledEndpoint, WireRow } from './types.js';

export interface ServiceOptions {
  registry: Registry;
  backend: Backend;
  timeoutMs: number;
  /** Injectable for tests; the execution time of each query. */
  clock?: () => Date;
}

export interface QueryOutcome {
  endpoint: CompiledEndpoint;
  rows: WireRow[];
  backendMs: number;
}

export interface Service {
  readonly registry: Registry;
  readonly backend: Backend;
  resolve(idOrName: string): CompiledEndpoint;
  query(endpoint: CompiledEndpoint, params: Iterable<[string, string]>): Promise<QueryOutcome>;
}

export function createService(options: ServiceOptions): Service {
  const clock = options.clock ?? (() => new Date());
  return {
    registry: options.registry,
    backend: options.backend,
    resolve(idOrName) {
      const endpoint = options.registry.find(idOrName);
      if (!endpoint) {
        throw new CanneryError('endpoint_not_found', `no endpoint with id or name "${idOrName}"`);
      }
      return endpoint;
    },
    async query(endpoint, params) {
      const { definition } = endpoint;
      const request = readRequestParams(definition, params);
      if (request.sql !== undefined) {
        if (!definition.sandbox) {
          throw new CanneryError('sandbox_not_enabled', `${definition.name} does not accept sql: query sandboxing is not enabled for it`, { param: 'sql' });
        }
        throw new CanneryError('sandbox_violation', 'sandbox queries (the sql parameter) are not supported by this server yet', { param: 'sql' });
      }
      const result = await options.backend.run({
        sql: endpoint.sql,
        parameters: endpoint.sqlParameters,
        values: request.values,
        specs: definition.params,
        now: clock(),
        maxRows: definition.max_rows,
        timeoutMs: options.timeoutMs,
        endpointName: definition.name,
      });
      return { endpoint, rows: result.rows, backendMs: result.backendMs };
    },
  };
}
