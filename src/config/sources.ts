/**
 * The logical log sources an endpoint's SQL may read (in backticks), with the fields their
 * tables carry: the one source-schema model, which the DuckDB tables, the seed, name resolution
 * and docs/sql.md all read.
 *
 * The fields are those of the public schemas of these sources (docs/sql.md#sources says which):
 * Supabase Studio's field reference of each log table (packages/shared-data/log-constants.ts),
 * Logflare's Supabase ingest samples (priv/supabase/ingest_samples/*.json) and Supabase's
 * self-hosted log pipeline (docker/volumes/logs/vector.yml), plus fields that Studio's own
 * queries read though its field reference leaves them out (each marked where it is declared).
 * A client query that reads any of them gets values or NULLs, never "no such field".
 *
 * Every source row has id, timestamp, event_message and metadata; most have a top-level
 * project. Nested objects are stored as repeated records (one-element arrays), the convention
 * of the system the spec describes, so SQL reaches them with UNNEST.
 */

/** A scalar type of a source field. */
export type ScalarType = 'string' | 'integer' | 'number' | 'boolean' | 'timestamp';
/** A repeated scalar (BigQuery `ARRAY<..>`), written as the element type with `[]`. */
export type ListType = `${ScalarType}[]`;
/** A field's type in a source schema: a scalar, an array of scalars, or a nested record stored as a repeated record. */
export type FieldShape = ScalarType | ListType | RecordShape;
export interface RecordShape {
  [field: string]: FieldShape;
}

/** The element type of an array-of-scalars field, or undefined for a scalar. */
export function listElement(shape: ScalarType | ListType): ScalarType | undefined {
  return shape.endsWith('[]') ? (shape.slice(0, -2) as ScalarType) : undefined;
}

/**
 * The top-level columns every source's table has, in order, besides `metadata` (a repeated record
 * of the source's own fields). The one list the storage and name resolution both read.
 */
export const COMMON_COLUMNS: Readonly<Record<string, ScalarType>> = {
  id: 'string',
  timestamp: 'timestamp',
  event_message: 'string',
  project: 'string',
};

/**
 * The column every source's table declares NOT NULL: every event has its time (import refuses one
 * without). The DuckDB dialect bounds the newest rows by it (dialects/duckdb/rewrites/top-n-bound.ts).
 */
export const NOT_NULL_COLUMN = 'timestamp';

export interface SourceDescriptor {
  /** Logical name, as written in SQL: `cloudflare.logs.prod`. */
  name: string;
  /** Top-level columns of this source besides `COMMON_COLUMNS` and `metadata`, in order. */
  columns?: Readonly<Record<string, ScalarType>>;
  /** Fields of the repeated `metadata` record. */
  metadata: RecordShape;
}

/**
 * What the API gateway learned of the caller's credentials (`request.sb`): read by Studio's
 * API-key and unified-log queries, though its field reference leaves it out. A legacy JWT API
 * key and a user's session JWT (`jwt.apikey`, `jwt.authorization`) or a new-style API key
 * (`apikey.apikey`).
 */
const jwtPayload: RecordShape = {
  algorithm: 'string',
  expires_at: 'integer',
  issued_at: 'integer',
  issuer: 'string',
  key_id: 'string',
  role: 'string',
  session_id: 'string',
  signature_prefix: 'string',
  subject: 'string',
};
const gatewayAuth: RecordShape = {
  auth_user: 'string',
  jwt: {
    apikey: { invalid: 'string', payload: jwtPayload },
    authorization: { invalid: 'string', payload: jwtPayload },
  },
  apikey: { apikey: { error: 'string', hash: 'string', prefix: 'string' } },
};

