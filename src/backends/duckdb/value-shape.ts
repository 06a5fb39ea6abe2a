/**
 * The shape of a source table's `metadata`: what the config declares (`RecordShape`), what an
 * existing table has, and what imported events bring, in one model that can only widen.
 *
 * Only widening exists because a source table is shared by every endpoint that reads it: a
 * field or a type that an import narrowed away would break SQL written against the old schema.
 */
import { listElement, type FieldShape, type RecordShape, type ScalarType } from '../../config/sources.js';
import { DataError } from './data-error.js';

export type { ScalarType };

export interface ScalarShape {
  readonly kind: 'scalar';
  readonly type: ScalarType;
}

/** An array of scalars (`VARCHAR[]`, ...). Arrays of objects are records: both are repeated records. */
export interface ListShape {
  readonly kind: 'list';
  readonly element: ScalarType;
}

/**
 * A nested object: in BigQuery's terms a repeated record (an array of structs), whether the events
 * held one object or an array of them. Fields are keyed by `fieldKey` because DuckDB struct field
 * names are case-insensitive: `Path` and `path` are one column, spelled as first seen.
 *
 * How it is stored (docs/storage.md): while every value has held exactly one object, as a `STRUCT`
 * (NULL for no object), which DuckDB reads field by field; once a value holds none (`[]`), several
 * or a null one, as a list of structs (`STRUCT(...)[]`), and so is every record under it.
 */
export interface RecordValueShape {
  readonly kind: 'record';
  readonly fields: Map<string, ShapedField>;
  /** Stored as a list of structs; false: as one STRUCT. */
  repeated: boolean;
}

/**
 * A type found in an existing table that cannery does not produce (DECIMAL, DATE, MAP...).
 * It is kept as the table's owner declared it: values are cast to it, never re-declared.
 */
export interface NativeShape {
  readonly kind: 'native';
  readonly description: string;
}

export type ValueShape = ScalarShape | ListShape | RecordValueShape | NativeShape;

export interface ShapedField {
  readonly name: string;
  shape: ValueShape;
}

const scalarTypes: readonly ScalarType[] = ['string', 'integer', 'number', 'boolean', 'timestamp'];

// Shared instances: the import walks millions of values and should not allocate a shape per value.
export const SCALAR = Object.fromEntries(
  scalarTypes.map((type) => [type, Object.freeze({ kind: 'scalar', type })]),
) as Readonly<Record<ScalarType, ScalarShape>>;
export const LIST = Object.fromEntries(
  scalarTypes.map((type) => [type, Object.freeze({ kind: 'list', element: type })]),
) as Readonly<Record<ScalarType, ListShape>>;

export function fieldKey(name: string): string {
  return name.toLowerCase();
}

/** A record with no fields yet: stored as a STRUCT unless it sits under a repeated one. */
export function emptyRecord(repeated = false): RecordValueShape {
  return { kind: 'record', fields: new Map(), repeated };
}

/** Stores `record` and every record under it as lists of structs (a value held no object, or several). */
export function markRepeated(record: RecordValueShape): void {
  record.repeated = true;
  for (const field of record.fields.values()) if (field.shape.kind === 'record') markRepeated(field.shape);
}

export function fieldShapeToValueShape(shape: FieldShape): ValueShape {
  if (typeof shape !== 'string') return recordShapeToValueShape(shape);
  const element = listElement(shape);
  return element === undefined ? SCALAR[shape as ScalarType] : LIST[element];
}

export function recordShapeToValueShape(shape: RecordShape): RecordValueShape {
  const record = emptyRecord();
  for (const [name, field] of Object.entries(shape)) {
    record.fields.set(fieldKey(name), { name, shape: fieldShapeToValueShape(field) });
  }
  return record;
}

export function cloneShape<T extends ValueShape>(shape: T): T {
  if (shape.kind !== 'record') return shape;
  const record = emptyRecord(shape.repeated);
  for (const [key, field] of shape.fields) record.fields.set(key, { name: field.name, shape: cloneShape(field.shape) });
  return record as T;
}

