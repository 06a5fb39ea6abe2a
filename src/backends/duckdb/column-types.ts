/**
 * Shapes <-> DuckDB types, by the source-table convention: every nested object is a repeated record
 * in BigQuery's terms, stored as one `STRUCT` while each value has held exactly one object and as a
 * list of structs (`STRUCT(...)[]`) once one has not (docs/storage.md). The SQL generator reads
 * which is which from the table's types, and writes BigQuery's `unnest(metadata)` for either.
 */
import { DuckDBListType, DuckDBStructType, DuckDBTypeId, type DuckDBType } from '#duckdb-api';
import { NOT_NULL_COLUMN, topLevelColumns, type FieldShape, type RecordShape } from '../../config/sources.js';
import { quoteIdentifier } from '../../sql/dialects/duckdb/quote.js';
import { DataError } from './data-error.js';
import {
  LIST,
  SCALAR,
  emptyRecord,
  fieldKey,
  fieldShapeToValueShape,
  recordShapeToValueShape,
  type RecordValueShape,
  type ScalarType,
  type ValueShape,
} from './value-shape.js';

const SCALAR_SQL: Readonly<Record<ScalarType, string>> = {
  string: 'VARCHAR',
  integer: 'BIGINT',
  number: 'DOUBLE',
  boolean: 'BOOLEAN',
  // An instant, like BigQuery's TIMESTAMP; the service runs with TimeZone=UTC.
  timestamp: 'TIMESTAMPTZ',
};

/**
 * The DuckDB type of a shape, or undefined for a record with no known fields: DuckDB has no
 * empty STRUCT, and a field nobody has filled yet is as well left out until someone does.
 */
export function duckdbType(shape: ValueShape, path = 'metadata'): string | undefined {
  switch (shape.kind) {
    case 'scalar':
      return SCALAR_SQL[shape.type];
    case 'list':
      return `${SCALAR_SQL[shape.element]}[]`;
    case 'native':
      throw new DataError(
        'unsupported_table',
        `${path} has type ${shape.description}, which cannery does not create, so it cannot re-declare the column around it`,
        { field: path },
      );
    case 'record': {
      const entries: string[] = [];
      for (const field of shape.fields.values()) {
        const type = duckdbType(field.shape, `${path}.${field.name}`);
        if (type !== undefined) entries.push(`${quoteIdentifier(field.name)} ${type}`);
      }
      if (entries.length === 0) return undefined;
      return `STRUCT(${entries.join(', ')})${shape.repeated ? '[]' : ''}`;
    }
  }
}

export function fieldShapeType(shape: FieldShape): string | undefined {
  return duckdbType(fieldShapeToValueShape(shape));
}

export function recordShapeType(shape: RecordShape): string | undefined {
  return duckdbType(recordShapeToValueShape(shape));
}

export interface SourceColumn {
  name: string;
  type: string;
  /** Declared NOT NULL when the table is created: `timestamp` (every event has its time). */
  notNull?: boolean;
}

/**
 * The top-level columns of a source table, in order: the common ones, the source's own (`own`,
 * e.g. `identifier`), then `metadata` with the source's nested fields. A source nobody has given
 * a metadata field yet has no `metadata` column: DuckDB has no empty STRUCT, and the column is
 * added as soon as a field is known.
 */
export function sourceColumns(metadata: RecordValueShape, own: Readonly<Record<string, ScalarType>> = {}): SourceColumn[] {
  const columns: SourceColumn[] = Object.entries(topLevelColumns({ columns: own })).map(([name, type]) => ({
    name,
    type: SCALAR_SQL[type],
    notNull: name === NOT_NULL_COLUMN,
  }));
  const metadataType = duckdbType(metadata);
  return metadataType === undefined ? columns : [...columns, { name: 'metadata', type: metadataType }];
}

export function columnDefinitions(columns: readonly SourceColumn[]): string {
  return columns.map((column) => `${quoteIdentifier(column.name)} ${column.type}${column.notNull ? ' NOT NULL' : ''}`).join(', ');
}

function scalarOf(type: DuckDBType): ScalarType | undefined {
  // A JSON-aliased VARCHAR holds documents, not text; keep it as declared.
  if (type.alias !== undefined) return undefined;
  switch (type.typeId) {
    case DuckDBTypeId.VARCHAR:
      return 'string';
    case DuckDBTypeId.TINYINT:
    case DuckDBTypeId.SMALLINT:
    case DuckDBTypeId.INTEGER:
    case DuckDBTypeId.BIGINT:
    case DuckDBTypeId.UTINYINT:
    case DuckDBTypeId.USMALLINT:
    case DuckDBTypeId.UINTEGER:
      return 'integer';
    case DuckDBTypeId.FLOAT:
    case DuckDBTypeId.DOUBLE:
      return 'number';
    case DuckDBTypeId.BOOLEAN:
      return 'boolean';
    case DuckDBTypeId.TIMESTAMP_TZ:
      return 'timestamp';
    default:
      return undefined;
  }
}

function recordFromStruct(type: DuckDBStructType, repeated: boolean): RecordValueShape {
  const record = emptyRecord(repeated);
  type.entryNames.forEach((name, index) => {
    const entryType = type.entryTypes[index];
    if (entryType !== undefined) record.fields.set(fieldKey(name), { name, shape: shapeFromDuckDBType(entryType, repeated) });
  });
  return record;
}

/**
 * The shape of a column as DuckDB reports it; what cannery would not have created stays native.
 * A bare STRUCT is a record stored as one struct, except under a list of structs: cannery stores
 * every record under a repeated one as a list, so a struct there is someone else's, kept as declared.
 */
export function shapeFromDuckDBType(type: DuckDBType, underRepeated = false): ValueShape {
  const scalar = scalarOf(type);
  if (scalar !== undefined) return SCALAR[scalar];
  if (type instanceof DuckDBStructType && type.alias === undefined && !underRepeated) return recordFromStruct(type, false);
  if (type instanceof DuckDBListType) {
    const { valueType } = type;
    if (valueType instanceof DuckDBStructType && valueType.alias === undefined) return recordFromStruct(valueType, true);
    const element = scalarOf(valueType);
    if (element !== undefined) return LIST[element];
  }
  return { kind: 'native', description: type.alias ?? type.toString() };
}
