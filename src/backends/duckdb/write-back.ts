/**
 * Stored records written back into BigQuery's types as rows are converted: a record the database
 * keeps as its one STRUCT leaves as a one-element list, as BigQuery's repeated record would
 * (sql/dialects/duckdb/rewrites/stored-records.ts decides which columns, as `WriteBack`). The SQL could do it, but a
 * rebuilt STRUCT under a CASE per record costs DuckDB far more than this walk over the few rows
 * an answer holds. No record (NULL) leaves as `[]`, as BigQuery writes an empty repeated record.
 */
import type { ColumnType, WireRow, WireValue } from '../../core/types.js';
import type { WriteBack } from '../../sql/parse/tree.js';
import { jsonColumnReader } from './json-column.js';

export function writeBackValue(value: WireValue, writeBack: WriteBack): WireValue {
  // The SQL handed the record over as its JSON text: read it as the backend does.
  if (writeBack.json !== undefined) return jsonColumnReader(writeBack.json, writeBack)(value);
  // No record is no element: BigQuery's repeated record is then `[]`.
  if (value === null) return writeBack.list ? [] : null;
  if (typeof value !== 'object' || Array.isArray(value)) return value;
  let record = value;
  for (const [name, field] of Object.entries(writeBack.fields)) {
    if (Object.hasOwn(record, name)) record = { ...record, [name]: writeBackValue(record[name]!, field) };
  }
  return writeBack.list ? [record] : record;
}

export function writeBackType(type: ColumnType, writeBack: WriteBack): ColumnType {
  // A record handed over as its JSON text is typed as stored, not as the text.
  if (writeBack.json !== undefined) return writeBackType(writeBack.json, { list: writeBack.list, fields: writeBack.fields });
  if (type.kind !== 'struct') return type;
  const fields = type.fields.map((field) => {
    const inner = writeBack.fields[field.name];
    return inner ? { ...field, type: writeBackType(field.type, inner) } : field;
  });
  const struct: ColumnType = { kind: 'struct', fields };
  return writeBack.list ? { kind: 'array', element: struct } : struct;
}

/** Rows read elsewhere than the backend (tests, benchmarks), written back as the backend writes them. */
export function writeBackRows(rows: WireRow[], writeBack: Record<string, WriteBack> | undefined): WireRow[] {
  if (writeBack === undefined) return rows;
  return rows.map((row) => {
    const copy = { ...row };
    for (const [name, shape] of Object.entries(writeBack)) if (Object.hasOwn(copy, name)) copy[name] = writeBackValue(copy[name]!, shape);
    return copy;
  });
}