const cloudflare: RecordShape = {
  asOrganization: 'string',
  asn: 'integer',
  botManagement: {
    corporateProxy: 'boolean',
    detectionIds: 'integer[]',
    ja3Hash: 'string',
    score: 'integer',
    staticResource: 'boolean',
    verifiedBot: 'boolean',
  },
  city: 'string',
  clientAcceptEncoding: 'string',
  clientTcpRtt: 'integer',
  clientTrustScore: 'integer',
  colo: 'string',
  continent: 'string',
  country: 'string',
  edgeRequestKeepAliveStatus: 'integer',
  httpProtocol: 'string',
  isEUCountry: 'string',
  latitude: 'string',
  longitude: 'string',
  metroCode: 'string',
  postalCode: 'string',
  region: 'string',
  regionCode: 'string',
  timezone: 'string',
  tlsCipher: 'string',
  tlsClientAuth: { certPresented: 'string', certRevoked: 'string', certVerified: 'string' },
  tlsExportedAuthenticator: {
    clientFinished: 'string',
    clientHandshake: 'string',
    serverFinished: 'string',
    serverHandshake: 'string',
  },
  tlsVersion: 'string',
};

const postgresParsed: RecordShape = {
  // application_name, detail and hint: read by Studio's default Postgres and pg_cron queries.
  application_name: 'string',
  backend_type: 'string',
  command_tag: 'string',
  connection_from: 'string',
  context: 'string',
  database_name: 'string',
  detail: 'string',
  error_severity: 'string',
  hint: 'string',
  leader_pid: 'integer',
  process_id: 'integer',
  query: 'string',
  query_id: 'integer',
  query_pos: 'integer',
  session_id: 'string',
  session_line_num: 'integer',
  session_start_time: 'string',
  sql_state_code: 'string',
  timestamp: 'string',
  transaction_id: 'integer',
  user_name: 'string',
  virtual_transaction_id: 'string',
};

