/**
 * The production backend: BigQuery, through @google-cloud/bigquery.
 *
 * A query is one jobs.query call (standard SQL, NAMED typed parameters, job labels,
 * maximumBytesBilled, jobTimeoutMs, a first page of at most maxRows rows), then
 * jobs.getQueryResults while the job runs, or while pages remain and the row cap is not
 * reached. The client provides the transport: credentials, retries of transient failures,
 * the API root and error parsing. The REST calls are made through it directly because its
 * query helpers parse values into wrapper objects, route around jobs.query when a job
 * timeout is set, and leave a timed-out job running; and the body is sent as text because
 * the client rewrites `{{projectId}}` inside any JSON body it is given, SQL and values too.
 */
import { randomUUID } from 'node:crypto';
import { BigQuery, type BigQueryOptions } from '@google-cloud/bigquery';
import { checkBigQueryComplete, declaredTables, type BigQuerySettings } from '../../config/bigquery-settings.js';
import type { SourceDeclaration } from '../../config/source-declaration.js';
import { CanneryError } from '../../core/errors.js';
import type { WireRow } from '../../core/types.js';
import { bigQueryDialect } from '../../sql/dialects/bigquery/dialect.js';
import { sourceTables, tablePathSpellings } from '../../sql/dialects/bigquery/tables.js';
import type { TablePath } from '../../sql/generator/dialect.js';
import { bigQueryError, type ErrorContext } from './errors.js';
import { jobLabels, queryParameters } from './request.js';
import { readTable, type TableLookup } from './table-schema.js';
import { decodeRows, type ResultSchema } from './values.js';
import { resultBudget } from '../../engine/serve/result-budget.js';
import type { Backend, QueryRequest, QueryResult } from '../../engine/backend.js';

export interface BigQueryBackendOptions {
  /** The project that runs (and is billed for) the jobs. */
  project: string;
  /** Every source's table. */
  tables: ReadonlyMap<string, TablePath>;
  location?: string;
  /** Another API root (an emulator, a test server); requests then carry no credentials. */
  apiEndpoint?: string;
  maxBytesBilled?: string;
  /** Retries of a request that failed transiently (429, 5xx, network); the client's default is 3. */
  maxRetries?: number;
  /** Every source's table once the project declares `declared` (serve's hot reload of a source file); throws where one has none. */
  tablesFor?: (declared: readonly SourceDeclaration[]) => ReadonlyMap<string, TablePath>;
}

export interface BigQueryBackend extends Backend {
  readonly name: 'bigquery';
  /** Validates the query with BigQuery and returns the bytes it would scan, without running it. */
  dryRun(request: QueryRequest): Promise<{ totalBytesProcessed: number }>;
  /** The table's schema, partitioning and description (tables.get), or BigQuery's words for its absence. */
  readTable(path: TablePath): Promise<TableLookup>;
}

/** The backend options the settings describe; refuses settings that leave a source without a table. */
export function bigQueryBackendOptions(
  settings: BigQuerySettings,
  sources: readonly string[],
  /** The project's declared sources: their names are sources too, and a file's `bigquery.table` maps one. */
  declared: readonly SourceDeclaration[] = [],
): BigQueryBackendOptions {
  checkBigQueryComplete(settings, declared);
  const { project } = settings;
  const tablesFor = (next: readonly SourceDeclaration[]) => {
    checkBigQueryComplete(settings, next);
    // Without a dataset every source has an override (checkBigQueryComplete), so none is named after it.
    return sourceTables([...sources, ...next.map((d) => d.name)], { project, dataset: settings.dataset ?? '' }, declaredTables(settings, next));
  };
  return {
    project,
    tables: tablesFor(declared),
    tablesFor,
    location: settings.location,
    apiEndpoint: settings.apiEndpoint,
    maxBytesBilled: settings.maxBytesBilled,
  };
}

/** jobs.query / jobs.getQueryResults response fields this backend reads. */
interface QueryResponse {
  jobReference?: { jobId?: string; location?: string };
  jobComplete?: boolean;
  schema?: ResultSchema;
  rows?: unknown[];
  pageToken?: string;
  totalBytesProcessed?: string;
}

/** A job as far as this query knows it, and whether the caller has stopped waiting for it. */
interface JobState {
  id?: string;
  location?: string;
  abandoned: boolean;
}

/** Slack for one HTTP exchange beyond the time BigQuery is asked to wait. */
const HTTP_GRACE_MS = 2_000;

/**
 * An emulator or test server takes no credentials, so none are looked up or sent: the client
 * asks its auth client only for request headers. (google-auth-library's PassThroughClient does
 * the same; it is not a direct dependency.)
 */
const NO_CREDENTIALS = { getRequestHeaders: async () => new Headers() } as unknown as BigQueryOptions['authClient'];

