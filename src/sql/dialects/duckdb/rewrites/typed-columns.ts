/**
 * Columns whose type the query's text gives them (a CTE's or a subquery's column computed as a
 * FLOAT64 or written as a STRUCT, an UNNEST of a FLOAT64 or STRUCT array literal), made visible
 * where GoogleSQL's rules depend on the type and DuckDB's differ:
 *
 * - a FLOAT64 column compared (`=`, `<`, BETWEEN, IN), an ORDER BY key, or MIN's argument is
 *   written `CAST(x AS FLOAT64)`, a no-op DuckDB drops, so the NaN rules (nan.ts) apply to it as
 *   to a FLOAT64 the text writes: NaN = NaN is FALSE, NaN sorts first ascending, MIN is NaN;
 * - a STRUCT column compared is written as the STRUCT of its fields (`STRUCT(s.a AS a, s.b AS b)`),
 *   so the comparison is GoogleSQL's field by field (struct-equality.ts: `(1, NULL) = (1, NULL)`
 *   is NULL, where DuckDB's `=` holds it TRUE). A NULL STRUCT becomes one of NULL fields, whose
 *   comparisons are NULL as the NULL STRUCT's are.
 *
 * A column of a source table, or of anything else the text does not type, is left as written:
 * the shipped endpoints' comparisons and orders are written as before. An ORDER BY key that names
 * a SELECT item's alias takes the item's type; a set operation ordered by a FLOAT64 column is
 * ordered over it as a derived table (DuckDB orders a UNION by its columns only).
 */
import type { Columns as SourceColumns, Shape } from '../../../analyse/shapes.js';
import { staticType, type StaticType } from '../../../analyse/static-type.js';
import type { Rewrite } from '../../../generator/dialect.js';
import { UnsupportedConstruct } from '../../../generator/unsupported.js';
import { TYPE_LOOKUP } from '../../../language.js';
import type { ColumnRef, Expr, FromItem, OrderItem, Query, QueryBody, Select, TypeName } from '../../../parse/tree.js';
import { mapExprChildren, mapSelectChildren, type ChildMap } from '../../../parse/walk.js';

type ColumnType = { scalar: StaticType } | { struct: readonly Field[] };

interface Field {
  name: string | undefined;
  type: ColumnType | undefined;
}

/** A relation's columns in order; undefined where they are not all known (a `*` over a table). */
type Columns = readonly Field[] | undefined;

/** A FROM item: a relation's columns under its alias, or an UNNEST's element (a value) under its alias. */
type ScopeItem = { alias: string; columns: Columns } | { alias: string; element: ColumnType | undefined };

interface Scope {
  items: readonly ScopeItem[];
  parent: Scope | undefined;
}

/** CTEs visible by lower-case name, with their columns. */
type Ctes = ReadonlyMap<string, Columns>;

const COMPARISONS: ReadonlySet<string> = new Set(['=', '!=', '<>', '<', '<=', '>', '>=']);

/**
 * A source table's columns as the running rewrite's dialect knows them (their shapes): a FLOAT64 or
 * a RECORD typed, any other a column of no type here. Set as each run starts (with the cache
 * below), which runs through synchronously, so that the scope functions need not carry them.
 */
let tableColumns: (source: string) => Columns = () => undefined;

/** The columns of each query asked about in the running rewrite. */
let known = new WeakMap<Query, Columns>();

/** Not found in this scope: look in the enclosing one (a correlated reference). */
const ELSEWHERE = Symbol('elsewhere');

function key(name: string): string {
  return name.toLowerCase();
}

function fieldPath(type: ColumnType | undefined, path: readonly string[]): ColumnType | undefined {
  let at = type;
  for (const name of path) {
    if (at === undefined || !('struct' in at)) return undefined;
    at = at.struct.find((field) => field.name !== undefined && key(field.name) === key(name))?.type;
  }
  return at;
}

function columnOf(columns: Columns, name: string): ColumnType | undefined {
  return columns?.find((column) => column.name !== undefined && key(column.name) === key(name))?.type;
}

function hasColumn(columns: Columns, name: string): boolean {
  return columns !== undefined && columns.some((column) => column.name !== undefined && key(column.name) === key(name));
}

