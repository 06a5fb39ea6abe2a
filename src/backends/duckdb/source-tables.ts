/**
 * Source tables in DuckDB: one table per logical source, named exactly like the source, with
 * the columns of `sourceColumns`. Tables are created when missing and otherwise only ever
 * widened, so data already loaded, and SQL already written, keep working.
 */
import type { DuckDBConnection } from '#duckdb-api';
import { BUILT_IN_SOURCES, NOT_NULL_COLUMN, type SourceDescriptor } from '../../config/sources.js';
import { quoteIdentifier, quoteString } from '../../sql/dialects/duckdb/quote.js';
import { columnDefinitions, duckdbType, shapeFromDuckDBType, sourceColumns } from './column-types.js';
import { DataError } from './data-error.js';
import { convertLayout, layoutChanged } from './layout-sql.js';
import { CURRENT_LAYOUT, layoutComment, layoutOfComment } from './layout-version.js';
import { cloneShape, emptyRecord, fieldKey, mergeRecord, recordShapeToValueShape, type RecordValueShape } from './value-shape.js';

export interface SourceTable {
  /** The table's name as stored (DuckDB resolves identifiers case-insensitively). */
  name: string;
  /** Top-level columns by `fieldKey`, with DuckDB's own spelling of their types, and whether declared NOT NULL. */
  columns: Map<string, { name: string; type: string; notNull: boolean }>;
  metadata: RecordValueShape;
  /** The storage layout the table was created or last compacted in (layout-version.ts). */
  layout: number;
}

export type EnsureOutcome = 'created' | 'widened' | 'unchanged';

/** The source table `name` in the connection's current schema, or undefined when there is none. */
export async function readSourceTable(connection: DuckDBConnection, name: string): Promise<SourceTable | undefined> {
  return (await readSourceTables(connection, [name])).get(name);
}

/**
 * The source tables of `names` there are, by the name asked for, in two queries whatever their
 * number: their columns, then every metadata column's type at once (opening a database reads
 * all nine sources, three times over; one query each cost a start some 150 ms).
 */
export async function readSourceTables(connection: DuckDBConnection, names: readonly string[]): Promise<Map<string, SourceTable>> {
  const tables = new Map<string, SourceTable>();
  if (names.length === 0) return tables;
  const reader = await connection.runAndReadAll(
    `SELECT lower(c.table_name) AS asked, c.table_name, c.column_name, c.data_type, c.is_nullable, t.comment FROM duckdb_columns() AS c
     JOIN duckdb_tables() AS t ON t.table_oid = c.table_oid
     WHERE c.database_name = current_database() AND c.schema_name = current_schema() AND lower(c.table_name) IN (${names.map((_, index) => `$n${index}`).join(', ')})
     ORDER BY c.table_name, c.column_index`,
    Object.fromEntries(names.map((name, index) => [`n${index}`, name.toLowerCase()])),
  );
  const rows = reader.getRowObjectsJS() as { asked: string; table_name: string; column_name: string; data_type: string; is_nullable: boolean; comment: string | null }[];
  const byTable = new Map<string, typeof rows>();
  for (const row of rows) {
    const list = byTable.get(row.asked);
    if (list) list.push(row);
    else byTable.set(row.asked, [row]);
  }
  const withMetadata: { name: string; table: string; column: string }[] = [];
  for (const name of names) {
    const columnsOf = byTable.get(name.toLowerCase());
    const first = columnsOf?.[0];
    if (first === undefined) continue;
    const layout = layoutOfComment(first.comment);
    if (layout > CURRENT_LAYOUT) {
      throw new DataError(
        'unsupported_table',
        `table ${quoteIdentifier(first.table_name)} is stored in layout ${layout}, which only a newer cannery reads (this one reads up to ${CURRENT_LAYOUT})`,
      );
    }
    const columns = new Map(columnsOf!.map((row) => [fieldKey(row.column_name), { name: row.column_name, type: row.data_type, notNull: !row.is_nullable }]));
    tables.set(name, { name: first.table_name, columns, metadata: emptyRecord(), layout });
    const metadataColumn = columns.get('metadata');
    if (metadataColumn !== undefined) withMetadata.push({ name, table: first.table_name, column: metadataColumn.name });
  }
  if (withMetadata.length === 0) return tables;
  // The DuckDBType tree is easier to walk than DuckDB's type text, and exact: one empty row set
  // whose columns are every table's metadata column.
  const probe = await connection.runAndReadAll(
    `SELECT ${withMetadata.map((_, index) => `t${index}.m`).join(', ')} FROM ${withMetadata
      .map(({ table, column }, index) => `(SELECT ${quoteIdentifier(column)} AS m FROM ${quoteIdentifier(table)} LIMIT 0) AS t${index}`)
      .join(', ')}`,
  );
  const types = probe.columnTypes();
  for (const [index, { name, table }] of withMetadata.entries()) {
    const type = types[index];
    const metadata = type === undefined ? undefined : shapeFromDuckDBType(type);
    if (metadata?.kind !== 'record') {
      throw new DataError(
        'unsupported_table',
        `table ${quoteIdentifier(table)} has a metadata column of type ${tables.get(name)!.columns.get('metadata')!.type}; ` +
          'a source table needs a struct or a list of structs (a repeated record) there',
        { field: 'metadata' },
      );
    }
    tables.get(name)!.metadata = metadata;
  }
  return tables;
}

