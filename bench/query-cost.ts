/**
 * Uncached query cost: the service's end-to-end latency over HTTP (the built `serve` in its own
 * process) against the same compiled SQL, with the same bound values, run directly on DuckDB in
 * this process: a connection, the query, its rows read into JS, as the service's backend does,
 * minus everything cannery adds (HTTP, validation, wire conversion, encoding).
 *
 * The two take turns, request by request, on the same file with the same DuckDB settings, so
 * caches and background load fall on both alike. usage.api-counts is cached, so each request
 * gets its own key with a `project` pattern that matches the same rows (`<demo>|nomatch<N>`).
 */
import type { DuckDBInstance, DuckDBValue } from '#duckdb-api';
import { API_KEY, DEMO_PROJECT, DIST, median, percentile } from './support.js';

/** The built modules used here, and the parts of their shapes this file reads. */
interface CompiledEndpoint {
  definition: { name: string; max_rows: number; params: Record<string, unknown> };
  sql: string;
  sqlParameters: string[];
  sqlDerived: Record<string, unknown>;
}
interface Modules {
  loadOfflineRegistry(dir: string): Promise<{ find(idOrName: string): CompiledEndpoint | undefined }>;
  readRequestParams(definition: CompiledEndpoint['definition'], entries: Iterable<[string, string]>): { values: Record<string, string | number | boolean | null> };
  openDuckDb(options: { path: string; memoryLimit?: string; readOnly?: boolean }): Promise<DuckDBInstance>;
  withDerivedValues(derived: Record<string, unknown>, values: Record<string, unknown>): Record<string, DuckDBValue>;
  EXECUTION_TIME_PARAM: string;
}

async function loadModules(): Promise<Modules> {
  const load = (path: string) => import(new URL(path, DIST).href);
  const [registry, params, duckdb, dialect, derived] = await Promise.all([
    load('cli/offline-registry.js'),
    load('engine/serve/params.js'),
    load('backends/duckdb/backend.js'),
    load('sql/language.js'),
    load('sql/analyse/derived-parameters.js'),
  ]);
  return { ...registry, ...params, ...duckdb, ...dialect, ...derived } as Modules;
}

export interface QueryCase {
  label: string;
  endpoint: string;
  /** The request's parameters; `n` numbers the request, so each can have its own cache key. */
  params(n: number): [string, string][];
  /** Whether the service would answer from its cache without a fresh key per request. */
  cached: boolean;
}

const HOUR_MS = 3_600_000;

export const QUERY_CASES: QueryCase[] = [
  ...['minutely', 'hourly', 'daily'].map((interval) => ({
    label: `usage.api-counts ${interval}`,
    endpoint: 'usage.api-counts',
    params: (n: number): [string, string][] => [
      ['interval', interval],
      ['project', `${DEMO_PROJECT}|nomatch${n}`],
    ],
    cached: true,
  })),
  { label: 'logs.all, no bounds', endpoint: 'logs.all', params: () => [['project', DEMO_PROJECT]], cached: false },
  {
    label: 'logs.all, last hour',
    endpoint: 'logs.all',
    params: () => [
      ['project', DEMO_PROJECT],
      ['iso_timestamp_start', new Date(Date.now() - HOUR_MS).toISOString()],
    ],
    cached: false,
  },
];

export interface Latency {
  p50: number;
  p95: number;
}

export interface CaseCost {
  label: string;
  samples: number;
  /** Rows in each answer (the last one). */
  rows: number;
  service: Latency;
  direct: Latency;
  /**
   * The median of each pair's service/DuckDB ratio. A pair runs back to back, so a burst of
   * other load on the machine falls on both of its halves: steadier than the ratio of the p50s.
   */
  pairedRatio: number;
}

export interface QueryCostOptions {
  db: string;
  /** The running service's URL (serving `db`). */
  url: string;
  endpointsDir: string;
  /** Samples per case at most; fewer when a case is slow (see `budgetMs`). */
  maxSamples: number;
  /** Fewest samples per case, however slow. */
  minSamples: number;
  /** Time a case may take, roughly, before it is held to `minSamples`. */
  budgetMs: number;
  memoryLimit: string;
  /** Called with each case's figures as soon as they are in. */
  onCase?: (cost: CaseCost) => void;
}

