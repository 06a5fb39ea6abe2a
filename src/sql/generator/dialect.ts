/**
 * A dialect: how the one generator writes the query tree for one backend (sqlglot's per-dialect
 * Generator settings). The parts that are data (quoting, how a parameter is written, which table a
 * source is) are fields; a node the dialect writes its own way has a transform; what the dialect
 * needs in a different shape first (DuckDB's UNNEST) is a rewrite of the tree, run before printing.
 * Functions, cast types and the rest of the language come from the language table, by `name`.
 */
import type { ShapeData } from '../analyse/shape-data.js';
import type { DialectName } from '../language.js';
import type { DerivedParameter, Expr, OrderItem, Query, SelectItem, TypeName, WriteBack } from '../parse/tree.js';

export interface CompiledSql {
  /** Executable SQL, parameters as placeholders. */
  sql: string;
  /** Names of the parameters the SQL binds, in order of first use. */
  parameters: string[];
  /** Those of them the engine works out from the caller's parameters, by name. */
  derived: Record<string, DerivedParameter>;
  /** Columns of the answer the backend writes back into BigQuery's types as it converts rows (tree.ts `WriteBack`). */
  writeBack?: Record<string, WriteBack> | undefined;
}

/** What a transform may ask of the printer it overrides. */
export interface Printer {
  readonly dialect: Dialect;
  expr(expr: Expr): string;
  query(query: Query): string;
  typeName(type: TypeName): string;
  identifier(name: string): string;
  string(value: string): string;
  /** Refuses the construct: the generator's one way of saying a backend cannot run something. */
  refuse(what: string, node?: { loc?: Expr['loc'] }): never;
}

/** A node printer; undefined means "as the generator writes it by default". */
export type Transform<T> = (node: T, printer: Printer) => string | undefined;

export type ExprTransforms = { [K in Expr['kind']]?: Transform<Extract<Expr, { kind: K }>> };

export interface Transforms extends ExprTransforms {
  selectItem?: Transform<SelectItem>;
  /** An ORDER BY key, of a query, an aggregate or a window whose frame is not a RANGE of offsets. */
  orderItem?: Transform<OrderItem>;
  /** A type (CAST's target, a typed literal's, an ARRAY or STRUCT's) in the dialect's words. */
  typeName?: Transform<TypeName>;
}

/** A pass over the tree that rewrites it into the shape the dialect prints. */
export type Rewrite = (query: Query) => Query;

/**
 * A dialect's settings: everything its SQL depends on besides cannery's own code, as plain JSON
 * data. The compile cache keys on them (a changed table mapping or table column compiles anew),
 * and worker threads, which cannot be handed functions, rebuild the dialect from them
 * (dialects/from-settings.ts).
 */
export type DialectSettings = DuckDbDialectSettings | BigQueryDialectSettings;

export interface DuckDbDialectSettings {
  name: 'duckdb';
  sources: string[];
  /** The columns of each source whose columns are known, by source name. */
  columns: Record<string, [string, ShapeData][]>;
  strictNames: boolean;
}

/** A BigQuery table, `project.dataset.table`. */
export interface TablePath {
  project: string;
  dataset: string;
  table: string;
}

export interface BigQueryDialectSettings {
  name: 'bigquery';
  /** Source name -> table, in the map's order. */
  tables: [string, TablePath][];
}

export interface Dialect {
  readonly name: DialectName;
  /**
   * Everything else this dialect's SQL depends on, as plain data (below, DialectSettings): the
   * compile cache keys on it and worker threads rebuild the dialect from it. An option a dialect
   * takes belongs here, or a cached endpoint would keep SQL compiled without it.
   */
  readonly settings: DialectSettings;
  quoteIdentifier(name: string): string;
  /** How a CTE's name is written where it is defined. */
  cteName(name: string): string;
  quoteString(value: string): string;
  /** A bound parameter's placeholder. */
  parameter(name: string): string;
  /** The SQL of a source's table; undefined for a name that is no source. */
  relation(source: string): string | undefined;
  /** Run in order before printing. */
  readonly rewrites: readonly Rewrite[];
  readonly transforms: Transforms;
}
