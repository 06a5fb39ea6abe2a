/**
 * GoogleSQL's name resolution, made explicit for a backend that resolves names its own way.
 *
 * - A SELECT-list alias wins over a FROM column of the same name where GoogleSQL says so: a whole
 *   GROUP BY item, and any name in HAVING, ORDER BY and QUALIFY (not in WHERE, ON, the SELECT list
 *   itself or a window's PARTITION BY / ORDER BY, which see FROM names only). The alias is replaced
 *   by its expression, so `select timestamp_trunc(t.timestamp, hour) as timestamp ... group by
 *   timestamp` groups by the hour, as in BigQuery, not by the column. An alias that is the very
 *   column (`select x ... group by x`) is left as it is; ordinals stay ordinals.
 * - An unqualified name that is no column of a FROM relation but a field of an UNNEST alias's
 *   struct element is qualified with that alias (`... unnest(m.request) as r where path like ..`
 *   -> `r.path`); the innermost UNNEST wins. Every UNNEST without an alias gets a hidden one first,
 *   since its fields are visible by name too. Outer queries' names are found for correlated
 *   subqueries the same way.
 * - With `strict` (the live database, whose tables' columns are all known), a name that no
 *   relation, UNNEST alias or field in scope has is refused as BigQuery refuses it, naming the CTE
 *   or source it was looked for in; otherwise it is left to the backend.
 *
 * Where a relation's columns are not known (a subquery, a source without a schema), names are left
 * as written.
 */
import { didYouMean } from '../../../../config/spelling.js';
import type { Rewrite } from '../../../generator/dialect.js';
import { UnsupportedConstruct } from '../../../generator/unsupported.js';
import { InvalidQuery } from '../../../parse/errors.js';
import { impliedName } from '../../../analyse/item-names.js';
import { FUNCTIONS } from '../../../language.js';
import { elementOf, fieldOf, SCALAR, structShape, UNKNOWN, type Columns, type Shape } from '../../../analyse/shapes.js';
import type { ColumnRef, Expr, FromItem, Query, QueryBody, Select, SelectItem, UnnestRef } from '../../../parse/tree.js';
import { namedStructElements } from '../struct-arrays.js';
import { mapExprChildren, mapFromItem, mapSelectItem, type ChildMap } from '../../../parse/walk.js';

export interface ResolveOptions {
  /** The columns of a source's table, where known. */
  sourceColumns?: ((source: string) => Columns) | undefined;
  /** Refuse names nothing in scope has (only where every relation's columns are known). */
  strict?: boolean | undefined;
  /**
   * Names (lower case) the backend reads as something else when they stand alone (DuckDB's
   * `user`, `current_role`): a FROM column of such a name is always qualified with its relation.
   */
  qualify?: ReadonlySet<string> | undefined;
}

interface Relation {
  /** The alias it is read by, as written. */
  alias: string;
  /** What the relation is, for messages: a CTE's or source's name, or "a subquery". */
  name: string;
  columns: Columns;
}

interface UnnestAlias {
  element: Shape;
  /** Where the elements come from, for messages: `edge_logs.metadata.request`. */
  origin: string;
}

/** Names visible in one SELECT's FROM scope, and the scope around it. */
interface Scope {
  ctes: ReadonlyMap<string, Columns>;
  relations: ReadonlyMap<string, Relation>;
  unnests: ReadonlyMap<string, UnnestAlias>;
  /** WITH OFFSET columns. */
  offsets: ReadonlySet<string>;
  parent: Scope | undefined;
}

/** A SELECT-list alias, resolved: what a reference to it stands for. */
interface AliasTarget {
  expr: Expr;
  /** The item is the very column of the same name (`select x` or `select t.x`): no substitution. */
  sameColumn: boolean;
}

type Aliases = ReadonlyMap<string, AliasTarget>;

const NO_NAMES: ReadonlyMap<string, never> = new Map<string, never>();
const NO_OFFSETS: ReadonlySet<string> = new Set<string>();

/** The name of the hidden alias of the UNNEST at `index` of a FROM list. */
function hiddenUnnestAlias(index: number): string {
  return `_unnest_${index}`;
}

/** Whether an UNNEST's alias is one given here, for one written without. */
export function isHiddenUnnestAlias(alias: string): boolean {
  return /^_unnest_\d+$/.test(alias);
}

function key(name: string): string {
  return name.toLowerCase();
}

