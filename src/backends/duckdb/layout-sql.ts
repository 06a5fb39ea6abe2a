/**
 * SQL that moves `metadata` values between storage layouts (docs/storage.md): a record stored as one
 * STRUCT, or as a list of structs. The pivot is the list form, where every record is a list (the
 * layout of databases written before the STRUCT one): a value of any layout is written in list
 * form, then read into the target layout.
 *
 * Rows in flight never go through it (an import stages them in the table's layout; the seed
 * generates it): only rows already stored whose layout changes (an import's ALTER TABLE when a
 * record becomes a list, `cannery compact`), and the seed's rows into a table an import made hold
 * lists. Nested CASE/struct_pack per row costs far more than DuckDB's reader storing the same values.
 */
import { quoteIdentifier, quoteString } from '../../sql/dialects/duckdb/quote.js';
import { duckdbType } from './column-types.js';
import { cloneShape, hasColumns, markRepeated, type RecordValueShape, type ValueShape } from './value-shape.js';

/** The same record with every record in it stored as a list: the list form. */
export function listForm(record: RecordValueShape): RecordValueShape {
  const copy = cloneShape(record);
  markRepeated(copy);
  return copy;
}

function field(struct: string, name: string): string {
  return `struct_extract(${struct}, ${quoteString(name)})`;
}

/** Whether any record in `shape` (itself included) is stored as one STRUCT. */
function hasStruct(shape: ValueShape): boolean {
  if (shape.kind !== 'record') return false;
  if (!shape.repeated) return true;
  return [...shape.fields.values()].some((entry) => hasStruct(entry.shape));
}

/** `value`, stored as `shape` says, in list form. */
function toListForm(value: string, shape: ValueShape): string {
  if (shape.kind !== 'record' || !hasStruct(shape)) return value;
  // A repeated record has only repeated records under it, so here the record is one STRUCT.
  const fields = [...shape.fields.values()].filter((entry) => hasColumns(entry.shape));
  const element = fields.some((entry) => hasStruct(entry.shape))
    ? `struct_pack(${fields.map((entry) => `${quoteIdentifier(entry.name)} := ${toListForm(field(value, entry.name), entry.shape)}`).join(', ')})`
    : value;
  return `(CASE WHEN ${value} IS NULL THEN NULL ELSE [${element}] END)`;
}

/**
 * `value`, in the list form of `from`, stored as `to` says; `from` holds at most `to`'s fields, and a
 * record `to` stores as one STRUCT holds one element wherever `value` is not NULL. Fields `from`
 * lacks are NULL; scalar types are `to`'s once the caller casts the whole value to `to`'s type.
 */
function fromListForm(value: string, from: ValueShape | undefined, to: ValueShape): string {
  if (from === undefined) return `CAST(NULL AS ${duckdbType(to)})`;
  if (to.kind !== 'record' || from.kind !== 'record' || !hasStruct(to)) return value;
  const element = `${value}[1]`;
  const fields = [...to.fields.entries()].filter(([, entry]) => hasColumns(entry.shape));
  const packed = fields.map(([key, entry]) => {
    const source = from.fields.get(key);
    const inner = source !== undefined && hasColumns(source.shape) ? field(element, source.name) : undefined;
    return `${quoteIdentifier(entry.name)} := ${inner === undefined ? `CAST(NULL AS ${duckdbType(entry.shape)})` : fromListForm(inner, source!.shape, entry.shape)}`;
  });
  return `(CASE WHEN ${value} IS NULL THEN NULL ELSE struct_pack(${packed.join(', ')}) END)`;
}

/** `value`, stored as `from` says, stored as `to` says, of exactly `to`'s type. */
export function convertLayout(value: string, from: RecordValueShape, to: RecordValueShape): string {
  return `CAST(${fromListForm(toListForm(value, from), listForm(from), to)} AS ${duckdbType(to)})`;
}

/** Whether `to` stores some record as a list that `from` stores as one STRUCT: a cast alone cannot get there. */
export function layoutChanged(from: ValueShape, to: ValueShape): boolean {
  if (from.kind !== 'record' || to.kind !== 'record') return false;
  if (from.repeated !== to.repeated) return true;
  for (const [key, entry] of from.fields) {
    const target = to.fields.get(key);
    if (target !== undefined && layoutChanged(entry.shape, target.shape)) return true;
  }
  return false;
}