/** Whether the shape becomes at least one column: a record with no known fields has no DuckDB type. */
export function hasColumns(shape: ValueShape): boolean {
  if (shape.kind !== 'record') return true;
  for (const field of shape.fields.values()) if (hasColumns(field.shape)) return true;
  return false;
}

/**
 * The narrowest type that holds values of both types. integer + number -> number (every
 * integer is a number); any other mix -> string, because every JSON scalar has a faithful
 * text form and DuckDB casts the values already stored (5 -> '5', true -> 'true') when the
 * column widens. Timestamps only mix with strings that parse as instants; that case is
 * decided by the importer, which sees the value.
 */
export function widenScalar(a: ScalarType, b: ScalarType): ScalarType {
  if (a === b) return a;
  if ((a === 'integer' && b === 'number') || (a === 'number' && b === 'integer')) return 'number';
  return 'string';
}

function withArticle(noun: string): string {
  return `${/^[aeiou]/.test(noun) ? 'an' : 'a'} ${noun}`;
}

export function describeShape(shape: ValueShape): string {
  switch (shape.kind) {
    case 'scalar':
      return withArticle(shape.type);
    case 'list':
      return `an array of ${shape.element}s`;
    case 'record':
      return 'an object (a repeated record)';
    case 'native':
      return `a column of type ${shape.description}`;
  }
}

/** `existing` widened to also hold `incoming`, for every pair but record + record (merged in place by the callers). */
function widen(existing: ValueShape, incoming: ValueShape, path: string): ValueShape {
  if (existing.kind === 'native') return existing;
  if (incoming.kind === 'native') return incoming;
  if (existing.kind === 'scalar' && incoming.kind === 'scalar') return SCALAR[widenScalar(existing.type, incoming.type)];
  if (existing.kind === 'list' && incoming.kind === 'list') return LIST[widenScalar(existing.element, incoming.element)];
  // An object next to a scalar has no common type (BigQuery refuses such rows too); guessing
  // one, e.g. JSON text, would silently break every `unnest` written against the field.
  throw new DataError(
    'type_conflict',
    `${path} is ${describeShape(incoming)} here but ${describeShape(existing)} elsewhere; no column type holds both`,
    { field: path },
  );
}

/**
 * Widens `parent.<name>` to hold `incoming` and returns the field's shape afterwards. For a
 * record the existing record is returned so the caller can descend into it; pass a fresh
 * `emptyRecord()`, which becomes the field's shape when the field is new.
 */
export function widenField(parent: RecordValueShape, name: string, incoming: ValueShape, path: string): ValueShape {
  const key = fieldKey(name);
  const existing = parent.fields.get(key);
  if (existing === undefined) {
    if (incoming.kind === 'record' && parent.repeated) markRepeated(incoming);
    parent.fields.set(key, { name, shape: incoming });
    return incoming;
  }
  if (existing.shape.kind === 'record' && incoming.kind === 'record') return existing.shape;
  existing.shape = widen(existing.shape, incoming, path);
  return existing.shape;
}

/**
 * Merges `source` into `target` in place (new fields appended, so existing columns keep their
 * order) and reports whether the DuckDB type of `target` changed, i.e. whether the table needs
 * an ALTER. `path` names the record in error messages (`metadata`).
 */
export function mergeRecord(target: RecordValueShape, source: RecordValueShape, path: string): boolean {
  let changed = false;
  if (source.repeated && !target.repeated) {
    markRepeated(target);
    changed = hasColumns(target);
  }
  for (const [key, field] of source.fields) {
    const fieldPath = `${path}.${field.name}`;
    const existing = target.fields.get(key);
    if (existing === undefined) {
      const added = cloneShape(field.shape);
      if (added.kind === 'record' && target.repeated) markRepeated(added);
      target.fields.set(key, { name: field.name, shape: added });
      changed = hasColumns(field.shape) || changed;
    } else if (existing.shape.kind === 'record' && field.shape.kind === 'record') {
      changed = mergeRecord(existing.shape, field.shape, fieldPath) || changed;
    } else {
      const widened = widen(existing.shape, field.shape, fieldPath);
      if (widened !== existing.shape) {
        existing.shape = widened;
        changed = true;
      }
    }
  }
  return changed;
}