function fieldList(shape: Shape): string {
  if (shape.kind !== 'struct') return '';
  const names = [...shape.fields.keys()];
  return `; its fields: ${names.slice(0, 30).join(', ')}${names.length > 30 ? ', ...' : ''}`;
}

/**
 * `[STRUCT('abc' AS t, 5 AS len), ('x', 1)]`: an array of struct literals whose first element names
 * every field, so an UNNEST of it puts `t` and `len` in scope (the values' own shapes are not
 * followed); every element must be a struct literal of as many fields, which the DuckDB dialect
 * writes with the first's names (struct-arrays.ts). Anything else is not known.
 */
function structArrayShape(array: Extract<Expr, { kind: 'array' }>): Shape {
  const named = namedStructElements(array);
  if ('conflict' in named || named.names === undefined) return UNKNOWN;
  const names = named.names;
  if (!names.every((name): name is string => name !== undefined)) return UNKNOWN;
  const fits = (element: Expr) => element.kind === 'struct' && element.type === undefined && element.fields.length === names.length;
  if (!array.elements.every(fits)) return UNKNOWN;
  return { kind: 'array', element: structShape(names.map((name) => [name, UNKNOWN])) };
}

/** FROM items with a parenthesised join's items in its place. */
function flattenFrom(items: readonly FromItem[]): FromItem[] {
  return items.flatMap((item) => (item.kind === 'join_group' ? flattenFrom(item.items) : [item]));
}

