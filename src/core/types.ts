/** The shapes that flow config -> sql -> engine -> backends. Plain data, no behaviour. */

export type ParamType = 'string' | 'integer' | 'number' | 'boolean';

/**
 * Extra checks a string parameter can carry. `regex`: a valid RE2 pattern.
 * `date-time`: an ISO 8601 timestamp with `Z` or an offset, bound in canonical UTC form.
 */
export type ParamFormat = 'regex' | 'date-time';

export interface ParamSpec {
  type: ParamType;
  required: boolean;
  description?: string;
  enum?: string[];
  format?: ParamFormat;
}

export type CacheSettings = false | { ttl_seconds: number; warm_every_seconds?: number };

/** One endpoint file, as validated against schemas/endpoint.schema.json. */
export interface EndpointDefinition {
  id: string;
  name: string;
  description: string;
  language: 'bq_sql';
  query: string;
  params: Record<string, ParamSpec>;
  max_rows: number;
  cache: CacheSettings;
  sandbox: boolean;
  redact_pii: boolean;
}

/** Where a definition came from, so every problem can name a file and a line. */
export interface SourceLocation {
  file: string;
  line: number;
}

/** A problem found while loading, analysing or compiling an endpoint file. */
export interface Problem extends SourceLocation {
  message: string;
  field?: string;
}

/** A bound parameter value, already validated and normalised; null is "absent". */
export type BoundValue = string | number | boolean | null;
export type BoundParams = Record<string, BoundValue>;

/** A row on the wire: values already in the wire format of DESIGN.md. */
export type WireValue = string | number | boolean | null | WireValue[] | { [key: string]: WireValue };
export type WireRow = Record<string, WireValue>;

/**
 * A column or nested field: a scalar type, a record with its fields, or no type when computed.
 * The log sources' five types, then those a declared source may have besides (BigQuery's names,
 * lowercase).
 */
export type CatalogScalarType = 'string' | 'integer' | 'number' | 'boolean' | 'timestamp' | 'numeric' | 'bignumeric' | 'date' | 'datetime' | 'time' | 'bytes' | 'json';

export interface CatalogField {
  name: string;
  /** A scalar type, an array of one (`string[]`), or a record (a log source's repeated, a declared one's either) with `fields`. */
  type?: CatalogScalarType | `${CatalogScalarType}[]` | 'record';
  fields?: CatalogField[];
}

/** An endpoint as GET /api/endpoints describes it (engine/serve/catalog.ts): what a client needs to call it. */
export interface CatalogEndpoint {
  id: string;
  name: string;
  description: string;
  max_rows: number;
  /**
   * The LIMIT the endpoint's own query writes, when it is below max_rows: the most rows that query
   * answers (a sandbox query of the caller's own is held to max_rows alone). Absent otherwise.
   */
  query_limit?: number;
  cache: CacheSettings;
  sandbox: boolean;
  redact_pii: boolean;
  params: Record<string, ParamSpec>;
  /**
   * The values the caller's key or token allows for the parameters it fixes (docs/access.md): one
   * value, the parameter is fixed to it; several, it is one of them. Absent: nothing is fixed.
   */
  fixed?: Record<string, string[]>;
  /** Sandbox endpoints only: the CTEs a sandbox query reads, in the query's order. */
  ctes?: { name: string; columns: CatalogField[] }[];
}

/**
 * A result column's type in BigQuery's terms: what an endpoint promises its callers, whichever
 * backend runs it. Repeated records are arrays of structs.
 */
export type ColumnType =
  | { kind: 'scalar'; name: ScalarTypeName }
  | { kind: 'array'; element: ColumnType }
  | { kind: 'struct'; fields: ColumnField[] }
  /** A type with no BigQuery counterpart, named as the engine that found it names it. */
  | { kind: 'unknown'; description: string };

export type ScalarTypeName =
  | 'STRING'
  | 'INT64'
  | 'FLOAT64'
  | 'NUMERIC'
  | 'BOOL'
  | 'TIMESTAMP'
  | 'DATETIME'
  | 'DATE'
  | 'TIME'
  | 'BYTES'
  | 'INTERVAL'
  | 'JSON';

export interface ColumnField {
  name: string;
  type: ColumnType;
}

/**
 * What callers of an endpoint rely on: the parameters they may send and the columns they get
 * back. A change to either is what `cannery diff` classes as breaking or compatible.
 */
export interface EndpointContract {
  /** As declared, without descriptions (prose is not part of the contract). */
  params: Record<string, Omit<ParamSpec, 'description'>>;
  columns: ColumnField[];
}
