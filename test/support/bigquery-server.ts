/**
 * A local stand-in for BigQuery's REST API (v2), enough for the real @google-cloud/bigquery
 * client pointed at it with CANNERY_BQ_API_ENDPOINT: jobs.query, jobs.getQueryResults (paging
 * with pageToken/maxResults, running jobs), jobs.cancel and tables.get. Everything else is a 404
 * naming the call, so a backend that starts using another API fails loudly here.
 *
 * Tests decide each query's outcome with `answer`, the tables there are with `table`, and read
 * back every request received.
 * Result rows are given in BigQuery's REST form (`{f: [{v}]}`, scalars as strings): `restRows`
 * writes them from plain values.
 */
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SchemaField {
  name: string;
  type: string;
  mode?: 'NULLABLE' | 'REQUIRED' | 'REPEATED';
  description?: string;
  fields?: SchemaField[];
}

/** The parts of a Table resource (tables.get) the tests give; the fake adds its reference and kind. */
export interface TableResource {
  schema?: { fields: SchemaField[] };
  description?: string;
  timePartitioning?: { type: 'HOUR' | 'DAY' | 'MONTH' | 'YEAR'; field?: string };
  type?: 'TABLE' | 'VIEW' | 'EXTERNAL' | 'MATERIALIZED_VIEW';
}

export interface RestResult {
  schema: { fields: SchemaField[] };
  rows: unknown[];
}

export interface FakeError {
  status: number;
  reason: string;
  message: string;
}

/** How the fake answers one jobs.query. */
export type Answer =
  | {
      result: RestResult;
      /** Rows per page at most, whatever maxResults asks (BigQuery also pages by bytes). */
      pageSize?: number;
      /** Responses that say jobComplete: false before the job completes. */
      pendingPolls?: number;
      /** Milliseconds the job takes: jobs.query answers only then (a query that runs a while). */
      delayMs?: number;
    }
  /** The job fails: at jobs.query, or at the first poll after `pendingPolls` incomplete answers. */
  | { error: FakeError; pendingPolls?: number }
  /** The job runs until cancelled; each call waits for its timeoutMs (as BigQuery does), up to `holdMs`. */
  | { running: true; holdMs?: number }
  /** A dry run's estimate. */
  | { dryRunBytes: number };

export interface RecordedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: IncomingHttpHeaders;
  body: any;
}

export interface FakeBigQuery {
  /** The API root, for CANNERY_BQ_API_ENDPOINT. */
  url: string;
  requests: RecordedRequest[];
  /** Sets how the following queries are answered, from each jobs.query request body. */
  answer(decide: (body: any) => Answer): void;
  /** Puts the table `project.dataset.table` there, or takes it away (tables.get then answers 404 as BigQuery does). */
  table(path: string, resource: TableResource | undefined): void;
  /** The tables.get calls received, as `project.dataset.table`. */
  tableReads(): string[];
  /** The bodies of the jobs.query calls received. */
  queries(): any[];
  /** The getQueryResults calls received, as their query strings. */
  polls(): Record<string, string>[];
  /** The job ids cancelled. */
  cancelled(): string[];
  close(): Promise<void>;
}

interface Job {
  id: string;
  location: string;
  answer: Answer;
  pending: number;
  cancelled: boolean;
}

const PREFIX = '/bigquery/v2/projects/';