/**
 * Opens `db` read-only beside the running service (which holds it read-only too), then runs
 * every case. The service must already be listening: it opens the file for writing first.
 */
export async function measureQueryCost(options: QueryCostOptions): Promise<CaseCost[]> {
  const modules = await loadModules();
  const registry = await modules.loadOfflineRegistry(options.endpointsDir);
  const instance = await modules.openDuckDb({ path: options.db, memoryLimit: options.memoryLimit, readOnly: true });
  let request = 0;
  try {
    const costs: CaseCost[] = [];
    for (const queryCase of QUERY_CASES) {
      const endpoint = registry.find(queryCase.endpoint);
      if (!endpoint) throw new Error(`no endpoint ${queryCase.endpoint} in ${options.endpointsDir}`);
      const viaService = async () => {
        const started = performance.now();
        const body = await serviceRequest(options.url, queryCase, ++request);
        const elapsed = performance.now() - started;
        // Parsing is the client's cost, not the service's: counted after the clock stopped.
        return { ms: elapsed, rows: (JSON.parse(body.toString()) as { result: unknown[] }).result.length };
      };
      const direct = async () => {
        // The values the service binds: the caller's, and those it works out from them.
        const values = modules.withDerivedValues(endpoint.sqlDerived, modules.readRequestParams(endpoint.definition, queryCase.params(++request)).values);
        const bound: Record<string, DuckDBValue> = {};
        // The execution time is bound per query, as the backend does.
        for (const name of endpoint.sqlParameters) bound[name] = name === modules.EXECUTION_TIME_PARAM ? new Date().toISOString() : (values[name] ?? null);
        const started = performance.now();
        const connection = await instance.connect();
        try {
          const reader = await connection.streamAndReadUntil(endpoint.sql, endpoint.definition.max_rows, bound);
          const rows = reader.getRows().length;
          return { ms: performance.now() - started, rows };
        } finally {
          connection.closeSync();
        }
      };

      // Warm-up: the first runs read the file into both processes' buffers.
      const first = [await viaService(), await direct(), await viaService(), await direct()];
      const each = Math.max(first[2]!.ms, first[3]!.ms);
      const samples = Math.max(options.minSamples, Math.min(options.maxSamples, Math.floor(options.budgetMs / (2 * each))));
      const serviceMs: number[] = [];
      const directMs: number[] = [];
      const ratios: number[] = [];
      let rows = 0;
      for (let i = 0; i < samples; i += 1) {
        // Alternating who goes first, so neither always runs right after the other.
        let fromService;
        let fromDuckDb;
        if (i % 2 === 0) {
          fromService = await viaService();
          fromDuckDb = await direct();
        } else {
          fromDuckDb = await direct();
          fromService = await viaService();
        }
        serviceMs.push(fromService.ms);
        directMs.push(fromDuckDb.ms);
        ratios.push(fromService.ms / fromDuckDb.ms);
        // A bucket more or less when the two straddle a minute boundary; anything else is not the same query.
        if (Math.abs(fromService.rows - fromDuckDb.rows) > 1) throw new Error(`${queryCase.label}: the service answered ${fromService.rows} rows, DuckDB ${fromDuckDb.rows}`);
        rows = fromService.rows;
      }
      const cost = {
        label: queryCase.label,
        samples,
        rows,
        service: { p50: median(serviceMs), p95: percentile(serviceMs, 95) },
        direct: { p50: median(directMs), p95: percentile(directMs, 95) },
        pairedRatio: median(ratios),
      };
      options.onCase?.(cost);
      costs.push(cost);
    }
    return costs;
  } finally {
    instance.closeSync();
  }
}

/** One GET, read to the end. A cache hit would measure nothing, so it is an error. */
async function serviceRequest(url: string, queryCase: QueryCase, n: number): Promise<Buffer> {
  const query = new URLSearchParams(queryCase.params(n));
  const response = await fetch(`${url}/api/endpoints/query/${queryCase.endpoint}?${query}`, { headers: { 'x-api-key': API_KEY } });
  const body = Buffer.from(await response.arrayBuffer());
  if (response.status !== 200) throw new Error(`${queryCase.label}: ${response.status} ${body.toString()}`);
  if (queryCase.cached && response.headers.get('x-cache') !== 'MISS') throw new Error(`${queryCase.label}: not a cache miss (${response.headers.get('x-cache')})`);
  return body;
}