export function createBigQueryBackend(options: BigQueryBackendOptions): BigQueryBackend {
  const client = new BigQuery({
    projectId: options.project,
    location: options.location,
    ...(options.apiEndpoint ? { apiEndpoint: options.apiEndpoint, authClient: NO_CREDENTIALS } : {}),
    ...(options.maxRetries === undefined ? {} : { retryOptions: { maxRetries: options.maxRetries, autoRetry: options.maxRetries > 0 } }),
  });
  // The table paths an error may name, longest first, each with its source; a redeclare makes them anew.
  const spellings = (tables: ReadonlyMap<string, TablePath>) =>
    [...tables].flatMap(([source, path]) => tablePathSpellings(path).map((spelling) => [spelling, source] as const)).sort(([a], [b]) => b.length - a.length);
  let tableNames = spellings(options.tables);
  let dialect = bigQueryDialect(options.tables);

  function call(method: 'GET' | 'POST', uri: string, timeoutMs: number, request: { body?: object; qs?: Record<string, string | number | boolean> } = {}): Promise<QueryResponse> {
    return new Promise((resolve, reject) => {
      client.request(
        {
          method,
          uri,
          qs: request.qs,
          // Text, not `json`: the client rewrites {{projectId}} in a JSON body's strings.
          ...(request.body ? { body: JSON.stringify(request.body), headers: { 'Content-Type': 'application/json' } } : {}),
          timeout: timeoutMs + HTTP_GRACE_MS,
        },
        (error, body) => {
          if (error) return reject(error);
          // The client parses JSON bodies; a text body is one that was not JSON (a proxy's error page).
          if (typeof body === 'string') return reject(new Error(`BigQuery answered with something other than JSON: ${body.slice(0, 200)}`));
          resolve(body as QueryResponse);
        },
      );
    });
  }

  function requestBody(request: QueryRequest): object {
    return {
      query: request.sql,
      useLegacySql: false,
      parameterMode: 'NAMED',
      queryParameters: queryParameters(request.parameters, request.specs, request.values),
      labels: jobLabels(request.endpointName),
      location: options.location,
      maximumBytesBilled: options.maxBytesBilled,
      // BigQuery stops the job itself at the same limit, so a query nobody waits for stops costing.
      jobTimeoutMs: String(request.timeoutMs),
      requestId: randomUUID(),
    };
  }

  /** The first page from jobs.query, then getQueryResults until done or maxRows rows are in. */
  async function fetchRows(request: QueryRequest, body: object, deadline: number, job: JobState): Promise<WireRow[]> {
    const left = () => Math.max(deadline - Date.now(), 0);
    let page = await call('POST', '/queries', left(), {
      body: { ...body, timeoutMs: left(), maxResults: request.maxRows, formatOptions: { useInt64Timestamp: true } },
    });
    job.id = page.jobReference?.jobId;
    job.location = page.jobReference?.location ?? options.location;
    if (job.abandoned) {
      cancel(job);
      return [];
    }
    const rows: WireRow[] = [];
    // One budget across pages: the answer is all of them.
    const budget = resultBudget(request.maxBytes);
    let schema = page.schema;
    for (;;) {
      if (page.jobComplete) {
        schema = page.schema ?? schema;
        for (const row of await decodeRows(schema, page.rows ?? [], budget)) rows.push(row);
        if (rows.length >= request.maxRows || !page.pageToken) break;
      }
      if (job.abandoned) return rows;
      if (!job.id) throw new CanneryError('query_failed', `${request.endpointName}: BigQuery returned no job to read the results from`);
      const qs: Record<string, string | number | boolean> = {
        maxResults: request.maxRows - rows.length,
        timeoutMs: left(),
        'formatOptions.useInt64Timestamp': true,
      };
      if (job.location) qs.location = job.location;
      if (page.jobComplete && page.pageToken) qs.pageToken = page.pageToken;
      page = await call('GET', `/queries/${encodeURIComponent(job.id)}`, left(), { qs });
    }
    return rows.slice(0, request.maxRows);
  }

  /** Best effort: the job may have finished, and jobTimeoutMs stops it anyway. */
  function cancel(job: JobState): void {
    if (!job.id) return;
    call('POST', `/jobs/${encodeURIComponent(job.id)}/cancel`, 5_000, job.location ? { qs: { location: job.location } } : {}).catch(() => {});
  }

  /** Runs `work` until the request's time limit; past it the caller gets query_timeout and the job is cancelled. */
  async function withinTimeLimit<T>(request: QueryRequest, work: (deadline: number, job: JobState) => Promise<T>): Promise<T> {
    const job: JobState = { abandoned: false };
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        job.abandoned = true;
        cancel(job);
        reject(new CanneryError('query_timeout', `${request.endpointName}: the query did not finish within ${request.timeoutMs} ms`));
      }, request.timeoutMs);
    });
    const context: ErrorContext = {
      endpointName: request.endpointName,
      parameters: request.parameters,
      values: request.values,
      specs: request.specs,
      tableNames,
    };
    try {
      return await Promise.race([work(Date.now() + request.timeoutMs, job), timedOut]);
    } catch (error) {
      throw error instanceof CanneryError ? error : bigQueryError(error, context);
    } finally {
      clearTimeout(timer);
    }
  }

  return {
    name: 'bigquery',
    get dialect() {
      return dialect;
    },
    ...(options.tablesFor
      ? {
          async redeclare(declared: readonly SourceDeclaration[]) {
            const tables = options.tablesFor!(declared);
            tableNames = spellings(tables);
            dialect = bigQueryDialect(tables);
          },
        }
      : {}),
    async run(request: QueryRequest): Promise<QueryResult> {
      const started = performance.now();
      const body = requestBody(request);
      const rows = await withinTimeLimit(request, (deadline, job) => fetchRows(request, body, deadline, job));
      return { rows, backendMs: performance.now() - started };
    },
    async dryRun(request) {
      const body = { ...requestBody(request), dryRun: true };
      const response = await withinTimeLimit(request, () => call('POST', '/queries', request.timeoutMs, { body }));
      return { totalBytesProcessed: Number(response.totalBytesProcessed ?? 0) };
    },
    readTable: (path) => readTable(client, path),
    async close() {
      // Nothing to release: the client's idle keep-alive sockets do not hold the process open.
    },
  };
}
