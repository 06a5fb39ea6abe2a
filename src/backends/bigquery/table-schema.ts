/**
 * A BigQuery table's schema (tables.get) in a source declaration's terms: what `cannery sources
 * pull` writes, and what `cannery check --dry-run` holds each declaration against. BigQuery's
 * legacy type names (INTEGER, FLOAT, BOOLEAN, RECORD's STRUCT) are read as the standard ones, as a
 * source file's are, so the two compare by meaning and never by spelling.
 */
import type { BigQuery, TableField, TableMetadata } from '@google-cloud/bigquery';
import { LEGACY_TYPE_NAMES, type DeclaredField, type DeclaredMode, type DeclaredType, type SourceDeclaration } from '../../config/source-declaration.js';
import { TIME_COLUMN_TYPES } from '../../config/source-files.js';
import { CanneryError } from '../../core/errors.js';
import { tablePathText } from '../../sql/dialects/bigquery/tables.js';
import type { TablePath } from '../../sql/generator/dialect.js';

/** What tables.get said: the table, or BigQuery's words for what is not there (the dataset, or the table). */
export type TableLookup = { found: true; metadata: TableMetadata } | { found: false; reason: string };

/** One tables.get, in the BASIC view (schema and partitioning, without the storage statistics BigQuery must gather). */
export async function readTable(client: BigQuery, path: TablePath): Promise<TableLookup> {
  try {
    const [metadata] = await client.dataset(path.dataset, { projectId: path.project }).table(path.table).getMetadata({ view: 'BASIC' });
    return { found: true, metadata: metadata as TableMetadata };
  } catch (error) {
    const { code, errors, message } = error as { code?: unknown; errors?: { reason?: string; message?: string }[]; message?: string };
    const said = errors?.[0]?.message ?? message ?? String(error);
    if (code === 404) return { found: false, reason: said };
    const credentials = code === 401 || /default credentials/i.test(said) ? ' (credentials: docs/bigquery.md)' : '';
    throw new CanneryError('query_failed', `BigQuery could not read table ${tablePathText(path)}${credentials}: ${said}`);
  }
}

/** Every type a source file declares, by its standard name. */
const DECLARABLE: Readonly<Record<DeclaredType, true>> = {
  STRING: true,
  BYTES: true,
  INT64: true,
  FLOAT64: true,
  NUMERIC: true,
  BIGNUMERIC: true,
  BOOL: true,
  TIMESTAMP: true,
  DATE: true,
  DATETIME: true,
  TIME: true,
  JSON: true,
  RECORD: true,
};

/** A BigQuery type by the name a declaration uses, or undefined for one no source file can declare (GEOGRAPHY, INTERVAL, RANGE). */
function declaredType(type: string | undefined): DeclaredType | undefined {
  const upper = (type ?? '').toUpperCase();
  return LEGACY_TYPE_NAMES[upper] ?? (upper in DECLARABLE ? (upper as DeclaredType) : undefined);
}

function modeOf(field: TableField): DeclaredMode {
  const mode = (field.mode ?? 'NULLABLE').toUpperCase();
  return mode === 'REQUIRED' || mode === 'REPEATED' ? mode : 'NULLABLE';
}

/** A column of the table no source file can declare, by its path as SQL reads it (`geo`, `items.area`). */
export interface Undeclarable {
  path: string;
  type: string;
}

interface Columns {
  columns: DeclaredField[];
  undeclarable: Undeclarable[];
}

/** The table's fields as declared fields; the ones a source file cannot declare are left out and listed. */
function declaredColumns(fields: readonly TableField[], prefix = ''): Columns {
  const result: Columns = { columns: [], undeclarable: [] };
  for (const field of fields) {
    const name = field.name ?? '';
    const path = `${prefix}${name}`;
    const type = declaredType(field.type);
    if (type === undefined) {
      result.undeclarable.push({ path, type: field.type ?? 'no type' });
      continue;
    }
    const column: DeclaredField = { name, type, mode: modeOf(field) };
    if (field.description) column.description = field.description;
    if (type === 'RECORD') {
      const inner = declaredColumns(field.fields ?? [], `${path}.`);
      result.undeclarable.push(...inner.undeclarable);
      // A source file's RECORD has at least one field: one left with none cannot be written.
      if (inner.columns.length === 0) {
        result.undeclarable.push({ path, type: 'RECORD with no field a source file can declare' });
        continue;
      }
      column.fields = inner.columns;
    }
    result.columns.push(column);
  }
  return result;
}

