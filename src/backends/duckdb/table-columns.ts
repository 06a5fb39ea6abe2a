/**
 * The columns the serving database's source tables really have, as name resolution sees them:
 * the declared fields and any an import added. Read once when the backend opens (the serving
 * instance is read-only), so a name no table has can be refused as BigQuery refuses it.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import type { SourceDescriptor } from '../../config/sources.js';
import { SCALAR, UNKNOWN, type Columns, type Shape } from '../../sql/shapes.js';
import { readSourceTable } from './source-tables.js';
import { fieldKey, type ValueShape } from './value-shape.js';

/** A stored value's shape, as BigQuery's type: a record is a repeated record, an array of structs. */
function logicalShape(shape: ValueShape): Shape {
  switch (shape.kind) {
    case 'scalar':
      return SCALAR;
    case 'list':
      return { kind: 'array', element: SCALAR };
    case 'native':
      return UNKNOWN;
    case 'record':
      return {
        kind: 'array',
        element: { kind: 'struct', fields: new Map([...shape.fields.values()].map((field) => [fieldKey(field.name), logicalShape(field.shape)])) },
      };
  }
}

export async function readTableColumns(connection: DuckDBConnection, sources: readonly SourceDescriptor[]): Promise<(source: string) => Columns> {
  const bySource = new Map<string, Columns>();
  for (const source of sources) {
    const table = await readSourceTable(connection, source.name);
    if (table === undefined) continue;
    const columns = new Map<string, Shape>();
    for (const [name] of table.columns) columns.set(name, name === 'metadata' ? logicalShape(table.metadata) : SCALAR);
    bySource.set(source.name, columns);
  }
  return (source) => bySource.get(source);
}
