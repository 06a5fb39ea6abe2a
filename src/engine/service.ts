/**
 * The serve pipeline below HTTP: resolve endpoint -> validate params -> backend -> rows.
 * HTTP and the CLI's `run` are thin shells over this.
 */
import type { Backend, QueryRequest, QueryResult } from '../backends/types.js';
import { CanneryError } from './errors.js';
import { readRequestParams } from './params.js';
import { compileSandboxQuery } from './sandbox.js';
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

/** Runs a query; a sandbox query the backend refuses is the caller's mistake, reported as such. */
async function runOnBackend(backend: Backend, sandboxed: boolean, request: QueryRequest): Promise<QueryResult> {
  try {
    return await backend.run(request);
  } catch (error) {
    if (sandboxed && error instanceof CanneryError && error.queryRejected) {
      throw new CanneryError('invalid_parameter', `sql cannot run: ${error.message}`, { param: 'sql', cause: error });
    }
    throw error;
  }
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
      const compiled =
        request.sql === undefined
          ? { sql: endpoint.sql, parameters: endpoint.sqlParameters }
          : compileSandboxQuery(endpoint, request.sql, options.backend.dialect);
      const result = await runOnBackend(options.backend, request.sql !== undefined, {
        sql: compiled.sql,
        parameters: compiled.parameters,
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
