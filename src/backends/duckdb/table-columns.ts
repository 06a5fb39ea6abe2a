/**
 * The columns the serving database's source tables really have, as name resolution sees them:
 * the declared fields and any an import added, and how each record is stored, which the DuckDB
 * dialect writes its SQL for. Read once when the backend opens (the serving instance is
 * read-only), so a name no table has can be refused as BigQuery refuses it.
 */
import type { DuckDBConnection } from '#duckdb-api';
import { FLOAT64_SCALAR, NOT_NULL_SCALAR, SCALAR, structShape, UNKNOWN, type Columns, type Shape, type StoredScalar } from '../../sql/analyse/shapes.js';
import { quoteIdentifier } from '../../sql/dialects/duckdb/quote.js';
import { readSourceTables, type SourceTable } from './source-tables.js';
import { hasColumns, type ScalarType, type ValueShape } from './value-shape.js';

/** The stored scalars whose DuckDB JSON text reads back as their wire value (a BIGINT past 2^53 aside). */
const STORED_SCALARS: Partial<Record<ScalarType, Shape>> = {
  string: { kind: 'scalar', stored: 'STRING' satisfies StoredScalar },
  integer: { kind: 'scalar', stored: 'INT64' satisfies StoredScalar },
  boolean: { kind: 'scalar', stored: 'BOOL' satisfies StoredScalar },
};

/**
 * A stored value's shape: as BigQuery types it (a record is a repeated record, an array of
 * structs), and how it is stored (`stored: 'struct'`: as its one element; storage.md). `fixed`: the
 * table's types hold still while it is served, so its scalars' stored types are said too (an
 * import may widen a field of a file it writes: integer -> number -> string).
 */
function storedShape(shape: ValueShape, present: ReadonlySet<string> = NONE, path = '', fixed = false): Shape {
  switch (shape.kind) {
    case 'scalar':
      return (fixed && STORED_SCALARS[shape.type]) || SCALAR;
    case 'list':
      return { kind: 'array', element: (fixed && STORED_SCALARS[shape.element]) || SCALAR };
    case 'native':
      return UNKNOWN;
    case 'record': {
      const element = structShape(
        [...shape.fields.values()].filter((field) => hasColumns(field.shape)).map((field) => [field.name, storedShape(field.shape, present, path + recordKey([field.name]), fixed)] as const),
      );
      if (shape.repeated) return { kind: 'array', element };
      return present.has(path) ? { kind: 'array', stored: 'struct', element, present: true } : { kind: 'array', stored: 'struct', element };
    }
  }
}

const NONE: ReadonlySet<string> = new Set();

/** Joins a record's field names into its key in a set of present records (no field name holds it). */
const SEPARATOR = '\u0000';

function recordKey(fields: readonly string[]): string {
  return fields.map((name) => SEPARATOR + name).join('');
}

/** The field paths under `metadata` (`[]` for itself, `['request']`) of the records stored as one STRUCT, parents first. */
function structPaths(record: ValueShape, path: readonly string[] = []): string[][] {
  if (record.kind !== 'record' || record.repeated || !hasColumns(record)) return [];
  return [[...path], ...[...record.fields.values()].flatMap((field) => structPaths(field.shape, [...path, field.name]))];
}

/** DuckDB's statistics of an expression end with its own validity: `...[Has Null: false, Has No Null: true]`. */
const VALIDITY = /\[Has Null: (true|false), Has No Null: (true|false)\]$/;

/**
 * The records of each table stored as one STRUCT that hold their object in every row, by source:
 * a record whose STRUCT is never NULL, under parents that are never NULL either. DuckDB's own
 * statistics say so (the validity it keeps per row group, which its optimizer trusts to drop
 * `IS NOT NULL`), read with `stats()` over one row, not a scan. Only for a file opened read-only
 * (nothing adds a row while it is served); an empty table has none, and so has a table whose
 * statistics cannot be read or say something else.
 */
export async function readPresentRecords(connection: DuckDBConnection, tables: ReadonlyMap<string, SourceTable>): Promise<Map<string, Set<string>>> {
  const present = new Map<string, Set<string>>();
  for (const [source, table] of tables) {
    const column = table.columns.get('metadata')?.name;
    const paths = column === undefined ? [] : structPaths(table.metadata);
    if (column === undefined || paths.length === 0) continue;
    const expressions = paths.map((fields) => `stats(${[table.name, column, ...fields].map(quoteIdentifier).join('.')})`);
    let row: unknown[] | undefined;
    try {
      row = (await connection.runAndReadAll(`SELECT ${expressions.join(', ')} FROM ${quoteIdentifier(table.name)} LIMIT 1`)).getRows()[0];
    } catch {
      // Knowing none only costs the NULL tests: nothing to stop a start for.
      continue;
    }
    if (row === undefined) continue;
    const found = new Set<string>();
    paths.forEach((fields, index) => {
      const validity = VALIDITY.exec(String(row[index]));
      if (validity?.[1] === 'false' && (fields.length === 0 || found.has(recordKey(fields.slice(0, -1))))) found.add(recordKey(fields));
    });
    present.set(source, found);
  }
  return present;
}

/** The columns of the named sources' tables, as the dialect's `sourceColumns` takes them. */
export async function readTableColumns(connection: DuckDBConnection, sources: readonly string[]): Promise<(source: string) => Columns> {
  return tableColumns(await readSourceTables(connection, sources));
}

/**
 * The columns of tables already read, by source name, as the dialect's `sourceColumns` takes them.
 * `present`: given for a file opened read-only, whose tables hold still while it is served.
 */
export function tableColumns(tables: ReadonlyMap<string, SourceTable>, present?: ReadonlyMap<string, ReadonlySet<string>>): (source: string) => Columns {
  const bySource = new Map<string, Columns>();
  for (const [source, table] of tables) {
    const columns = new Map<string, Shape>();
    for (const [name, column] of table.columns) {
      // A DOUBLE column is a FLOAT64 one, which can hold NaN; no log source's top-level column is.
      columns.set(name, name === 'metadata' ? storedShape(table.metadata, present?.get(source), '', present !== undefined) : column.notNull ? NOT_NULL_SCALAR : column.type === 'DOUBLE' ? FLOAT64_SCALAR : SCALAR);
    }
    bySource.set(source, columns);
  }
  return (source) => bySource.get(source);
}
