/**
 * What is known of a value's structure, for BigQuery's name resolution: in BigQuery an UNNEST of
 * an array of structs makes the struct's fields visible as unqualified names
 * (`... unnest(m.request) as r where path like '%rest%'`), which DuckDB does not do itself.
 * Only what is known is modelled; anything else is `unknown` and left to the backend.
 *
 * Shapes also say how a source's data is stored where the backend stores it otherwise than
 * BigQuery types it: an array `stored: 'struct'` is a repeated record kept as its one element
 * (a STRUCT; NULL for none), which the DuckDB dialect reads as such (dialects/duckdb/rewrites/stored-records.ts).
 */
import type { DeclaredField, SourceDeclaration } from '../../config/source-declaration.js';
import { listElement, NOT_NULL_COLUMN, topLevelColumns, type FieldShape, type RecordShape, type SourceDescriptor } from '../../config/sources.js';

export type Shape =
  | { kind: 'unknown' }
  /**
   * `notNull`: a column its table declares NOT NULL (a source's `timestamp`). `float64`: a FLOAT64
   * column (declared so, or a DOUBLE in its table), which can hold NaN (rewrites/typed-columns.ts).
   * `stored`: a record's field of a table whose types hold still while it is served (a file opened
   * read-only), stored as this type; what rewrites/stored-records.ts needs to let DuckDB write the
   * record as JSON.
   */
  | { kind: 'scalar'; notNull?: true | undefined; float64?: true | undefined; stored?: StoredScalar | undefined }
  /**
   * `present`: a record stored as its one STRUCT that holds its object in every row of the table
   * (DuckDB's statistics say so, read when a file is opened read-only: backends/duckdb/table-columns.ts).
   */
  | { kind: 'array'; element: Shape; stored?: 'struct' | undefined; present?: true | undefined }
  /** `fields` by lower-case name; `names` the fields' own spellings, in order. */
  | { kind: 'struct'; fields: ReadonlyMap<string, Shape>; names: readonly string[] };

/** The stored types of a record's fields whose JSON text (DuckDB's to_json) JSON.parse reads back as their wire value. */
export type StoredScalar = 'STRING' | 'INT64' | 'BOOL';

/** A relation's columns by lower-case name; undefined when they are not known. */
export type Columns = ReadonlyMap<string, Shape> | undefined;

export const UNKNOWN: Shape = { kind: 'unknown' };
export const SCALAR: Shape = { kind: 'scalar' };
export const NOT_NULL_SCALAR: Shape = { kind: 'scalar', notNull: true };
export const FLOAT64_SCALAR: Shape = { kind: 'scalar', float64: true };


export function structShape(fields: readonly (readonly [string, Shape])[]): Shape {
  return { kind: 'struct', fields: new Map(fields.map(([name, shape]) => [name.toLowerCase(), shape])), names: fields.map(([name]) => name) };
}

/**
 * Nested records are repeated records, so each one is an array of structs; a source's declared
 * records, as a table that holds one object per record stores them: each as its one STRUCT.
 */
function recordShape(record: RecordShape): Shape {
  return { kind: 'array', stored: 'struct', element: structShape(Object.entries(record).map(([name, field]) => [name, fieldShape(field)])) };
}

function fieldShape(field: FieldShape): Shape {
  if (typeof field !== 'string') return recordShape(field);
  return listElement(field) === undefined ? SCALAR : { kind: 'array', element: SCALAR };
}

/** The columns every table of a source has, as a newly created table stores them. */
export function sourceColumns(source: SourceDescriptor): ReadonlyMap<string, Shape> {
  return new Map<string, Shape>([
    ...Object.keys(topLevelColumns(source)).map((name): [string, Shape] => [name.toLowerCase(), name === NOT_NULL_COLUMN ? NOT_NULL_SCALAR : SCALAR]),
    ['metadata', recordShape(source.metadata)],
  ]);
}

export function fieldOf(shape: Shape, name: string): Shape {
  return shape.kind === 'struct' ? (shape.fields.get(name.toLowerCase()) ?? UNKNOWN) : UNKNOWN;
}

export function elementOf(shape: Shape): Shape {
  return shape.kind === 'array' ? shape.element : UNKNOWN;
}

export function hasField(shape: Shape, name: string): boolean {
  return shape.kind === 'struct' && shape.fields.has(name.toLowerCase());
}

/**
 * The columns of a declared source as BigQuery types them: a RECORD a struct, REPEATED an array.
 * No column is `notNull`, REQUIRED or not: that shape lets the DuckDB dialect bound "newest N"
 * queries, which is right only where the table itself refuses NULLs, as the log tables' do.
 */
export function declaredColumns(declaration: Pick<SourceDeclaration, 'columns'>): ReadonlyMap<string, Shape> {
  return new Map(declaration.columns.map((column) => [column.name.toLowerCase(), declaredShape(column)]));
}

function declaredShape(field: DeclaredField): Shape {
  const one = field.type === 'RECORD' ? structShape((field.fields ?? []).map((f) => [f.name, declaredShape(f)])) : field.type === 'FLOAT64' ? FLOAT64_SCALAR : SCALAR;
  return field.mode === 'REPEATED' ? { kind: 'array', element: one } : one;
}

/** Looks up the columns of a source by name, for name resolution: the log sources', then the declared ones'. */
export function sourceColumnsLookup(sources: readonly SourceDescriptor[], declared: readonly SourceDeclaration[] = []): (source: string) => Columns {
  const byName = new Map([
    ...sources.map((source): [string, Columns] => [source.name, sourceColumns(source)]),
    ...declared.map((declaration): [string, Columns] => [declaration.name, declaredColumns(declaration)]),
  ]);
  return (source) => byName.get(source);
}
