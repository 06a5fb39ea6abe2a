/**
 * DuckDB result types -> the BigQuery types an endpoint promises. The translator maps BigQuery
 * to DuckDB (TIMESTAMP is TIMESTAMPTZ, DATETIME is TIMESTAMP, ...); this is the way back, so a
 * contract found by describing the query on DuckDB reads as the endpoint's author wrote it.
 */
import { DuckDBArrayType, DuckDBListType, DuckDBStructType, DuckDBTypeId, type DuckDBType } from '#duckdb-api';
import type { ColumnType, ScalarTypeName } from '../../core/types.js';

const SCALARS: Partial<Record<DuckDBTypeId, ScalarTypeName>> = {
  [DuckDBTypeId.BOOLEAN]: 'BOOL',
  [DuckDBTypeId.TINYINT]: 'INT64',
  [DuckDBTypeId.SMALLINT]: 'INT64',
  [DuckDBTypeId.INTEGER]: 'INT64',
  [DuckDBTypeId.BIGINT]: 'INT64',
  [DuckDBTypeId.UTINYINT]: 'INT64',
  [DuckDBTypeId.USMALLINT]: 'INT64',
  [DuckDBTypeId.UINTEGER]: 'INT64',
  [DuckDBTypeId.UBIGINT]: 'INT64',
  // DuckDB sums BIGINTs into a HUGEINT (COUNTIF is a SUM here); BigQuery's SUM of INT64 is INT64.
  [DuckDBTypeId.HUGEINT]: 'INT64',
  [DuckDBTypeId.UHUGEINT]: 'INT64',
  // BigQuery types a bare NULL as INT64.
  [DuckDBTypeId.SQLNULL]: 'INT64',
  [DuckDBTypeId.FLOAT]: 'FLOAT64',
  [DuckDBTypeId.DOUBLE]: 'FLOAT64',
  [DuckDBTypeId.DECIMAL]: 'NUMERIC',
  [DuckDBTypeId.VARCHAR]: 'STRING',
  [DuckDBTypeId.UUID]: 'STRING',
  [DuckDBTypeId.ENUM]: 'STRING',
  [DuckDBTypeId.BLOB]: 'BYTES',
  [DuckDBTypeId.DATE]: 'DATE',
  [DuckDBTypeId.TIME]: 'TIME',
  [DuckDBTypeId.INTERVAL]: 'INTERVAL',
  // An instant: BigQuery's TIMESTAMP. A zone-less TIMESTAMP is a civil time: BigQuery's DATETIME.
  [DuckDBTypeId.TIMESTAMP_TZ]: 'TIMESTAMP',
  [DuckDBTypeId.TIMESTAMP]: 'DATETIME',
  [DuckDBTypeId.TIMESTAMP_S]: 'DATETIME',
  [DuckDBTypeId.TIMESTAMP_MS]: 'DATETIME',
  [DuckDBTypeId.TIMESTAMP_NS]: 'DATETIME',
};

export function columnTypeOf(type: DuckDBType): ColumnType {
  if (type.alias === 'JSON') return { kind: 'scalar', name: 'JSON' };
  if (type instanceof DuckDBListType || type instanceof DuckDBArrayType) return { kind: 'array', element: columnTypeOf(type.valueType) };
  if (type instanceof DuckDBStructType) {
    return { kind: 'struct', fields: type.entryNames.map((name, index) => ({ name, type: columnTypeOf(type.entryTypes[index]!) })) };
  }
  const name = SCALARS[type.typeId];
  return name === undefined ? { kind: 'unknown', description: type.toString() } : { kind: 'scalar', name };
}