/** A name unqualified, `path` the fields read below it: TYPE, undefined where not known, ELSEWHERE where no item here has it. */
function unqualified(name: string, path: readonly string[], scope: Scope): ColumnType | undefined | typeof ELSEWHERE {
  const values = scope.items.filter((item) => 'element' in item && key(item.alias) === key(name));
  if (values.length === 1) return fieldPath((values[0] as { element: ColumnType | undefined }).element, path);
  const holders = scope.items.filter((item) => 'columns' in item && hasColumn(item.columns, name));
  // A relation whose columns are not all known may hold the name too: not known, never a guess.
  if (scope.items.some((item) => 'columns' in item && item.columns === undefined)) return undefined;
  if (holders.length === 0 && values.length === 0) return ELSEWHERE;
  if (holders.length !== 1 || values.length !== 0) return undefined;
  return fieldPath(columnOf((holders[0] as { columns: Columns }).columns, name), path);
}

function resolveIn(ref: ColumnRef, scope: Scope): ColumnType | undefined | typeof ELSEWHERE {
  if (ref.table !== undefined) {
    const item = scope.items.find((candidate) => key(candidate.alias) === key(ref.table!));
    if (item !== undefined) return 'element' in item ? fieldPath(item.element, [ref.name, ...ref.fields]) : fieldPath(columnOf(item.columns, ref.name), ref.fields);
    // `s.a` where s is a column (a STRUCT) rather than a table.
    return unqualified(ref.table, [ref.name, ...ref.fields], scope);
  }
  return unqualified(ref.name, ref.fields, scope);
}

function resolve(ref: ColumnRef, scope: Scope | undefined): ColumnType | undefined {
  for (let at = scope; at; at = at.parent) {
    const found = resolveIn(ref, at);
    if (found !== ELSEWHERE) return found;
  }
  return undefined;
}

function typeOfTypeName(type: TypeName): ColumnType | undefined {
  if (type.name.toUpperCase() === 'STRUCT') return type.fields ? { struct: type.fields.map((field) => ({ name: field.name, type: typeOfTypeName(field.type) })) } : undefined;
  const scalar = TYPE_LOOKUP.cast(type.name);
  return scalar === undefined ? undefined : { scalar };
}

function scalarOf(type: ColumnType | undefined): StaticType | undefined {
  return type !== undefined && 'scalar' in type ? type.scalar : undefined;
}

function typeOf(expr: Expr, scope: Scope | undefined): ColumnType | undefined {
  if (expr.kind === 'column') return resolve(expr, scope);
  if (expr.kind === 'cast' && !expr.type.element) return typeOfTypeName(expr.type);
  if (expr.kind === 'struct') {
    return {
      struct: expr.fields.map((field, index) => {
        const declared = expr.type?.fields?.[index];
        // A field without a name is named after the column it reads (`STRUCT(r.method)`), as BigQuery names it.
        const name = declared?.name ?? field.name ?? (field.expr.kind === 'column' && !expr.tuple ? (field.expr.fields.at(-1) ?? field.expr.name) : undefined);
        return { name, type: declared ? typeOfTypeName(declared.type) : typeOf(field.expr, scope) };
      }),
    };
  }
  const scalar = staticType(expr, { ...TYPE_LOOKUP, column: (ref) => scalarOf(resolve(ref, scope)) });
  return scalar === undefined ? undefined : { scalar };
}

/** The type of an array literal's elements: FLOAT64 where one is (the others coerced), else the first's. */
function elementType(array: Expr, scope: Scope): ColumnType | undefined {
  if (array.kind !== 'array') return undefined;
  if (array.elementType !== undefined) return typeOfTypeName(array.elementType);
  const types = array.elements.filter((element) => !(element.kind === 'literal' && element.type === 'null')).map((element) => typeOf(element, scope));
  if (types.some((type) => scalarOf(type) === 'float64')) return { scalar: 'float64' };
  const [first] = types;
  if (first !== undefined && 'struct' in first) return first;
  return types.length > 0 && types.every((type) => scalarOf(type) !== undefined && scalarOf(type) === scalarOf(first)) ? first : undefined;
}

function flatten(items: readonly FromItem[]): FromItem[] {
  return items.flatMap((item) => (item.kind === 'join_group' ? flatten(item.items) : [item]));
}

