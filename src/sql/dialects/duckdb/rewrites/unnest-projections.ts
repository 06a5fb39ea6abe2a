/**
 * BigQuery's lateral UNNEST, in the shape DuckDB runs well and means the same in.
 *
 * A chain `t CROSS JOIN UNNEST(t.a) AS x CROSS JOIN UNNEST(x.b) AS y` (or commas, or
 * `LEFT JOIN UNNEST(..)` with no ON or ON TRUE) becomes nested projections under t's alias,
 * `(SELECT *, unnest(..) AS _u_y FROM (SELECT *, unnest(t.a) AS _u_x FROM t) AS t) AS t`:
 * DuckDB plans a chain of UNNEST joins as joins, 20-40x slower than unnesting in a projection.
 * References follow: `x.f` is `t._u_x.f`, a bare `x` is `t._u_x`; `SELECT *` hides the helper
 * columns and shows each alias as a column named by it, as BigQuery's `*` does.
 *
 * Any other UNNEST stays a join, as DuckDB's `UNNEST(..) AS _u_x(x)`, with `x` read as `_u_x.x`;
 * with WITH OFFSET, a lateral subquery `(SELECT unnest(..) AS x, unnest(range(len(..))) AS o) AS _u_x`.
 * LEFT JOIN UNNEST keeps a row (with a NULL element) for a NULL or empty array; WITH OFFSET counts
 * from 0 in step with the elements (a second unnest in the same projection).
 */
import type { Rewrite } from '../../../generator/dialect.js';
import type { ColumnRef, DerivedTable, Expr, FromItem, Query, QueryBody, Select, SelectItem, UnnestRef } from '../../../parse/tree.js';
import { mapExprChildren, mapFromItem, type ChildMap } from '../../../parse/walk.js';
import { UnsupportedConstruct } from '../../../generator/unsupported.js';
import { namedStructElements } from '../struct-arrays.js';
import { isHiddenUnnestAlias } from './resolve-names.js';

/** Where an UNNEST alias's element is read from: `table.column`. */
interface Target {
  table: string;
  column: string;
}

/** UNNEST aliases visible here (lower case), and those of the scopes around. */
interface Aliases {
  targets: ReadonlyMap<string, Target>;
  parent: Aliases | undefined;
}

function helperColumn(alias: string): string {
  return `_u_${alias}`;
}

function native(name: string, ...args: Expr[]): Expr {
  return { kind: 'native', name, args };
}

function lookup(name: string, aliases: Aliases | undefined): Target | undefined {
  for (let current = aliases; current; current = current.parent) {
    const target = current.targets.get(name.toLowerCase());
    if (target !== undefined) return target;
  }
  return undefined;
}

function isTrue(expr: Expr | undefined): boolean {
  return expr?.kind === 'literal' && expr.type === 'bool' && expr.value === true;
}

/** An UNNEST that can be a projection: a lateral cross join, or a LEFT JOIN ... ON TRUE. */
function projectable(item: FromItem): item is UnnestRef {
  if (item.kind !== 'unnest' || item.alias === undefined) return false;
  const join = item.join?.type ?? ',';
  if (join === ',' || join === 'CROSS JOIN' || join === 'INNER JOIN' || join === 'JOIN') return item.join?.on === undefined || isTrue(item.join.on);
  return (join === 'LEFT JOIN' || join === 'LEFT OUTER JOIN') && (item.join?.on === undefined || isTrue(item.join.on));
}

function isLeft(item: FromItem): boolean {
  return item.kind !== 'unknown' && (item.join?.type ?? '').startsWith('LEFT');
}

/** How many leading FROM items (the base and its UNNESTs) become one projected relation, and under which alias. */
function chainOf(from: readonly FromItem[]): { length: number; alias: string | undefined } {
  const base = from[0];
  if (base === undefined || (base.kind !== 'table' && base.kind !== 'derived')) return { length: 0, alias: undefined };
  let length = 1;
  while (length < from.length && projectable(from[length]!)) length++;
  const alias = base.alias ?? (base.kind === 'table' ? base.name.slice(base.name.lastIndexOf('.') + 1) : undefined);
  // A subquery needs an alias to be wrapped; without one the UNNESTs stay joins.
  return length > 1 && alias !== undefined ? { length, alias } : { length: 0, alias: undefined };
}

function rewriteColumn(ref: ColumnRef, aliases: Aliases): ColumnRef {
  if (ref.table !== undefined) {
    const target = lookup(ref.table, aliases);
    return target ? { ...ref, table: target.table, name: target.column, fields: [ref.name, ...ref.fields] } : ref;
  }
  const target = lookup(ref.name, aliases);
  return target ? { ...ref, table: target.table, name: target.column } : ref;
}

