/**
 * The columns the serving database's source tables really have, as name resolution sees them:
 * the declared fields and any an import added, and how each record is stored, which the DuckDB
 * dialect writes its SQL for. Read once when the backend opens (the serving instance is
 * read-only), so a name no table has can be refused as BigQuery refuses it.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { NOT_NULL_SCALAR, SCALAR, structShape, UNKNOWN, type Columns, type Shape } from '../../sql/analyse/shapes.js';
import { readSourceTables, type SourceTable } from './source-tables.js';
import { hasColumns, type ValueShape } from './value-shape.js';

/**
 * A stored value's shape: as BigQuery types it (a record is a repeated record, an array of
 * structs), and how it is stored (`stored: 'struct'`: as its one element; storage.md).
 */
function storedShape(shape: ValueShape): Shape {
  switch (shape.kind) {
    case 'scalar':
      return SCALAR;
    case 'list':
      return { kind: 'array', element: SCALAR };
    case 'native':
      return UNKNOWN;
    case 'record': {
      const element = structShape([...shape.fields.values()].filter((field) => hasColumns(field.shape)).map((field) => [field.name, storedShape(field.shape)] as const));
      return shape.repeated ? { kind: 'array', element } : { kind: 'array', stored: 'struct', element };
    }
  }
}

/** The columns of the named sources' tables, as the dialect's `sourceColumns` takes them. */
export async function readTableColumns(connection: DuckDBConnection, sources: readonly string[]): Promise<(source: string) => Columns> {
  return tableColumns(await readSourceTables(connection, sources));
}

/** The columns of tables already read, by source name, as the dialect's `sourceColumns` takes them. */
export function tableColumns(tables: ReadonlyMap<string, SourceTable>): (source: string) => Columns {
  const bySource = new Map<string, Columns>();
  for (const [source, table] of tables) {
    const columns = new Map<string, Shape>();
    for (const [name, column] of table.columns) columns.set(name, name === 'metadata' ? storedShape(table.metadata) : column.notNull ? NOT_NULL_SCALAR : SCALAR);
    bySource.set(source, columns);
  }
  return (source) => bySource.get(source);
}