function scopeOf(select: Select, ctes: Ctes, parent: Scope | undefined): Scope {
  const items: ScopeItem[] = [];
  const scope: Scope = { items, parent };
  for (const item of flatten(select.from)) {
    if (item.kind === 'table') {
      const cte = item.qualified ? undefined : ctes.get(key(item.name));
      const columns = cte !== undefined || (!item.qualified && ctes.has(key(item.name))) ? cte : tableColumns(item.name);
      items.push({ alias: item.alias ?? item.name.split('.').at(-1)!, columns });
    } else if (item.kind === 'derived') {
      items.push({ alias: item.alias ?? '', columns: relationColumns(item.query, ctes) });
    } else if (item.kind === 'unnest') {
      // Without an alias, an UNNEST of STRUCTs shows its fields as names: not followed here.
      if (item.alias === undefined) items.push({ alias: '', columns: undefined });
      else items.push({ alias: item.alias, element: elementType(item.array, scope) });
      if (item.offsetAlias !== undefined) items.push({ alias: item.offsetAlias, element: { scalar: 'int64' } });
    } else items.push({ alias: '', columns: undefined });
  }
  return scope;
}

function withCtes(query: Query, ctes: Ctes): Map<string, Columns> {
  const inner = new Map(ctes);
  for (const cte of query.with) inner.set(key(cte.name), relationColumns(cte.query, inner));
  return inner;
}

function relationColumns(query: Query, ctes: Ctes): Columns {
  // A query sees the same CTEs wherever it is asked about in one run: its columns are worked out once.
  if (known.has(query)) return known.get(query);
  const columns = bodyColumns(query.body, withCtes(query, ctes));
  known.set(query, columns);
  return columns;
}

/** A set operation's columns are named by its first member; a FLOAT64 in any member makes the column FLOAT64 (the others coerced). */
function bodyColumns(body: QueryBody, ctes: Ctes): Columns {
  if (body.kind === 'query') return relationColumns(body, ctes);
  if (body.kind === 'select') return selectColumns(body, ctes);
  const members = body.members.map((member) => bodyColumns(member, ctes));
  const [first] = members;
  if (first === undefined || body.byName !== undefined) return undefined;
  return first.map((column, index) => ({
    name: column.name,
    type: members.some((member) => scalarOf(member?.[index]?.type) === 'float64') ? { scalar: 'float64' } : members.every((member) => member !== undefined) ? column.type : undefined,
  }));
}

function selectColumns(select: Select, ctes: Ctes): Columns {
  const scope = scopeOf(select, ctes, undefined);
  const columns: Field[] = [];
  for (const item of select.items) {
    if (item.kind === 'star') return undefined;
    const name = item.alias ?? (item.expr.kind === 'column' ? (item.expr.fields.at(-1) ?? item.expr.name) : undefined);
    columns.push({ name, type: typeOf(item.expr, scope) });
  }
  return columns;
}

function columnRef(ref: ColumnRef, field: string): ColumnRef {
  return { kind: 'column', table: ref.table, name: ref.name, fields: [...ref.fields, field], loc: ref.loc };
}

/** A compared column as the STRUCT of its fields, nested STRUCTs too; undefined where a field has no name. */
function structOfFields(ref: ColumnRef, fields: readonly Field[]): Expr | undefined {
  const built: { expr: Expr; name: string }[] = [];
  for (const field of fields) {
    if (field.name === undefined) return undefined;
    const read = columnRef(ref, field.name);
    const nested = field.type !== undefined && 'struct' in field.type ? structOfFields(read, field.type.struct) : read;
    if (nested === undefined) return undefined;
    built.push({ expr: nested, name: field.name });
  }
  return built.length === 0 ? undefined : { kind: 'struct', fields: built, loc: ref.loc };
}

function asFloat(expr: Expr, scope: Scope): Expr {
  if (expr.kind !== 'column' || scalarOf(resolve(expr, scope)) !== 'float64') return expr;
  return { kind: 'cast', safe: false, operand: expr, type: { name: 'FLOAT64' }, loc: expr.loc };
}

/** A compared operand: a FLOAT64 column cast to its type, a STRUCT column as the STRUCT of its fields. */
function compared(expr: Expr, scope: Scope): Expr {
  if (expr.kind !== 'column') return expr;
  const type = resolve(expr, scope);
  if (type !== undefined && 'struct' in type) return structOfFields(expr, type.struct) ?? expr;
  return asFloat(expr, scope);
}