function childMap(aliases: Aliases): ChildMap {
  return {
    expr: (expr) => rewriteExpr(expr, aliases),
    query: (query) => rewriteQuery(query, aliases),
  };
}

function rewriteExpr(expr: Expr, aliases: Aliases): Expr {
  if (expr.kind === 'column') return rewriteColumn(expr, aliases);
  return mapExprChildren(expr, childMap(aliases));
}

/**
 * One more projection level: the relation so far, with this UNNEST's element (and offset) as
 * columns; without a relation, just the element (named by the UNNEST's alias) and offset.
 */
function projectionLevel(relation: FromItem | undefined, item: UnnestRef, array: Expr, alias: string): DerivedTable {
  const elements: Expr = isLeft(item)
    ? {
        kind: 'case',
        whens: [{ when: { kind: 'binary', operator: '>', left: native('len', array), right: { kind: 'literal', type: 'int64', value: '0' } }, then: array }],
        else: { kind: 'array', elements: [{ kind: 'literal', type: 'null', value: null }] },
      }
    : array;
  const items: SelectItem[] = [
    ...(relation ? [{ kind: 'star', except: [], replace: [] } as SelectItem] : []),
    { kind: 'item', expr: native('unnest', elements), alias: relation ? helperColumn(item.alias!) : item.alias },
  ];
  if (item.offsetAlias !== undefined) items.push({ kind: 'item', expr: native('unnest', native('range', native('len', array))), alias: item.offsetAlias });
  const from = relation ? [{ ...relation, join: undefined } as FromItem] : [];
  const select: Select = { kind: 'select', distinct: false, items, from, groupBy: [], windows: [] };
  return { kind: 'derived', query: { kind: 'query', with: [], body: select, orderBy: [] }, alias };
}

/** An UNNEST chain's element column, under the alias of the relation it was projected into. */
interface Projection {
  alias: string;
  base: string;
  column: string;
}

/**
 * One FROM list (a SELECT's, or a parenthesised join's), its UNNESTs rewritten; the aliases it
 * defines go into `targets`, the chains' element columns into `projected`.
 */
function rewriteFrom(items: readonly FromItem[], targets: Map<string, Target>, parent: Aliases | undefined, projected: Projection[]): FromItem[] {
  const chain = chainOf(items);
  /** What an item's own expressions see: the aliases of the items before it. */
  const before = (): Aliases => ({ targets: new Map(targets), parent });
  const from: FromItem[] = [];
  items.forEach((item, index) => {
    if (item.kind === 'unknown') {
      from.push(item);
      return;
    }
    if (item.kind === 'join_group') {
      const inner = rewriteFrom(item.items, targets, parent, projected);
      // A group that became one projected relation is that relation (DuckDB takes no `((..) AS a)`).
      from.push(inner.length === 1 ? ({ ...inner[0]!, join: item.join } as FromItem) : { ...item, items: inner });
      return;
    }
    if (index < chain.length) {
      if (index === 0) {
        from.push(mapFromItem(item, childMap(before())));
        return;
      }
      const unnest = item as UnnestRef;
      const array = rewriteExpr(unnest.array, before());
      from[0] = projectionLevel(from[0]!, unnest, array, chain.alias!);
      targets.set(unnest.alias!.toLowerCase(), { table: chain.alias!, column: helperColumn(unnest.alias!) });
      projected.push({ alias: unnest.alias!, base: chain.alias!, column: helperColumn(unnest.alias!) });
      return;
    }
    if (item.kind === 'unnest') {
      const alias = item.alias!;
      // A comma before UNNEST is a lateral cross join in BigQuery; DuckDB spells it out.
      const join = item.join && (item.join.type === ',' ? { ...item.join, type: 'CROSS JOIN' as const } : item.join);
      const array = rewriteExpr(item.array, before());
      targets.set(alias.toLowerCase(), { table: helperColumn(alias), column: alias });
      if (item.offsetAlias === undefined) {
        from.push({ ...item, array, alias: helperColumn(alias), columnAlias: alias, join });
        return;
      }
      // WITH OFFSET: the elements and their offsets unnested side by side in a lateral subquery.
      const level = projectionLevel(undefined, { ...item, join }, array, helperColumn(alias));
      from.push({ ...level, join });
      return;
    }
    from.push({ ...mapFromItem({ ...item, join: undefined }, childMap(before())), join: item.join } as FromItem);
  });
  return from;
}