/**
 * Makes table `name` exist with at least the `metadata` fields and the source's own top-level
 * `columns` given, widening what is there. Struct casts in DuckDB match fields by name and fill
 * new ones with NULL, so `ALTER COLUMN metadata TYPE <wider type>` keeps every stored value; a
 * record that was one STRUCT and must now hold lists is converted by `USING` (layout-sql.ts).
 */
export async function ensureSourceTable(
  connection: DuckDBConnection,
  name: string,
  metadata: RecordValueShape,
  columns: SourceDescriptor['columns'] = {},
  /** The table as the caller knows it in this transaction, or undefined when it may not exist: read when not given. */
  known?: SourceTable,
): Promise<{ outcome: EnsureOutcome; table: SourceTable }> {
  const existing = known ?? (await readSourceTable(connection, name));
  if (existing === undefined) {
    await connection.run(`CREATE TABLE ${quoteIdentifier(name)} (${columnDefinitions(sourceColumns(metadata, columns))})`);
    await connection.run(`COMMENT ON TABLE ${quoteIdentifier(name)} IS ${quoteString(layoutComment(CURRENT_LAYOUT))}`);
    return { outcome: 'created', table: await requireSourceTable(connection, name) };
  }
  const { missing, metadata: widened } = widening(existing, metadata, columns);
  for (const column of missing) {
    await connection.run(`ALTER TABLE ${quoteIdentifier(existing.name)} ADD COLUMN ${quoteIdentifier(column.name)} ${column.type}`);
  }
  if (widened !== undefined) {
    const metadataColumn = quoteIdentifier(existing.columns.get('metadata')?.name ?? 'metadata');
    const using = layoutChanged(existing.metadata, widened) ? ` USING ${convertLayout(metadataColumn, existing.metadata, widened)}` : '';
    await connection.run(
      `ALTER TABLE ${quoteIdentifier(existing.name)} ALTER COLUMN ${metadataColumn} TYPE ${duckdbType(widened)}${using}`,
    );
  }
  const time = existing.columns.get(NOT_NULL_COLUMN);
  const constrained = time !== undefined && !time.notNull && (await requireTimes(connection, existing.name, time.name));
  const outcome: EnsureOutcome = missing.length > 0 || widened !== undefined || constrained ? 'widened' : 'unchanged';
  return { outcome, table: outcome === 'unchanged' ? existing : await requireSourceTable(connection, name) };
}