/** ORDER BY keys, a FLOAT64 column cast; `aliases`: the SELECT's items by alias, which a bare key names first. */
function orderItems(items: readonly OrderItem[], scope: Scope, aliases: ReadonlyMap<string, Expr> = new Map()): OrderItem[] {
  return items.map((item) => {
    const named = item.expr.kind === 'column' && item.expr.table === undefined && item.expr.fields.length === 0 ? aliases.get(key(item.expr.name)) : undefined;
    if (named === undefined) return { ...item, expr: asFloat(item.expr, scope) };
    // An item the text already types (`PERCENTILE_CONT(...) AS m`) is NaN-ordered as it stands.
    const byColumns = staticType(named, TYPE_LOOKUP) === undefined && scalarOf(typeOf(named, scope)) === 'float64';
    return byColumns ? { ...item, expr: { kind: 'cast', safe: false, operand: item.expr, type: { name: 'FLOAT64' }, loc: item.expr.loc } } : item;
  });
}

function rewriteExpr(expr: Expr, scope: Scope, ctes: Ctes): Expr {
  const mapped = mapExprChildren(expr, { expr: (child) => rewriteExpr(child, scope, ctes), query: (query) => rewriteQuery(query, ctes, scope) });
  switch (mapped.kind) {
    case 'binary':
      return COMPARISONS.has(mapped.operator) ? { ...mapped, left: compared(mapped.left, scope), right: compared(mapped.right, scope) } : mapped;
    case 'between':
      return { ...mapped, operand: compared(mapped.operand, scope), low: compared(mapped.low, scope), high: compared(mapped.high, scope) };
    case 'in_list':
      return { ...mapped, operand: compared(mapped.operand, scope), list: mapped.list.map((item) => compared(item, scope)) };
    case 'in_unnest':
      return { ...mapped, operand: compared(mapped.operand, scope) };
    case 'call': {
      const args = mapped.name.toLowerCase() === 'min' && mapped.args[0] !== undefined ? [asFloat(mapped.args[0], scope), ...mapped.args.slice(1)] : mapped.args;
      const over = mapped.over && { ...mapped.over, orderBy: orderItems(mapped.over.orderBy, scope) };
      return { ...mapped, args, over };
    }
    default:
      return mapped;
  }
}

function rewriteSelect(select: Select, ctes: Ctes, parent: Scope | undefined): Select {
  const scope = scopeOf(select, ctes, parent);
  const map: ChildMap = { expr: (expr) => rewriteExpr(expr, scope, ctes), query: (query) => rewriteQuery(query, ctes, scope) };
  return mapSelectChildren(select, map);
}

function rewriteBody(body: QueryBody, ctes: Ctes, parent: Scope | undefined): QueryBody {
  if (body.kind === 'select') return rewriteSelect(body, ctes, parent);
  if (body.kind === 'query') return rewriteQuery(body, ctes, parent);
  return { ...body, members: body.members.map((member) => rewriteBody(member, ctes, parent)) };
}

function rewriteQuery(query: Query, outer: Ctes, parent: Scope | undefined): Query {
  const ctes = new Map(outer);
  const withs = query.with.map((cte) => {
    const rewritten = { ...cte, query: rewriteQuery(cte.query, ctes, undefined) };
    ctes.set(key(cte.name), relationColumns(cte.query, ctes));
    return rewritten;
  });
  const body = rewriteBody(query.body, ctes, parent);
  if (body.kind === 'set' && query.orderBy.length > 0) return setOrdered({ ...query, with: withs, body }, bodyColumns(query.body, ctes));
  // ORDER BY reads the SELECT's items by alias, then its FROM columns.
  const select = query.body.kind === 'select' ? query.body : undefined;
  const aliases = new Map(select?.items.flatMap((item): [string, Expr][] => (item.kind === 'item' && item.alias !== undefined ? [[key(item.alias), item.expr]] : [])));
  const scope = select && scopeOf(select, ctes, parent);
  const orderBy = select && scope ? orderItems(query.orderBy.map((item) => byName(item, select, aliases, scope)), scope, aliases) : query.orderBy;
  return { ...query, with: withs, body, orderBy };
}

/**
 * An ORDER BY ordinal (`ORDER BY 1`) whose SELECT item is a FLOAT64 written as the key that names
 * the item (its alias, or the column it is), so that NaN sorts as for a named key: an ordinal is
 * a number to the NaN rules. Left as written where no name is sure to mean the item.
 */