/** Every ON of a FROM list, parenthesised joins' included, read with the whole SELECT's aliases. */
function rewriteOns(items: readonly FromItem[], map: ChildMap): FromItem[] {
  return items.map((item) => {
    if (item.kind === 'unknown') return item;
    const inner = item.kind === 'join_group' ? { ...item, items: rewriteOns(item.items, map) } : item;
    return inner.join?.on ? { ...inner, join: { ...inner.join, on: map.expr(inner.join.on) } } : inner;
  });
}

function rewriteSelect(select: Select, parent: Aliases | undefined): { select: Select; aliases: Aliases } {
  const targets = new Map<string, Target>();
  const aliases: Aliases = { targets, parent };
  const projected: Projection[] = [];
  const from = rewriteFrom(select.from, targets, parent, projected);
  const map = childMap(aliases);
  const items = select.items.flatMap((item) => starOverUnnest(item, select, aliases) ?? selectItems(item, projected, aliases));
  return {
    aliases,
    select: {
      ...select,
      from: rewriteOns(from, map),
      items,
      where: select.where && map.expr(select.where),
      groupBy: select.groupBy.map(map.expr),
      having: select.having && map.expr(select.having),
      qualify: select.qualify && map.expr(select.qualify),
    },
  };
}

/** Functions whose array is of scalars whatever their arguments. */
const SCALAR_ARRAYS: ReadonlySet<string> = new Set(['GENERATE_ARRAY', 'GENERATE_DATE_ARRAY', 'GENERATE_TIMESTAMP_ARRAY', 'SPLIT']);

/** What an UNNEST's elements are, where the text says: STRUCTs, scalars, or not known here. */
function elementKind(array: Expr): 'struct' | 'scalar' | undefined {
  if (array.kind === 'call') return SCALAR_ARRAYS.has(array.name.toUpperCase()) ? 'scalar' : undefined;
  if (array.kind !== 'array') return undefined;
  if (array.elementType !== undefined) return array.elementType.name.toUpperCase() === 'STRUCT' ? 'struct' : 'scalar';
  const first = array.elements[0];
  if (first?.kind === 'struct') return 'struct';
  if (first?.kind === 'literal' && first.type !== 'null') return 'scalar';
  return undefined;
}

function refuse(what: string, node: { loc?: Expr['loc'] }): never {
  throw new UnsupportedConstruct(what, 'duckdb', node.loc);
}

/**
 * BigQuery's `*` over `FROM UNNEST(...)`: the UNNEST is a value table, so an element STRUCT's
 * fields are the columns (x, y of `UNNEST([STRUCT('a' AS x, 1 AS y)])`, with or without an alias),
 * and a scalar element of an UNNEST without an alias is the anonymous `f0_`. DuckDB's `*` shows
 * the element as one column, named by the (hidden) alias: over an UNNEST alone, the columns are
 * written out; over an UNNEST of STRUCT literals joined to more, `*` is refused, since its columns'
 * order would follow the FROM list, and so is `*` over an UNNEST alone without an alias of an
 * array the text does not type. Undefined: `*` as it is.
 */