/** What `existing` lacks of `metadata` and `columns`: top-level columns to add, and the wider metadata type, if it must widen. */
function widening(
  existing: SourceTable,
  metadata: RecordValueShape,
  columns: SourceDescriptor['columns'],
): { missing: { name: string; type: string }[]; metadata: RecordValueShape | undefined } {
  const wanted = cloneShape(existing.metadata);
  const metadataChanged = mergeRecord(wanted, metadata, 'metadata');
  const missing = sourceColumns(wanted, columns).filter((column) => !existing.columns.has(fieldKey(column.name)));
  return { missing, metadata: metadataChanged && existing.columns.has('metadata') ? wanted : undefined };
}

/**
 * Declares the time column NOT NULL (on a table made before cannery declared it, or rewritten by
 * CREATE TABLE AS). A table holding a NULL time (not one cannery loaded) keeps the column as it is,
 * and the dialect then does not rely on it. Whether the table changed.
 */
export async function requireTimes(connection: DuckDBConnection, table: string, column: string): Promise<boolean> {
  // Counted first: a failed ALTER would end the transaction an import or compact runs in.
  const reader = await connection.runAndReadAll(`SELECT count(*) AS n FROM ${quoteIdentifier(table)} WHERE ${quoteIdentifier(column)} IS NULL`);
  if (Number((reader.getRowObjectsJS()[0] as { n: bigint }).n) > 0) return false;
  await connection.run(`ALTER TABLE ${quoteIdentifier(table)} ALTER COLUMN ${quoteIdentifier(column)} SET NOT NULL`);
  return true;
}

async function requireSourceTable(connection: DuckDBConnection, name: string): Promise<SourceTable> {
  const table = await readSourceTable(connection, name);
  if (table === undefined) throw new Error(`table ${quoteIdentifier(name)} vanished while being created`);
  return table;
}

/**
 * Every source the shipped SQL reads gets a table with at least the fields that SQL relies on,
 * so an empty or partly imported database still answers every endpoint (with no rows) instead
 * of failing with "table not found". Idempotent.
 */
export async function ensureSourceTables(
  connection: DuckDBConnection,
  sources: readonly SourceDescriptor[] = BUILT_IN_SOURCES,
): Promise<{ name: string; outcome: EnsureOutcome }[]> {
  const outcomes: { name: string; outcome: EnsureOutcome }[] = [];
  for (const source of sources) {
    const { outcome } = await ensureSourceTable(connection, source.name, recordShapeToValueShape(source.metadata), source.columns);
    outcomes.push({ name: source.name, outcome });
  }
  return outcomes;
}

/** Whether every source has its table with all ensureSourceTables would give it: nothing to write. Reads only. */
export async function sourceTablesCurrent(connection: DuckDBConnection, sources: readonly SourceDescriptor[] = BUILT_IN_SOURCES): Promise<boolean> {
  const tables = await readSourceTables(connection, sources.map((source) => source.name));
  for (const source of sources) {
    const existing = tables.get(source.name);
    if (existing === undefined) return false;
    const { missing, metadata } = widening(existing, recordShapeToValueShape(source.metadata), source.columns);
    if (missing.length > 0 || metadata !== undefined) return false;
  }
  return true;
}

/**
 * Every source's table in a database known to be empty, in one statement: a scratch database
 * needs none of ensureSourceTables' reading and widening (3 ms against 80 ms for the nine).
 */
export async function createSourceTables(connection: DuckDBConnection, sources: readonly SourceDescriptor[] = BUILT_IN_SOURCES): Promise<void> {
  const statements = sources.map(
    (source) => `CREATE TABLE ${quoteIdentifier(source.name)} (${columnDefinitions(sourceColumns(recordShapeToValueShape(source.metadata), source.columns))});`,
  );
  await connection.run(statements.join('\n'));
}
