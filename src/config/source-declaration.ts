/**
 * A source as a user declares it in `sources/*.yaml` (schemas/source.schema.json): its columns in
 * BigQuery's own schema form, what `bq show --schema` prints and `tables.get` returns. The loader
 * (config) produces it; name resolution and static types (sql), the DuckDB tables and import
 * (backends/duckdb) and the BigQuery table mapping (backends/bigquery) read it.
 */

/** A column type, by BigQuery's standard name (the legacy INTEGER, FLOAT, BOOLEAN and STRUCT are read as these). */
export type DeclaredType =
  | 'STRING'
  | 'BYTES'
  | 'INT64'
  | 'FLOAT64'
  | 'NUMERIC'
  | 'BIGNUMERIC'
  | 'BOOL'
  | 'TIMESTAMP'
  | 'DATE'
  | 'DATETIME'
  | 'TIME'
  | 'JSON'
  | 'RECORD';

export type DeclaredMode = 'NULLABLE' | 'REQUIRED' | 'REPEATED';

export interface DeclaredField {
  name: string;
  type: DeclaredType;
  /** NULLABLE when the file leaves it out. */
  mode: DeclaredMode;
  description?: string;
  /** A RECORD's fields, in order; present exactly when `type` is RECORD. */
  fields?: DeclaredField[];
}

export interface SourceDeclaration {
  /** As written in SQL, in backticks: `shop.orders`. */
  name: string;
  /** The UUID the file declares (`id:`); sourceId (config/sources.ts) gives every source's. */
  id?: string;
  description?: string;
  /** A top-level TIMESTAMP (or DATE, DATETIME) column that orders storage and bounds "newest N" queries. */
  timeColumn?: string;
  columns: DeclaredField[];
  /** The BigQuery table it maps to (`project.dataset.table`), when the file names one. */
  bigqueryTable?: string;
  /** The file it was read from, for errors. */
  file?: string;
}

/** BigQuery's legacy type names, read as the standard ones. */
export const LEGACY_TYPE_NAMES: Readonly<Record<string, DeclaredType>> = {
  INTEGER: 'INT64',
  FLOAT: 'FLOAT64',
  BOOLEAN: 'BOOL',
  STRUCT: 'RECORD',
  DECIMAL: 'NUMERIC',
  BIGDECIMAL: 'BIGNUMERIC',
};
