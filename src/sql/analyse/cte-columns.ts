/**
 * The columns each CTE of an endpoint's query gives a sandbox query, with the shape of those
 * that pass a source's column or nested field through unchanged (`t.metadata`, `r.path` where
 * `r` is `unnest(m.request)`). A column computed from others (`count(*) as n`) has a name and no
 * shape. Read from the query tree, like every other fact about the SQL; what it cannot follow
 * (a column of an unknown table, a field of a computed struct) has no shape rather than a guess.
 */
import type { CatalogScalarType } from '../../core/types.js';
import type { ColumnRef, Query, QueryBody, Select } from '../parse/tree.js';

/**
 * A column's or field's shape: a scalar type, an array of one, or a record's fields. A log
 * source's (config/sources.ts FieldShape) is one; a declared source's may have any of its types.
 */
export type FieldShape = CatalogScalarType | `${CatalogScalarType}[]` | RecordShape;
export interface RecordShape {
  readonly [field: string]: FieldShape;
}

export interface CteColumn {
  name: string;
  /** Absent when the column is computed, or comes from something not followed. */
  shape?: FieldShape;
}

export interface CteColumns {
  name: string;
  columns: CteColumn[];
}

/** A source's row: its top-level columns, each with its shape. */
export type SourceShapes = ReadonlyMap<string, RecordShape>;

/** What a FROM item offers: a relation's columns, or the element of an UNNEST under its alias. */
type ScopeItem = { alias: string; columns: CteColumn[] } | { alias: string; element: FieldShape | undefined };

/** The CTEs of `query`, in order, each with its columns. */
export function cteColumns(query: Query, sources: SourceShapes): CteColumns[] {
  const known = new Map<string, CteColumn[]>();
  return query.with.map((cte) => {
    const columns = queryColumns(cte.query, sources, known);
    known.set(cte.name.toLowerCase(), columns);
    return { name: cte.name, columns };
  });
}

function queryColumns(query: Query, sources: SourceShapes, ctes: ReadonlyMap<string, CteColumn[]>): CteColumn[] {
  // The query's own CTEs are seen by its body only.
  const inner = new Map(ctes);
  for (const cte of query.with) inner.set(cte.name.toLowerCase(), queryColumns(cte.query, sources, inner));
  return bodyColumns(query.body, sources, inner);
}

/** A set operation's columns are its first member's (names and order come from it). */
function bodyColumns(body: QueryBody, sources: SourceShapes, ctes: ReadonlyMap<string, CteColumn[]>): CteColumn[] {
  if (body.kind === 'set') return body.members[0] ? bodyColumns(body.members[0], sources, ctes) : [];
  if (body.kind === 'query') return queryColumns(body, sources, ctes);
  return selectColumns(body, sources, ctes);
}

function selectColumns(select: Select, sources: SourceShapes, ctes: ReadonlyMap<string, CteColumn[]>): CteColumn[] {
  const scope = scopeOf(select, sources, ctes);
  const columns: CteColumn[] = [];
  let anonymous = 0;
  for (const item of select.items) {
    if (item.kind === 'star') {
      const except = new Set(item.except.map((name) => name.toLowerCase()));
      const replaced = new Set(item.replace.map((one) => one.alias.toLowerCase()));
      for (const column of starColumns(scope, item.table)) {
        if (except.has(column.name.toLowerCase())) continue;
        // `* REPLACE (expr AS name)` keeps the name and the place, not the shape.
        columns.push(replaced.has(column.name.toLowerCase()) ? { name: column.name } : column);
      }
      continue;
    }
    const { expr } = item;
    const referenced = expr.kind === 'column' ? (expr.fields.at(-1) ?? expr.name) : undefined;
    // BigQuery names an unaliased expression f0_, f1_, ... in order.
    const name = item.alias ?? referenced ?? `f${anonymous++}_`;
    const shape = expr.kind === 'column' ? resolveColumn(scope, expr) : undefined;
    columns.push(shape === undefined ? { name } : { name, shape });
  }
  return columns;
}

function scopeOf(select: Select, sources: SourceShapes, ctes: ReadonlyMap<string, CteColumn[]>): ScopeItem[] {
  const scope: ScopeItem[] = [];
  for (const item of select.from) {
    if (item.kind === 'unnest') {
      const element = item.array.kind === 'column' ? resolveColumn(scope, item.array) : undefined;
      if (item.alias) scope.push({ alias: item.alias, element });
    } else if (item.kind === 'derived') {
      if (item.alias) scope.push({ alias: item.alias, columns: queryColumns(item.query, sources, ctes) });
    } else if (item.kind === 'table') {
      const source = sources.get(item.name);
      const cte = item.qualified ? undefined : ctes.get(item.name.toLowerCase());
      const columns = source ? Object.entries(source).map(([name, shape]) => ({ name, shape })) : (cte ?? []);
      scope.push({ alias: item.alias ?? item.name, columns });
    }
  }
  return scope;
}

/** `*` or `alias.*`: the columns of every relation (or the one named), and the fields of UNNESTed records. */
function starColumns(scope: readonly ScopeItem[], qualifier: string | undefined): CteColumn[] {
  return scope
    .filter((item) => qualifier === undefined || sameName(item.alias, qualifier))
    .flatMap((item) => ('columns' in item ? item.columns : recordColumns(item.element)));
}

/** `t.a.b` is alias `t`, column `a`, field `b`; `a` alone is a column, an UNNEST alias or an UNNEST element's field. */
function resolveColumn(scope: readonly ScopeItem[], ref: ColumnRef): FieldShape | undefined {
  let shape: FieldShape | undefined;
  const item = ref.table === undefined ? undefined : scope.find((one) => sameName(one.alias, ref.table!));
  // `a.b` where `a` names nothing in FROM is column `a` and its field `b`, as BigQuery reads it.
  if (ref.table !== undefined && item === undefined) return resolveColumn(scope, { ...ref, table: undefined, name: ref.table, fields: [ref.name, ...ref.fields] });
  if (item !== undefined) {
    shape = 'columns' in item ? findColumn(item.columns, ref.name) : field(item.element, ref.name);
  } else {
    shape =
      firstDefined(scope, (item) => ('columns' in item ? findColumn(item.columns, ref.name) : undefined)) ??
      firstDefined(scope, (item) => ('element' in item && sameName(item.alias, ref.name) ? item.element : undefined)) ??
      firstDefined(scope, (item) => ('element' in item ? field(item.element, ref.name) : undefined));
  }
  for (const name of ref.fields) shape = field(shape, name);
  return shape;
}

function findColumn(columns: readonly CteColumn[], name: string): FieldShape | undefined {
  return columns.find((column) => sameName(column.name, name))?.shape;
}

/** A field of a record shape (nested records are repeated records, reached by UNNEST or by name). */
function field(shape: FieldShape | undefined, name: string): FieldShape | undefined {
  if (shape === undefined || typeof shape === 'string') return undefined;
  const key = Object.keys(shape).find((one) => sameName(one, name));
  return key === undefined ? undefined : shape[key];
}

function recordColumns(shape: FieldShape | undefined): CteColumn[] {
  return shape === undefined || typeof shape === 'string' ? [] : Object.entries(shape).map(([name, inner]) => ({ name, shape: inner }));
}

function firstDefined<T, R>(items: readonly T[], pick: (item: T) => R | undefined): R | undefined {
  for (const item of items) {
    const picked = pick(item);
    if (picked !== undefined) return picked;
  }
  return undefined;
}

/** Column names and aliases match case-insensitively, as in BigQuery. */
function sameName(one: string, other: string): boolean {
  return one.toLowerCase() === other.toLowerCase();
}