export const BUILT_IN_SOURCES: readonly SourceDescriptor[] = [
  {
    name: 'cloudflare.logs.prod',
    // The database (primary or read replica) that served the request.
    columns: { identifier: 'string' },
    metadata: {
      load_balancer_redirect_identifier: 'string',
      logflare_worker: { worker_id: 'string' },
      request: {
        cf: cloudflare,
        headers: {
          accept: 'string',
          cf_connecting_ip: 'string',
          cf_ipcountry: 'string',
          cf_ray: 'string',
          // content_length and content_type: read by Studio's API report and request details.
          content_length: 'string',
          content_type: 'string',
          host: 'string',
          referer: 'string',
          user_agent: 'string',
          x_client_info: 'string',
          x_forwarded_proto: 'string',
          x_real_ip: 'string',
        },
        host: 'string',
        method: 'string',
        path: 'string',
        protocol: 'string',
        sb: gatewayAuth,
        search: 'string',
        url: 'string',
      },
      response: {
        headers: {
          cf_cache_status: 'string',
          cf_ray: 'string',
          // content_disposition, content_length, etag, last_modified, proxy_status and
          // x_sb_error_code: read by Studio's reports and request details.
          content_disposition: 'string',
          content_length: 'string',
          content_location: 'string',
          content_range: 'string',
          content_type: 'string',
          date: 'string',
          etag: 'string',
          last_modified: 'string',
          proxy_status: 'string',
          sb_gateway_mode: 'string',
          sb_gateway_version: 'string',
          transfer_encoding: 'string',
          x_kong_proxy_latency: 'string',
          x_sb_error_code: 'string',
        },
        origin_time: 'integer',
        status_code: 'integer',
      },
    },
  },
  {
    name: 'postgres.logs',
    columns: { identifier: 'string' },
    metadata: { host: 'string', parsed: postgresParsed },
  },
  {
    name: 'deno-relay-logs',
    metadata: {
      deployment_id: 'string',
      // execution_id: read by Studio's default function-edge query.
      execution_id: 'string',
      execution_time_ms: 'integer',
      function_id: 'string',
      project_ref: 'string',
      request: {
        headers: {
          accept: 'string',
          accept_encoding: 'string',
          content_length: 'string',
          host: 'string',
          user_agent: 'string',
          // x_client_info and sb: read by Studio's edge-function request details.
          x_client_info: 'string',
        },
        host: 'string',
        method: 'string',
        pathname: 'string',
        protocol: 'string',
        sb: gatewayAuth,
        search: 'string',
        url: 'string',
      },
      response: {
        headers: {
          content_length: 'string',
          content_type: 'string',
          date: 'string',
          server: 'string',
          vary: 'string',
          // Read by Studio's edge-functions report (invocations by region).
          x_sb_edge_region: 'string',
        },
        status_code: 'integer',
      },
      version: 'string',
    },
  },
  {
    name: 'deno-subhosting-events',
    metadata: {
      deployment_id: 'string',
      event_type: 'string',
      execution_id: 'string',
      function_id: 'string',
      level: 'string',
      project_ref: 'string',
      region: 'string',
      timestamp: 'string',
      version: 'string',
    },
  },
  {
    name: 'gotrue.logs.prod',
    // The fields of Auth's JSON log lines (event_message), which the pipeline copies into metadata.
    metadata: {
      action: 'string',
      args: 'string[]',
      auth_event: {
        action: 'string',
        actor_id: 'string',
        actor_name: 'string',
        actor_username: 'string',
        actor_via_sso: 'boolean',
        log_type: 'string',
        traits: { channel: 'string', provider: 'string', user_email: 'string', user_id: 'string', user_phone: 'string' },
      },
      client_id: 'string',
      component: 'string',
      duration: 'integer',
      error: 'string',
      // error_code and grant_type: read by Studio's auth reports.
      error_code: 'string',
      factor_id: 'string',
      grant_type: 'string',
      header: 'string',
      host: 'string',
      instance_id: 'string',
      issuer: 'string',
      level: 'string',
      login_method: 'string',
      message: 'string',
      metering: 'boolean',
      method: 'string',
      msg: 'string',
      path: 'string',
      project: 'string',
      provider: 'string',
      referer: 'string',
      remote_addr: 'string',
      request_id: 'string',
      source_type: 'string',
      status: 'integer',
      time: 'string',
      timestamp: 'string',
      user_id: 'string',
    },
  },
  {
    name: 'realtime.logs.prod',
    metadata: {
      context: {
        application: 'string',
        domain: 'string[]',
        file: 'string',
        function: 'string',
        gl: 'string',
        line: 'integer',
        mfa: 'string[]',
        module: 'string',
        pid: 'string',
        time: 'integer',
        vm: { node: 'string' },
      },
      external_id: 'string',
      level: 'string',
      measurements: { connected: 'integer', connected_cluster: 'integer', limit: 'integer', sum: 'integer' },
      project: 'string',
    },
  },
  {
    name: 'storage.logs.prod.2',
    metadata: {
      context: { host: 'string', pid: 'integer' },
      level: 'string',
      project: 'string',
      rawError: 'string',
      req: {
        headers: {
          accept: 'string',
          cf_connecting_ip: 'string',
          cf_ray: 'string',
          content_length: 'string',
          content_type: 'string',
          host: 'string',
          referer: 'string',
          user_agent: 'string',
          x_client_info: 'string',
          x_forwarded_proto: 'string',
        },
        hostname: 'string',
        method: 'string',
        remoteAddress: 'string',
        remotePort: 'integer',
        url: 'string',
      },
      reqId: 'string',
      res: { headers: { content_length: 'integer', content_type: 'string' }, statusCode: 'integer' },
      responseTime: 'number',
      tenantId: 'string',
      timestamp: 'string',
    },
  },
  { name: 'postgREST.logs.prod', columns: { identifier: 'string' }, metadata: { host: 'string' } },
  { name: 'pgbouncer.logs.prod', columns: { file: 'string' }, metadata: { host: 'string' } },
];

export function sourceNames(sources: readonly SourceDescriptor[] = BUILT_IN_SOURCES): string[] {
  return sources.map((source) => source.name);
}

/** Every top-level column of a source's table but `metadata`, in order: the common ones, then its own. */
export function topLevelColumns(source: Pick<SourceDescriptor, 'columns'>): Readonly<Record<string, ScalarType>> {
  return { ...COMMON_COLUMNS, ...source.columns };
}