export async function startFakeBigQuery(): Promise<FakeBigQuery> {
  const requests: RecordedRequest[] = [];
  const jobs = new Map<string, Job>();
  const tables = new Map<string, TableResource>();
  let decide: (body: any) => Answer = () => ({ result: { schema: { fields: [] }, rows: [] } });
  let nextJob = 1;

  const server = createServer((req, res) => {
    void handle(req, res).catch((error: unknown) => send(res, 500, { error: { code: 500, message: String(error), errors: [] } }));
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://fake');
    const text = await readBody(req);
    const body = text ? JSON.parse(text) : undefined;
    requests.push({ method: req.method ?? '', path: url.pathname, query: Object.fromEntries(url.searchParams), headers: req.headers, body });
    const route = url.pathname.startsWith(PREFIX) ? url.pathname.slice(PREFIX.length).split('/') : [];
    const [project, collection, id, action] = route.map(decodeURIComponent);
    if (req.method === 'GET' && collection === 'datasets' && action === 'tables' && route.length === 5) return table(res, project!, id!, decodeURIComponent(route[4]!));
    if (req.method === 'POST' && collection === 'queries' && id === undefined) return query(res, project!, body);
    if (req.method === 'GET' && collection === 'queries' && id !== undefined && action === undefined) return results(res, project!, id, url.searchParams);
    if (req.method === 'POST' && collection === 'jobs' && id !== undefined && action === 'cancel') return cancel(res, project!, id);
    return send(res, 404, googleError({ status: 404, reason: 'notFound', message: `the fake BigQuery does not speak ${req.method} ${url.pathname}` }));
  }

  async function query(res: ServerResponse, project: string, body: any): Promise<void> {
    const answer = decide(body);
    if (body.dryRun) {
      if ('error' in answer) return send(res, answer.error.status, googleError(answer.error));
      const bytes = 'dryRunBytes' in answer ? answer.dryRunBytes : 0;
      return send(res, 200, { kind: 'bigquery#queryResponse', jobComplete: true, totalBytesProcessed: String(bytes), schema: { fields: [] } });
    }
    const job: Job = {
      id: `job_${String(nextJob++).padStart(4, '0')}AbCdEf`,
      location: body.location ?? 'US',
      answer,
      pending: 'pendingPolls' in answer ? (answer.pendingPolls ?? 0) : 0,
      cancelled: false,
    };
    jobs.set(job.id, job);
    if ('delayMs' in answer && answer.delayMs) await new Promise((resolve) => setTimeout(resolve, answer.delayMs));
    return respond(res, project, job, body.timeoutMs, { maxResults: body.maxResults, pageToken: undefined });
  }

  async function results(res: ServerResponse, project: string, id: string, params: URLSearchParams): Promise<void> {
    const job = jobs.get(id);
    if (!job) return send(res, 404, googleError({ status: 404, reason: 'notFound', message: `Not found: Job ${project}:${id}` }));
    const maxResults = params.has('maxResults') ? Number(params.get('maxResults')) : undefined;
    return respond(res, project, job, Number(params.get('timeoutMs') ?? 10_000), { maxResults, pageToken: params.get('pageToken') ?? undefined });
  }

  function table(res: ServerResponse, project: string, dataset: string, name: string): void {
    const resource = tables.get(`${project}.${dataset}.${name}`);
    // BigQuery says which part is missing: the dataset when no table of it exists, else the table.
    const datasetThere = [...tables.keys()].some((path) => path.startsWith(`${project}.${dataset}.`));
    if (!resource) {
      const message = datasetThere ? `Not found: Table ${project}:${dataset}.${name}` : `Not found: Dataset ${project}:${dataset}`;
      return send(res, 404, googleError({ status: 404, reason: 'notFound', message }));
    }
    send(res, 200, {
      kind: 'bigquery#table',
      id: `${project}:${dataset}.${name}`,
      tableReference: { projectId: project, datasetId: dataset, tableId: name },
      type: 'TABLE',
      ...resource,
    });
  }

  function cancel(res: ServerResponse, project: string, id: string): void {
    const job = jobs.get(id);
    if (!job) return send(res, 404, googleError({ status: 404, reason: 'notFound', message: `Not found: Job ${project}:${id}` }));
    job.cancelled = true;
    send(res, 200, { kind: 'bigquery#jobCancelResponse', job: { jobReference: reference(project, job), status: { state: 'DONE' } } });
  }

  async function respond(res: ServerResponse, project: string, job: Job, timeoutMs: number, page: { maxResults?: number; pageToken?: string }): Promise<void> {
    const { answer } = job;
    const jobReference = reference(project, job);
    if ('running' in answer) {
      if (job.cancelled) return send(res, 400, googleError({ status: 400, reason: 'stopped', message: 'Job execution was cancelled: User requested cancellation' }));
      await new Promise((resolve) => setTimeout(resolve, Math.min(timeoutMs, answer.holdMs ?? 1_000)));
      return send(res, 200, { kind: 'bigquery#queryResponse', jobReference, jobComplete: false });
    }
    if (job.pending > 0) {
      job.pending -= 1;
      return send(res, 200, { kind: 'bigquery#queryResponse', jobReference, jobComplete: false });
    }
    if ('error' in answer) return send(res, answer.error.status, googleError(answer.error));
    if (!('result' in answer)) throw new Error('a dry-run answer for a query that is not a dry run');
    const start = page.pageToken ? Number(page.pageToken.replace('page-', '')) : 0;
    const size = Math.min(page.maxResults ?? Infinity, answer.pageSize ?? Infinity);
    const end = Math.min(start + size, answer.result.rows.length);
    send(res, 200, {
      kind: 'bigquery#getQueryResultsResponse',
      jobReference,
      jobComplete: true,
      schema: answer.result.schema,
      totalRows: String(answer.result.rows.length),
      ...(end > start ? { rows: answer.result.rows.slice(start, end) } : {}),
      ...(end < answer.result.rows.length ? { pageToken: `page-${end}` } : {}),
      totalBytesProcessed: '1024',
      cacheHit: false,
    });
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const only = (method: string, pattern: RegExp) => requests.filter((request) => request.method === method && pattern.test(request.path));
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    answer(next) {
      decide = next;
    },
    table(path, resource) {
      if (resource) tables.set(path, resource);
      else tables.delete(path);
    },
    tableReads: () =>
      only('GET', /\/datasets\/[^/]+\/tables\/[^/]+$/).map((request) => {
        const [project, , dataset, , name] = request.path.slice(PREFIX.length).split('/').map(decodeURIComponent);
        return `${project}.${dataset}.${name}`;
      }),
    queries: () => only('POST', /\/queries$/).map((request) => request.body),
    polls: () => only('GET', /\/queries\/[^/]+$/).map((request) => request.query),
    cancelled: () => only('POST', /\/cancel$/).map((request) => decodeURIComponent(request.path.split('/').at(-2)!)),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function reference(project: string, job: Job) {
  return { projectId: project, jobId: job.id, location: job.location };
}

/** An error body as Google's JSON APIs write it. */
function googleError(error: FakeError) {
  return {
    error: {
      code: error.status,
      message: error.message,
      errors: [{ message: error.message, domain: 'global', reason: error.reason }],
      status: error.status === 400 ? 'INVALID_ARGUMENT' : error.status === 404 ? 'NOT_FOUND' : 'UNKNOWN',
    },
  };
}

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=UTF-8', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (text += chunk));
    req.on('end', () => resolve(text));
    req.on('error', reject);
  });
}