/**
 * The declaration of a table as BigQuery describes it: its columns (nested and repeated fields,
 * modes and descriptions kept), its description, `bigquery.table` naming it, and as the time column
 * the column it is partitioned by, which is what its queries bound by time.
 */
export function pulledDeclaration(name: string, path: TablePath, metadata: TableMetadata): { declaration: SourceDeclaration; undeclarable: Undeclarable[] } {
  const { columns, undeclarable } = declaredColumns(metadata.schema?.fields ?? []);
  const declaration: SourceDeclaration = { name, columns, bigqueryTable: tablePathText(path) };
  if (metadata.description) declaration.description = metadata.description;
  const partitionedBy = metadata.timePartitioning?.field;
  const timeColumn = columns.find((column) => column.name === partitionedBy);
  if (timeColumn && timeColumn.mode !== 'REPEATED' && TIME_COLUMN_TYPES.includes(timeColumn.type)) declaration.timeColumn = timeColumn.name;
  return { declaration, undeclarable };
}

/** One way a declaration and its BigQuery table disagree. */
export interface SchemaDifference {
  /** The column's path as SQL reads it (`items.sku`). */
  path: string;
  /** The declared column the difference is at, or for a column the declaration lacks the record holding it ('' at the top). */
  declared: string;
  message: string;
}

export interface SchemaComparison {
  differences: SchemaDifference[];
  /** Columns of the table no source file can declare: not declared, and not a difference either. */
  undeclarable: Undeclarable[];
}

/**
 * Every difference between the declared columns and the table's, nested fields alike: a declared
 * column the table lacks, a column of the table not declared, another type, another mode, another
 * spelling of the name (BigQuery's names ignore case, but `SELECT *` answers with the table's).
 */
export function schemaDifferences(declared: readonly DeclaredField[], table: TableMetadata, tableName: string): SchemaComparison {
  const comparison: SchemaComparison = { differences: [], undeclarable: [] };
  compareFields(declared, table.schema?.fields ?? [], '', tableName, comparison);
  return comparison;
}

function compareFields(declared: readonly DeclaredField[], actual: readonly TableField[], prefix: string, tableName: string, into: SchemaComparison): void {
  const byName = new Map(actual.map((field) => [(field.name ?? '').toLowerCase(), field]));
  const record = prefix.replace(/\.$/, '');
  const differ = (path: string, at: string, message: string) => into.differences.push({ path, declared: at, message });
  for (const column of declared) {
    const path = `${prefix}${column.name}`;
    const field = byName.get(column.name.toLowerCase());
    byName.delete(column.name.toLowerCase());
    if (field === undefined) {
      differ(path, path, `column ${path} is declared, but ${tableName} has no such column`);
      continue;
    }
    if (field.name !== column.name) differ(path, path, `column ${path} is spelled ${prefix}${field.name} in ${tableName}`);
    const type = declaredType(field.type);
    if (type !== column.type) differ(path, path, `column ${path} is declared ${column.type}; ${tableName} has it ${type ?? field.type}`);
    const mode = modeOf(field);
    if (mode !== column.mode) differ(path, path, `column ${path} is declared ${column.mode}; ${tableName} has it ${mode}`);
    if (type === 'RECORD' && column.type === 'RECORD') compareFields(column.fields ?? [], field.fields ?? [], `${path}.`, tableName, into);
  }
  for (const field of byName.values()) {
    const path = `${prefix}${field.name}`;
    if (declaredType(field.type) === undefined) into.undeclarable.push({ path, type: field.type ?? 'no type' });
    else differ(path, record, `${tableName} has column ${path} (${declaredType(field.type)}, ${modeOf(field)}), which is not declared`);
  }
}