function byName(item: OrderItem, select: Select, aliases: ReadonlyMap<string, Expr>, scope: Scope): OrderItem {
  if (item.expr.kind !== 'literal' || item.expr.type !== 'int64') return item;
  const position = Number(item.expr.value);
  const before = select.items.slice(0, position);
  // A star before the position leaves which column it is to the backend.
  if (before.length < position || before.some((selected) => selected.kind !== 'item')) return item;
  const target = before[position - 1]!;
  if (target.kind !== 'item') return item;
  const float = staticType(target.expr, TYPE_LOOKUP) === 'float64' || scalarOf(typeOf(target.expr, scope)) === 'float64';
  if (!float) return item;
  const loc = item.expr.loc;
  if (target.alias !== undefined) {
    const named: ColumnRef = { kind: 'column', name: target.alias, fields: [], loc };
    return { ...item, expr: { kind: 'cast', safe: false, operand: named, type: { name: 'FLOAT64' }, loc } };
  }
  // An unaliased column is named by itself, where no alias takes its name.
  if (target.expr.kind !== 'column' || aliases.has(key(target.expr.name))) return item;
  return { ...item, expr: { kind: 'cast', safe: false, operand: target.expr, type: { name: 'FLOAT64' }, loc } };
}

/**
 * A set operation ordered by a FLOAT64 column: DuckDB orders a UNION by its columns alone, not by
 * an expression of them (the NaN-aware key of nan.ts is one), so the set operation becomes a
 * derived table that a `SELECT *` orders, the key cast as a SELECT's is. A key by ordinal is read
 * as its column's name; an unnamed FLOAT64 column, which no key could name, is refused by name. A
 * set operation ordered by other columns is written as before.
 */
function setOrdered(query: Query, columns: Columns): Query {
  const floatAt = (index: number) => scalarOf(columns?.[index]?.type) === 'float64';
  const position = (expr: Expr): number | undefined => {
    if (expr.kind === 'literal' && expr.type === 'int64' && /^\d+$/.test(String(expr.value))) return Number(expr.value) - 1;
    if (expr.kind !== 'column' || expr.table !== undefined || expr.fields.length !== 0) return undefined;
    const index = columns?.findIndex((column) => column.name !== undefined && key(column.name) === key(expr.name)) ?? -1;
    return index < 0 ? undefined : index;
  };
  if (!query.orderBy.some((item) => floatAt(position(item.expr) ?? -1))) return query;
  const orderBy = query.orderBy.map((item): OrderItem => {
    const index = position(item.expr);
    if (index === undefined || !floatAt(index)) return item;
    const name = columns?.[index]?.name;
    if (name === undefined) throw new UnsupportedConstruct('ORDER BY an unnamed FLOAT64 column of a set operation (NaN could not be ordered as BigQuery orders it; name the column)', 'duckdb', item.expr.loc);
    const column: ColumnRef = { kind: 'column', name, fields: [], loc: item.expr.loc };
    return { ...item, expr: { kind: 'cast', safe: false, operand: column, type: { name: 'FLOAT64' }, loc: item.expr.loc } };
  });
  const inner: Query = { kind: 'query', with: [], body: query.body, orderBy: [], loc: query.loc };
  const select: Select = { kind: 'select', distinct: false, items: [{ kind: 'star', except: [], replace: [] }], from: [{ kind: 'derived', query: inner }], groupBy: [], windows: [], loc: query.loc };
  return { ...query, body: select, orderBy };
}


function shapeType(shape: Shape): ColumnType | undefined {
  if (shape.kind === 'scalar') return shape.float64 ? { scalar: 'float64' } : undefined;
  if (shape.kind === 'struct') return { struct: shape.names.map((name) => ({ name, type: shapeType(shape.fields.get(key(name))!) })) };
  return undefined;
}

export function typedColumns(sourceColumns: ((source: string) => SourceColumns) | undefined): Rewrite {
  const lookup = (source: string): Columns => {
    const columns = sourceColumns?.(source);
    return columns && [...columns].map(([name, shape]) => ({ name, type: shapeType(shape) }));
  };
  return (query) => {
    tableColumns = lookup;
    known = new WeakMap();
    return rewriteQuery(query, new Map(), undefined);
  };
}