/** How TIMESTAMP values are written: int64 microseconds (formatOptions.useInt64Timestamp) or float seconds. */
export type TimestampForm = 'int64' | 'float';

/**
 * Plain rows -> BigQuery's REST form for `fields`. TIMESTAMP values are given as Unix
 * microseconds; DATETIME, DATE and TIME as BigQuery writes them; records as objects,
 * repeated fields as arrays.
 */
export function restRows(fields: SchemaField[], rows: Record<string, unknown>[], timestamps: TimestampForm = 'int64'): unknown[] {
  const record = (fieldList: SchemaField[], value: Record<string, unknown>): unknown => ({
    f: fieldList.map((field) => ({ v: cell(field, value[field.name]) })),
  });
  const scalar = (field: SchemaField, value: unknown): unknown => {
    if (value === null || value === undefined) return null;
    if (field.type === 'RECORD') return record(field.fields ?? [], value as Record<string, unknown>);
    if (field.type === 'TIMESTAMP') return timestamps === 'int64' ? String(value) : floatSeconds(value as number);
    return String(value);
  };
  const cell = (field: SchemaField, value: unknown): unknown =>
    field.mode === 'REPEATED' ? ((value as unknown[] | null) ?? []).map((element) => ({ v: scalar(field, element) })) : scalar(field, value);
  return rows.map((row) => record(fields, row));
}

/** Microseconds as BigQuery's float-seconds text, e.g. 1714557600123456 -> "1.714557600123456E9". */
export function floatSeconds(micros: number): string {
  const digits = String(micros);
  const exponent = digits.length - 7;
  const mantissa = `${digits[0]}.${digits.slice(1).replace(/0+$/, '') || '0'}`;
  return `${mantissa}E${exponent}`;
}
