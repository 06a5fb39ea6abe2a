/** One interface for every backend: run compiled SQL with bound parameters, return wire rows. */
import type { WriteBack } from '../sql/parse/tree.js';
import type { Dialect } from '../sql/generator/dialect.js';
import type { BoundParams, ColumnField, ParamSpec, WireRow } from '../core/types.js';
import type { SourceDeclaration } from '../config/source-declaration.js';

export interface QueryRequest {
  sql: string;
  /** Names the SQL binds, from the compile step. */
  parameters: readonly string[];
  /** Validated values of every declared parameter; null is absent. */
  values: BoundParams;
  /** The declared parameters' specs, for backends that bind typed values. */
  specs: Readonly<Record<string, ParamSpec>>;
  /** Execution time; what BigQuery's CURRENT_TIMESTAMP means for this query. */
  now: Date;
  /** No more rows than this are fetched. */
  maxRows: number;
  /**
   * The answer's byte budget (CANNERY_MAX_RESULT_BYTES): a backend spends it (result-budget.ts)
   * while it converts rows, and stops with result_too_large once they are certainly over it.
   */
  maxBytes: number;
  timeoutMs: number;
  /** Names the endpoint, for backends that label jobs. */
  endpointName: string;
  /**
   * The SQL is an endpoint's own compiled text, the same at every request of it (a caller's
   * sandbox SQL is not): a backend may keep what it prepared of it for the next request.
   */
  recurring?: boolean;
  /** Columns stored otherwise than BigQuery types them, written back as rows are converted (the generator's `writeBack`). */
  writeBack?: Record<string, WriteBack> | undefined;
}

export interface QueryResult {
  rows: WireRow[];
  /** Time the backend spent, in milliseconds. */
  backendMs: number;
}

export interface Backend {
  readonly name: 'duckdb' | 'bigquery';
  /** Read at each use: a backend that takes new declarations (redeclare) writes SQL for them from then on. */
  readonly dialect: Dialect;
  run(request: QueryRequest): Promise<QueryResult>;
  /**
   * Takes the project's declared sources anew, as a start would (serve's hot reload of a changed
   * source file): on the embedded engine their tables are created or migrated. Throws, leaving
   * the backend as it was, where that is refused.
   */
  redeclare?(declared: readonly SourceDeclaration[]): Promise<void>;
  close(): Promise<void>;
}

/** Log events by source name, each an object as `cannery import` reads one NDJSON line. */
export type SourceEvents = Readonly<Record<string, readonly unknown[]>>;

/** A backend over a database made for one use: it holds only the events it was opened with. */
export interface ScratchBackend extends Backend {
  /** The columns the query would return, with their types, found without reading any row. */
  describe(request: QueryRequest): Promise<ColumnField[]>;
}

/**
 * Makes throwaway embedded databases: endpoint tests run each on a fresh one holding the test's
 * events, and contracts are described on one holding none.
 */
export interface ScratchEngine {
  readonly dialect: Dialect;
  open(events: SourceEvents): Promise<ScratchBackend>;
}

/** An event the scratch engine cannot store, named by its source and its index there. */
export class InvalidEvent extends Error {
  readonly source: string;
  readonly index: number;

  constructor(source: string, index: number, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'InvalidEvent';
    this.source = source;
    this.index = index;
  }
}
