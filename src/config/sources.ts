/**
 * The logical log sources an endpoint's SQL may read (in backticks), with the fields
 * every table of that source is guaranteed to have.
 *
 * Every source row has id, timestamp, event_message and metadata; most have a top-level
 * project. Nested objects are stored as repeated records (one-element arrays), the
 * convention of the system the spec describes, so SQL reaches them with UNNEST.
 */

/** A field's type in a source schema: a scalar, or a nested record stored as a repeated record. */
export type FieldShape = 'string' | 'integer' | 'number' | 'boolean' | 'timestamp' | RecordShape;
export interface RecordShape {
  [field: string]: FieldShape;
}

/**
 * The top-level columns every source's table has, in order, besides `metadata` (a repeated record
 * of the source's own fields). The one list the storage and name resolution both read.
 */
export const COMMON_COLUMNS: Readonly<Record<string, Exclude<FieldShape, RecordShape>>> = {
  id: 'string',
  timestamp: 'timestamp',
  event_message: 'string',
  project: 'string',
};

export interface SourceDescriptor {
  /** Logical name, as written in SQL: `cloudflare.logs.prod`. */
  name: string;
  /** Fields of the repeated `metadata` record that SQL written for this source may rely on. */
  metadata: RecordShape;
}

const requestHeaders: RecordShape = { x_real_ip: 'string', user_agent: 'string', referer: 'string' };

export const BUILT_IN_SOURCES: readonly SourceDescriptor[] = [
  {
    name: 'cloudflare.logs.prod',
    metadata: {
      request: {
        method: 'string',
        path: 'string',
        search: 'string',
        url: 'string',
        host: 'string',
        headers: requestHeaders,
        cf: { country: 'string', city: 'string' },
      },
      response: { status_code: 'integer', origin_time: 'integer', headers: { cf_cache_status: 'string', content_type: 'string' } },
    },
  },
  {
    name: 'postgres.logs',
    metadata: {
      host: 'string',
      parsed: {
        error_severity: 'string',
        user_name: 'string',
        database_name: 'string',
        query: 'string',
        sql_state_code: 'string',
      },
    },
  },
  {
    name: 'deno-relay-logs',
    metadata: {
      project_ref: 'string',
      function_id: 'string',
      execution_id: 'string',
      deployment_id: 'string',
      execution_time_ms: 'integer',
      request: { method: 'string', url: 'string', pathname: 'string' },
      response: { status_code: 'integer' },
    },
  },
  {
    name: 'deno-subhosting-events',
    metadata: { project_ref: 'string', function_id: 'string', execution_id: 'string', level: 'string', event_type: 'string' },
  },
  {
    name: 'gotrue.logs.prod',
    metadata: { level: 'string', status: 'integer', path: 'string', method: 'string', msg: 'string', remote_addr: 'string' },
  },
  { name: 'realtime.logs.prod', metadata: { project: 'string', level: 'string', external_id: 'string' } },
  { name: 'storage.logs.prod.2', metadata: { project: 'string', level: 'string', req_id: 'string' } },
  { name: 'postgREST.logs.prod', metadata: { host: 'string', level: 'string' } },
  { name: 'pgbouncer.logs.prod', metadata: { host: 'string', level: 'string' } },
];

export function sourceNames(sources: readonly SourceDescriptor[] = BUILT_IN_SOURCES): string[] {
  return sources.map((source) => source.name);
}