export function resolveNames(options: ResolveOptions = {}): Rewrite {
  const strict = options.strict === true;
  /** The output columns of each FROM subquery, by its rewritten tree. */
  const derivedColumns = new WeakMap<Query, Columns>();

  function refuse(message: string, node: { loc?: Expr['loc'] }): never {
    throw new InvalidQuery(message, node.loc);
  }

  function findUnnest(name: string, scope: Scope | undefined): UnnestAlias | undefined {
    for (let current = scope; current; current = current.parent) {
      const alias = current.unnests.get(key(name));
      if (alias) return alias;
    }
    return undefined;
  }

  function findRelation(name: string, scope: Scope | undefined): Relation | undefined {
    for (let current = scope; current; current = current.parent) {
      const relation = current.relations.get(key(name));
      if (relation) return relation;
    }
    return undefined;
  }

  function cteColumns(name: string, scope: Scope | undefined): { found: boolean; columns: Columns } {
    for (let current = scope; current; current = current.parent) {
      if (current.ctes.has(key(name))) return { found: true, columns: current.ctes.get(key(name)) };
    }
    return { found: false, columns: undefined };
  }

  /** The shape reached by following `fields` from `shape`; refuses (strictly) a field that is not there. */
  function followFields(shape: Shape, fields: readonly string[], described: string, node: ColumnRef): Shape {
    let current = shape;
    let path = described;
    for (const field of fields) {
      if (strict && current.kind === 'array') refuse(`Cannot access field ${field} on ${path}, an array: UNNEST it first`, node);
      if (strict && current.kind === 'struct' && !current.fields.has(key(field))) {
        refuse(`Field name ${field} does not exist in ${path}${didYouMean(field, current.names)}${fieldList(current)}`, node);
      }
      current = fieldOf(current, field);
      path = `${path}.${field}`;
    }
    return current;
  }

  /** How one FROM scope resolves an unqualified name, without looking further out. */
  function lookupHere(name: string, scope: Scope): { kind: 'alias' | 'unknown' } | { kind: 'column'; relation: Relation } | { kind: 'field'; alias: string } | undefined {
    const name_ = key(name);
    if (scope.unnests.has(name_) || scope.offsets.has(name_)) return { kind: 'alias' };
    let unknownColumns = false;
    for (const relation of scope.relations.values()) {
      if (relation.columns === undefined) unknownColumns = true;
      else if (relation.columns.has(name_)) return { kind: 'column', relation };
    }
    if (unknownColumns) return { kind: 'unknown' };
    const owner = [...scope.unnests.entries()].reverse().find(([, alias]) => alias.element.kind === 'struct' && alias.element.fields.has(name_));
    return owner ? { kind: 'field', alias: owner[0] } : undefined;
  }

  /** The columns and UNNEST elements' fields an unqualified name could have meant here, outer scopes' too. */
  function namesInScope(scope: Scope): string[] {
    const names: string[] = [];
    for (let current: Scope | undefined = scope; current; current = current.parent) {
      for (const relation of current.relations.values()) names.push(...(relation.columns?.keys() ?? []));
      for (const unnest of current.unnests.values()) if (unnest.element.kind === 'struct') names.push(...unnest.element.names);
    }
    return names;
  }

  function describeScope(scope: Scope): string {
    const names = [...scope.relations.values()].map((relation) => relation.name);
    return names.length ? names.join(', ') : 'the query';
  }

  function resolveColumn(ref: ColumnRef, scope: Scope): ColumnRef {
    if (ref.table !== undefined) {
      const unnest = findUnnest(ref.table, scope);
      if (unnest) {
        followFields(unnest.element, [ref.name, ...ref.fields], `${ref.table} (an element of ${unnest.origin})`, ref);
        return ref;
      }
      const relation = findRelation(ref.table, scope);
      if (relation) {
        if (relation.columns !== undefined) {
          const column = relation.columns.get(key(ref.name));
          if (column === undefined) {
            const names = [...relation.columns.keys()];
            if (strict) refuse(`Name ${ref.name} not found inside ${ref.table} (${relation.name})${didYouMean(ref.name, names)}; its columns: ${names.join(', ')}`, ref);
          } else followFields(column, ref.fields, `${ref.table}.${ref.name}`, ref);
        }
        return ref;
      }
      // `a.b` where `a` is no relation or alias: a column's field, resolved like a column.
      const resolved = resolveColumn({ ...ref, table: undefined, name: ref.table, fields: [ref.name, ...ref.fields] }, scope);
      return resolved.table === undefined ? ref : { ...ref, table: resolved.table, name: ref.table, fields: [ref.name, ...ref.fields] };
    }
    for (let current: Scope | undefined = scope; current; current = current.parent) {
      const found = lookupHere(ref.name, current);
      if (found === undefined) continue;
      if (found.kind === 'field') {
        const alias = current.unnests.get(found.alias)!;
        followFields(fieldOf(alias.element, ref.name), ref.fields, `${found.alias}.${ref.name}`, ref);
        return { ...ref, table: found.alias };
      }
      if (found.kind !== 'column') return ref;
      // A field of a column read without its table (`shipping.address.city`) must exist too; a
      // field read straight off a repeated column is refused by the stored-records pass, in BigQuery's words.
      const column = found.relation.columns?.get(key(ref.name)) ?? UNKNOWN;
      if (column.kind !== 'array') followFields(column, ref.fields, ref.name, ref);
      if (options.qualify?.has(key(ref.name))) return { ...ref, table: found.relation.alias };
      return ref;
    }
    // A FROM alias standing alone is its row, a STRUCT of its columns (`SELECT t AS row FROM t`).
    if (ref.fields.length === 0 && findRelation(ref.name, scope)) return ref;
    if (strict) refuse(`Unrecognized name: ${ref.name} (not a column of ${describeScope(scope)}, nor a field of an UNNEST alias in scope)${didYouMean(ref.name, namesInScope(scope))}`, ref);
    return ref;
  }

  function shapeOf(expr: Expr, scope: Scope): { shape: Shape; origin: string } {
    if (expr.kind === 'array') return { shape: structArrayShape(expr), origin: 'an array' };
    if (expr.kind !== 'column') return { shape: expr.kind === 'subscript' || expr.kind === 'field' ? UNKNOWN : SCALAR, origin: 'an expression' };
    let shape: Shape = UNKNOWN;
    let origin: string = expr.name;
    if (expr.table !== undefined) {
      const unnest = findUnnest(expr.table, scope);
      const relation = findRelation(expr.table, scope);
      if (unnest) {
        shape = fieldOf(unnest.element, expr.name);
        origin = `${unnest.origin}.${expr.name}`;
      } else if (relation) {
        shape = relation.columns?.get(key(expr.name)) ?? UNKNOWN;
        origin = `${relation.name}.${expr.name}`;
      }
    } else {
      const unnest = findUnnest(expr.name, scope);
      if (unnest) return { shape: expr.fields.reduce(fieldOf, unnest.element), origin: [unnest.origin, ...expr.fields].join('.') };
      // The nearest scope with a relation that has the column: a correlated subquery reads outer ones.
      search: for (let current: Scope | undefined = scope; current; current = current.parent) {
        for (const relation of current.relations.values()) {
          const column = relation.columns?.get(key(expr.name));
          if (column) {
            shape = column;
            origin = `${relation.name}.${expr.name}`;
            break search;
          }
        }
      }
    }
    return { shape: expr.fields.reduce(fieldOf, shape), origin: [origin, ...expr.fields].join('.') };
  }

  function relationOf(item: FromItem, alias: string, parent: Scope | undefined): Relation | undefined {
    if (item.kind === 'derived') return { alias, name: 'a subquery', columns: derivedColumns.get(item.query) };
    if (item.kind !== 'table') return undefined;
    if (!item.qualified) {
      const cte = cteColumns(item.name, parent);
      if (cte.found) return { alias, name: item.name, columns: cte.columns };
    }
    return { alias, name: item.name, columns: options.sourceColumns?.(item.name) };
  }

  /** The scope of a SELECT's first `count` FROM items: what each item's own expressions see. */
  /** The scope of FROM items (a parenthesised join's items count as its SELECT's): what later items and clauses see. */
  function scopeOf(from: readonly FromItem[], parent: Scope | undefined): Scope {
    const relations = new Map<string, Relation>();
    const unnests = new Map<string, UnnestAlias>();
    const offsets = new Set<string>();
    const scope: Scope = { ctes: NO_NAMES, relations, unnests, offsets, parent };
    const add = (items: readonly FromItem[]): void => {
      for (const item of items) {
        if (item.kind === 'unknown') continue;
        if (item.kind === 'join_group') {
          add(item.items);
          continue;
        }
        if (item.kind === 'unnest') {
          const array = shapeOf(item.array, scope);
          if (item.alias !== undefined) unnests.set(key(item.alias), { element: elementOf(array.shape), origin: array.origin });
          if (item.offsetAlias !== undefined) offsets.add(key(item.offsetAlias));
          continue;
        }
        const alias = item.alias ?? (item.kind === 'table' ? item.name.slice(item.name.lastIndexOf('.') + 1) : undefined);
        const relation = alias === undefined ? undefined : relationOf(item, alias, parent);
        if (relation) relations.set(key(relation.alias), relation);
      }
    };
    add(from);
    return scope;
  }

  /**
   * A FROM list with hidden aliases given and each item's own expressions resolved: an item sees
   * only the items before it (`unnest(metadata) as metadata` reads the column, not the alias being
   * defined). ONs are left for the SELECT's whole scope.
   */
  function rewriteFrom(items: readonly FromItem[], prefix: readonly FromItem[], parent: Scope | undefined, hidden: { count: number }): FromItem[] {
    const done: FromItem[] = [];
    for (const original of items) {
      // An UNNEST or subquery without an alias gets a hidden one: its names are visible all the
      // same, and a column of it may need qualifying.
      let item = original;
      if (item.kind === 'unnest' && item.alias === undefined) item = { ...item, alias: hiddenUnnestAlias(hidden.count++) };
      else if (item.kind === 'derived' && item.alias === undefined) item = { ...item, alias: `_subquery_${hidden.count++}` };
      const before = [...prefix, ...done];
      if (item.kind === 'unknown') {
        done.push(item);
      } else if (item.kind === 'join_group') {
        // A parenthesised join is a FROM item of its own: its items see each other and the
        // enclosing query, not the items before it (as in BigQuery, where Studio's unified logs
        // read `unnest(metadata)` inside one as its own edge_logs' metadata, not auth_logs').
        done.push({ ...item, items: rewriteFrom(item.items, [], parent, hidden) });
      } else if (item.kind === 'derived') {
        // Its output columns, so names read from it resolve (and unknown ones are refused) too.
        const rewritten = rewriteQuery(item.query, parent);
        derivedColumns.set(rewritten.query, rewritten.columns);
        done.push({ ...item, query: rewritten.query });
      } else {
        done.push({ ...mapFromItem({ ...item, join: undefined }, childMap(scopeOf(before, parent))), join: item.join } as FromItem);
      }
    }
    return done;
  }

  /** Every ON of a FROM list, parenthesised joins' included, resolved in the SELECT's whole scope. */
  function resolveOns(items: readonly FromItem[], map: ChildMap): FromItem[] {
    return items.map((item) => {
      if (item.kind === 'unknown') return item;
      const inner = item.kind === 'join_group' ? { ...item, items: resolveOns(item.items, map) } : item;
      return inner.join?.on ? { ...inner, join: { ...inner.join, on: map.expr(inner.join.on) } } : inner;
    });
  }

  /** Output columns of a SELECT, where every item's name and shape can be told. */
  function outputColumns(select: Select, scope: Scope): Columns {
    const columns = new Map<string, Shape>();
    let anonymous = 0;
    for (const item of select.items) {
      if (item.kind === 'star') {
        if (item.except.length || item.replace.length) return undefined;
        const relations = item.table !== undefined ? [scope.relations.get(key(item.table))] : [...scope.relations.values()];
        for (const relation of relations) {
          if (relation?.columns === undefined) return undefined;
          for (const [name, shape] of relation.columns) columns.set(name, shape);
        }
        if (item.table === undefined) {
          for (const [alias, unnest] of scope.unnests) {
            // An UNNEST of STRUCTs is its fields, as BigQuery's `*` reads it (and DuckDB's): a CTE
            // `SELECT * FROM UNNEST([STRUCT(1 AS i)]) [AS s]` has a column i, none named s.
            if (unnest.element.kind === 'struct') for (const [name, shape] of unnest.element.fields) columns.set(name, shape);
            else columns.set(alias, unnest.element);
          }
        }
        continue;
      }
      columns.set(key(item.alias ?? impliedName(item.expr) ?? `f${anonymous++}_`), shapeOf(item.expr, scope).shape);
    }
    return columns;
  }

  /** The SELECT list's aliases (explicit and implicit), each with its resolved expression. */
  function aliasesOf(items: readonly SelectItem[]): Aliases {
    const aliases = new Map<string, AliasTarget>();
    const ambiguous = new Set<string>();
    for (const item of items) {
      if (item.kind !== 'item') continue;
      const name = item.alias ?? impliedName(item.expr);
      if (name === undefined) continue;
      const expr = item.expr;
      const sameColumn = expr.kind === 'column' && expr.fields.length === 0 && key(expr.name) === key(name);
      if (aliases.has(key(name))) ambiguous.add(key(name));
      else aliases.set(key(name), { expr, sameColumn });
    }
    // A name given to two different items is ambiguous where it is referenced; GoogleSQL refuses
    // that reference, so no substitution is made for it here (the backend reports it).
    for (const name of ambiguous) aliases.delete(name);
    return aliases;
  }

  function childMap(scope: Scope): ChildMap {
    return {
      expr: (expr) => resolveExpr(expr, scope),
      query: (query) => rewriteQuery(query, scope).query,
    };
  }

  function resolveExpr(expr: Expr, scope: Scope): Expr {
    if (expr.kind === 'column') return resolveColumn(expr, scope);
    return mapExprChildren(expr, childMap(scope));
  }

  /**
   * A FROM column written bare where the backend would read a SELECT alias of the same name (its
   * HAVING and ORDER BY prefer aliases), qualified by its relation so it stays the column.
   */
  function keepColumn(expr: Expr, scope: Scope, aliases: Aliases): Expr {
    if (expr.kind === 'column') {
      if (expr.table !== undefined || aliases.get(key(expr.name))?.sameColumn !== false) return expr;
      const owner = [...scope.relations.values()].find((relation) => relation.columns?.has(key(expr.name)));
      return owner ? { ...expr, table: owner.alias } : expr;
    }
    return mapExprChildren(expr, { expr: (child) => keepColumn(child, scope, aliases), query: (query) => query });
  }

  /**
   * HAVING, ORDER BY, QUALIFY: a SELECT-list alias wins over a FROM name. Subqueries, an aggregate's
   * arguments and a window's specification see FROM names only.
   */
  function resolveWithAliases(expr: Expr, scope: Scope, aliases: Aliases): Expr {
    if (expr.kind === 'column' && expr.table === undefined && expr.fields.length === 0) {
      const target = aliases.get(key(expr.name));
      if (target && !target.sameColumn) return keepColumn(target.expr, scope, aliases);
    }
    if (expr.kind === 'column') return keepColumn(resolveColumn(expr, scope), scope, aliases);
    // GROUPING's argument names a GROUP BY item, as a GROUP BY item does: a SELECT alias first.
    if (expr.kind === 'call' && expr.name.toLowerCase() === 'grouping' && expr.over === undefined) return { ...expr, args: expr.args.map((arg) => resolveGroupItem(arg, scope, aliases)) };
    if (expr.kind === 'call' && (expr.over !== undefined || FUNCTIONS.get(expr.name)?.kind === 'aggregate')) return keepColumn(resolveExpr(expr, scope), scope, aliases);
    return mapExprChildren(expr, { expr: (child) => resolveWithAliases(child, scope, aliases), query: (query) => rewriteQuery(query, scope).query });
  }

  /** A whole GROUP BY item may be an alias; any other item sees FROM names only. */
  function resolveGroupItem(expr: Expr, scope: Scope, aliases: Aliases): Expr {
    if (expr.kind === 'column' && expr.table === undefined && expr.fields.length === 0) {
      const target = aliases.get(key(expr.name));
      if (target && !target.sameColumn) return target.expr;
    }
    return resolveExpr(expr, scope);
  }

  /**
   * BigQuery's `*` (and `m.*`) over an UNNEST of STRUCTs shows the STRUCT's fields as columns, as
   * over any value table; DuckDB's shows the element as one column. A record read from a column
   * (a source's repeated record, a CTE's array of STRUCTs) is stored as one STRUCT or as a list by
   * the database's layout (docs/storage.md), so no one expansion holds on every layout: refused by
   * name rather than answered in another shape. An UNNEST of STRUCT literals is expanded, or
   * refused, by unnest-projections.ts.
   */
  function refuseStarOverRecords(items: readonly SelectItem[], from: readonly FromItem[], scope: Scope): void {
    const stars = items.filter((item) => item.kind === 'star');
    if (stars.length === 0) return;
    const records = flattenFrom(from).filter((item): item is UnnestRef => item.kind === 'unnest' && item.array.kind !== 'array' && item.alias !== undefined && scope.unnests.get(key(item.alias))?.element.kind === 'struct');
    for (const star of stars) {
      const record = records.find((unnest) => star.table === undefined || key(star.table) === key(unnest.alias!));
      if (record) throw new UnsupportedConstruct(`SELECT ${star.table === undefined ? '*' : `${star.table}.*`} over an UNNEST of a record or an array of STRUCTs read from a column (${scope.unnests.get(key(record.alias!))!.origin}): select its fields by name`, 'duckdb', star.loc);
    }
  }

  function rewriteSelect(select: Select, parent: Scope | undefined): { select: Select; scope: Scope; aliases: Aliases } {
    const from = rewriteFrom(select.from, [], parent, { count: 0 });
    const scope = scopeOf(from, parent);
    refuseStarOverRecords(select.items, from, scope);
    const map = childMap(scope);
    const items = select.items.map((item) => mapSelectItem(item, map));
    const aliases = aliasesOf(items);
    return {
      scope,
      aliases,
      select: {
        ...select,
        from: resolveOns(from, map),
        items,
        where: select.where && map.expr(select.where),
        groupBy: select.groupBy.map((item) => resolveGroupItem(item, scope, aliases)),
        having: select.having && resolveWithAliases(select.having, scope, aliases),
        qualify: select.qualify && resolveWithAliases(select.qualify, scope, aliases),
        windows: select.windows.map((window) => ({ ...window, spec: { ...window.spec, partitionBy: window.spec.partitionBy.map(map.expr), orderBy: window.spec.orderBy.map((entry) => ({ ...entry, expr: map.expr(entry.expr) })) } })),
      },
    };
  }

  function rewriteBody(body: QueryBody, scope: Scope): { body: QueryBody; order: ((expr: Expr) => Expr) | undefined; columns: Columns } {
    switch (body.kind) {
      case 'select': {
        const rewritten = rewriteSelect(body, scope);
        return {
          body: rewritten.select,
          order: (expr) => resolveWithAliases(expr, rewritten.scope, rewritten.aliases),
          columns: outputColumns(rewritten.select, rewritten.scope),
        };
      }
      case 'query': {
        const rewritten = rewriteQuery(body, scope);
        return { body: rewritten.query, order: undefined, columns: rewritten.columns };
      }
      case 'set': {
        const members = body.members.map((member) => rewriteBody(member, scope));
        // ORDER BY after a set operation sees the result's columns, by name or ordinal.
        return { body: { ...body, members: members.map((member) => member.body) }, order: undefined, columns: members[0]?.columns };
      }
    }
  }

  function rewriteQuery(query: Query, parent: Scope | undefined): { query: Query; columns: Columns } {
    const ctes = new Map<string, Columns>();
    const scope: Scope = { ctes, relations: NO_NAMES, unnests: NO_NAMES, offsets: NO_OFFSETS, parent };
    // A CTE sees the ones defined before it.
    const withs = query.with.map((cte) => {
      const rewritten = rewriteQuery(cte.query, scope);
      ctes.set(key(cte.name), rewritten.columns);
      return { ...cte, query: rewritten.query };
    });
    const body = rewriteBody(query.body, scope);
    const order = body.order;
    return {
      columns: body.columns,
      query: {
        ...query,
        with: withs,
        body: body.body,
        orderBy: order ? query.orderBy.map((item) => ({ ...item, expr: order(item.expr) })) : query.orderBy,
      },
    };
  }

  return (query) => rewriteQuery(query, undefined).query;
}