function starOverUnnest(item: SelectItem, select: Select, aliases: Aliases): SelectItem[] | undefined {
  if (item.kind !== 'star' || item.table !== undefined) return undefined;
  const unnests = select.from.filter((from): from is UnnestRef => from.kind === 'unnest');
  const [sole] = select.from;
  if (sole?.kind !== 'unnest' || select.from.length !== 1) {
    const struct = unnests.find((unnest) => elementKind(unnest.array) === 'struct');
    if (struct) refuse('SELECT * over an UNNEST of STRUCTs joined to other FROM items (select its fields by name)', item);
    const anonymous = unnests.find((unnest) => isHiddenUnnestAlias(unnest.alias!) && elementKind(unnest.array) === 'scalar');
    if (anonymous) refuse('SELECT * over an UNNEST without an alias joined to other FROM items (give the UNNEST an alias)', item);
    return undefined;
  }
  const alias = sole.alias!;
  const kind = elementKind(sole.array);
  const element = (fields: string[]): Expr => ({ kind: 'column', table: helperColumn(alias), name: alias, fields });
  let columns: { name: string; expr: Expr }[];
  if (kind === 'struct') {
    const named = sole.array.kind === 'array' ? namedStructElements(sole.array) : undefined;
    const names = named && !('conflict' in named) ? named.names : undefined;
    if (names === undefined || !names.every((name): name is string => name !== undefined)) {
      return refuse('SELECT * over an UNNEST of STRUCTs that leave a field unnamed, or of a typed ARRAY<STRUCT<...>> (select its fields by name)', item);
    }
    columns = names.map((name) => ({ name, expr: element([name]) }));
  } else if (kind === 'scalar' && isHiddenUnnestAlias(alias)) {
    // BigQuery counts f0_, f1_, ... over a SELECT's unnamed columns; this one is the only one.
    if (select.items.some((other) => other.kind === 'item' && other.alias === undefined && other.expr.kind !== 'column')) {
      refuse('SELECT * over an UNNEST without an alias beside other unnamed columns (name them with AS)', item);
    }
    columns = [{ name: 'f0_', expr: element([]) }];
  } else if (isHiddenUnnestAlias(alias)) {
    // Its one column is f0_ or, for STRUCTs, their fields: which, the text does not say.
    return refuse('SELECT * over an UNNEST without an alias of an array whose elements are not known to be STRUCTs or not (give the UNNEST an alias, or select by name)', item);
  } else {
    return undefined;
  }
  if (sole.offsetAlias !== undefined) columns.push({ name: sole.offsetAlias, expr: { kind: 'column', table: helperColumn(alias), name: sole.offsetAlias, fields: [] } });
  const map = childMap(aliases);
  const excluded = new Set(item.except.map((name) => name.toLowerCase()));
  return columns
    .filter((column) => !excluded.has(column.name.toLowerCase()))
    .map((column): SelectItem => {
      const replaced = item.replace.find((entry) => entry.alias.toLowerCase() === column.name.toLowerCase());
      return { kind: 'item', expr: replaced ? map.expr(replaced.expr) : column.expr, alias: column.name };
    });
}

function selectItems(item: SelectItem, projected: readonly Projection[], aliases: Aliases): SelectItem[] {
  const map = childMap(aliases);
  if (item.kind === 'star') {
    const replace = item.replace.map((entry) => ({ ...entry, expr: map.expr(entry.expr) }));
    if (projected.length === 0) return [{ ...item, replace }];
    if (item.table !== undefined) {
      const own = projected.filter((projection) => projection.base.toLowerCase() === item.table!.toLowerCase()).map((projection) => projection.column);
      return [{ ...item, replace, except: [...item.except, ...own] }];
    }
    const hidden = projected.map((projection) => projection.column);
    // BigQuery's `*` includes each UNNEST alias as a column named by the alias; `t.*` only t's columns.
    const excluded = new Set(item.except.map((name) => name.toLowerCase()));
    const shown = projected
      .filter((projection) => !excluded.has(projection.alias.toLowerCase()))
      .map((projection): SelectItem => ({ kind: 'item', expr: { kind: 'column', table: projection.base, name: projection.column, fields: [] }, alias: projection.alias }));
    const except = item.except.filter((name) => !projected.some((projection) => projection.alias.toLowerCase() === name.toLowerCase()));
    return [{ ...item, replace, except: [...except, ...hidden] }, ...shown];
  }
  const expr = map.expr(item.expr);
  // A bare UNNEST alias is read under its helper name; the column keeps the alias's name.
  const bare = item.alias === undefined && item.expr.kind === 'column' && item.expr.table === undefined && item.expr.fields.length === 0 && lookup(item.expr.name, aliases) !== undefined;
  return [{ ...item, expr, alias: bare && item.expr.kind === 'column' ? item.expr.name : item.alias }];
}

function rewriteBody(body: QueryBody, parent: Aliases | undefined): { body: QueryBody; last: Aliases | undefined } {
  switch (body.kind) {
    case 'select': {
      const rewritten = rewriteSelect(body, parent);
      return { body: rewritten.select, last: rewritten.aliases };
    }
    case 'query':
      return { body: rewriteQuery(body, parent), last: parent };
    case 'set':
      return { body: { ...body, members: body.members.map((member) => rewriteBody(member, parent).body) }, last: parent };
  }
}

function rewriteQuery(query: Query, parent: Aliases | undefined): Query {
  const withs = query.with.map((cte) => ({ ...cte, query: rewriteQuery(cte.query, parent) }));
  const body = rewriteBody(query.body, parent);
  const order = body.last ? childMap(body.last) : undefined;
  return {
    ...query,
    with: withs,
    body: body.body,
    orderBy: order ? query.orderBy.map((item) => ({ ...item, expr: order.expr(item.expr) })) : query.orderBy,
  };
}

export const unnestAsProjections: Rewrite = (query) => rewriteQuery(query, undefined);
