/**
 * BigQuery's name resolution for struct fields, made explicit: an unqualified name that is no
 * column of a FROM relation but a field of an UNNEST alias's struct element is qualified with that
 * alias (`... cross join unnest(m.request) as r where path like ...` -> `r.path`). Every UNNEST
 * without an alias gets a hidden one first, since its fields are visible by name too.
 *
 * A name is qualified only when every relation's columns are known (from the source schemas and
 * the CTEs above) and none of them has it: where anything is unknown, the name is left as written.
 */
import type { Rewrite } from '../generator/dialect.js';
import { elementOf, fieldOf, hasField, SCALAR, UNKNOWN, type Columns, type Shape } from '../shapes.js';
import type { ColumnRef, Expr, FromItem, Query, QueryBody, Select } from '../tree.js';
import { mapExprChildren, mapFromItem, mapSelectItem, type ChildMap } from '../tree-walk.js';

/** Names visible in one SELECT, and the scope around it. */
interface Scope {
  /** CTE name (lower case) -> its output columns, where known. */
  ctes: ReadonlyMap<string, Columns>;
  /** FROM relations by alias (lower case) -> their columns, where known. */
  relations: ReadonlyMap<string, Columns>;
  /** UNNEST alias (lower case) -> the element's shape, in FROM order. */
  unnests: ReadonlyMap<string, Shape>;
  parent: Scope | undefined;
}

const EMPTY: ReadonlyMap<string, never> = new Map<string, never>();

/** The name of the hidden alias of the UNNEST at `index` of a FROM list. */
export function hiddenUnnestAlias(index: number): string {
  return `_unnest_${index}`;
}

export function qualifyStructFields(sourceColumns?: (source: string) => Columns): Rewrite {
  function unnestShape(name: string, scope: Scope | undefined): Shape | undefined {
    for (let current = scope; current; current = current.parent) {
      const shape = current.unnests.get(name.toLowerCase());
      if (shape !== undefined) return shape;
    }
    return undefined;
  }

  function cteColumns(name: string, scope: Scope | undefined): { found: boolean; columns: Columns } {
    for (let current = scope; current; current = current.parent) {
      if (current.ctes.has(name.toLowerCase())) return { found: true, columns: current.ctes.get(name.toLowerCase()) };
    }
    return { found: false, columns: undefined };
  }

  /** The alias of the UNNEST whose element has field `name`, when no relation of this SELECT has a column of that name. */
  function fieldOwner(name: string, scope: Scope): string | undefined {
    const key = name.toLowerCase();
    for (const columns of scope.relations.values()) {
      if (columns === undefined || columns.has(key)) return undefined;
    }
    const aliases = [...scope.unnests.entries()].reverse();
    return aliases.find(([, element]) => hasField(element, key))?.[0];
  }

  function columnShape(name: string, scope: Scope): Shape {
    for (const columns of scope.relations.values()) {
      const shape = columns?.get(name.toLowerCase());
      if (shape) return shape;
    }
    const owner = [...scope.unnests.values()].reverse().find((element) => hasField(element, name));
    return owner ? fieldOf(owner, name) : UNKNOWN;
  }

  function shapeOf(expr: Expr, scope: Scope): Shape {
    if (expr.kind !== 'column') return expr.kind === 'subscript' || expr.kind === 'field' ? UNKNOWN : SCALAR;
    let shape: Shape;
    if (expr.table !== undefined) {
      const element = unnestShape(expr.table, scope);
      const relation = scope.relations.get(expr.table.toLowerCase());
      shape = element ? fieldOf(element, expr.name) : (relation?.get(expr.name.toLowerCase()) ?? UNKNOWN);
    } else {
      shape = unnestShape(expr.name, scope) ?? columnShape(expr.name, scope);
    }
    return expr.fields.reduce(fieldOf, shape);
  }

  function relationColumns(item: FromItem, scope: Scope | undefined): Columns {
    if (item.kind !== 'table') return undefined;
    if (!item.qualified) {
      const cte = cteColumns(item.name, scope);
      if (cte.found) return cte.columns;
    }
    return sourceColumns?.(item.name);
  }

  /** The scope of a SELECT's first `count` FROM items: what each item's own expressions see. */
  function scopeOf(from: readonly FromItem[], count: number, parent: Scope | undefined): Scope {
    const relations = new Map<string, Columns>();
    const unnests = new Map<string, Shape>();
    const scope: Scope = { ctes: EMPTY, relations, unnests, parent };
    for (const item of from.slice(0, count)) {
      if (item.kind === 'unknown') continue;
      if (item.kind === 'unnest') {
        if (item.alias !== undefined) unnests.set(item.alias.toLowerCase(), elementOf(shapeOf(item.array, scope)));
        continue;
      }
      const alias = item.alias ?? (item.kind === 'table' ? item.name.slice(item.name.lastIndexOf('.') + 1) : undefined);
      if (alias !== undefined) relations.set(alias.toLowerCase(), relationColumns(item, parent));
    }
    return scope;
  }

  /** Output columns of a SELECT, where every item's name and shape can be told. */
  function outputColumns(select: Select, scope: Scope): Columns {
    const columns = new Map<string, Shape>();
    let anonymous = 0;
    for (const item of select.items) {
      if (item.kind === 'star') {
        if (item.except.length || item.replace.length) return undefined;
        const sources = item.table !== undefined ? [scope.relations.get(item.table.toLowerCase())] : [...scope.relations.values()];
        for (const relation of sources) {
          if (relation === undefined) return undefined;
          for (const [name, shape] of relation) columns.set(name, shape);
        }
        if (item.table === undefined) for (const [alias, element] of scope.unnests) columns.set(alias, element);
        continue;
      }
      const expr = item.expr;
      const name = item.alias ?? (expr.kind === 'column' ? (expr.fields[expr.fields.length - 1] ?? expr.name) : `f${anonymous++}_`);
      columns.set(name.toLowerCase(), shapeOf(expr, scope));
    }
    return columns;
  }

  function rewriteColumn(ref: ColumnRef, scope: Scope): ColumnRef {
    if (ref.table !== undefined || unnestShape(ref.name, scope) !== undefined) return ref;
    const owner = fieldOwner(ref.name, scope);
    return owner === undefined ? ref : { ...ref, table: owner };
  }

  function childMap(scope: Scope): ChildMap {
    return {
      expr: (expr) => rewriteExpr(expr, scope),
      query: (query) => rewriteQuery(query, scope).query,
    };
  }

  function rewriteExpr(expr: Expr, scope: Scope): Expr {
    if (expr.kind === 'column') return rewriteColumn(expr, scope);
    return mapExprChildren(expr, childMap(scope));
  }

  function rewriteSelect(select: Select, parent: Scope): { select: Select; scope: Scope } {
    const named = select.from.map((item, index) => (item.kind === 'unnest' && item.alias === undefined ? { ...item, alias: hiddenUnnestAlias(index) } : item));
    // Each FROM item's own expressions see only the items before it: in `unnest(metadata) as
    // metadata` the argument is the column, not the alias being defined.
    const from = named.map((item, index) => {
      const before = scopeOf(named, index, parent);
      if (item.kind === 'unknown') return item;
      const rewritten = mapFromItem({ ...item, join: undefined }, childMap(before));
      return { ...rewritten, join: item.join } as FromItem;
    });
    const scope = scopeOf(from, from.length, parent);
    const map = childMap(scope);
    const joined = from.map((item) => (item.kind !== 'unknown' && item.join?.on ? { ...item, join: { ...item.join, on: map.expr(item.join.on) } } : item));
    return {
      scope,
      select: {
        ...select,
        from: joined,
        items: select.items.map((item) => mapSelectItem(item, map)),
        where: select.where && map.expr(select.where),
        groupBy: select.groupBy.map(map.expr),
        having: select.having && map.expr(select.having),
        qualify: select.qualify && map.expr(select.qualify),
      },
    };
  }

  function rewriteBody(body: QueryBody, scope: Scope): { body: QueryBody; last: Scope; columns: Columns } {
    switch (body.kind) {
      case 'select': {
        const rewritten = rewriteSelect(body, scope);
        return { body: rewritten.select, last: rewritten.scope, columns: outputColumns(rewritten.select, rewritten.scope) };
      }
      case 'query': {
        const rewritten = rewriteQuery(body, scope);
        return { body: rewritten.query, last: scope, columns: rewritten.columns };
      }
      case 'set': {
        const members = body.members.map((member) => rewriteBody(member, scope));
        // ORDER BY after a set operation sees the result's columns, not a member's FROM.
        return { body: { ...body, members: members.map((member) => member.body) }, last: scope, columns: members[0]?.columns };
      }
    }
  }

  function rewriteQuery(query: Query, parent: Scope | undefined): { query: Query; columns: Columns } {
    const ctes = new Map<string, Columns>();
    const scope: Scope = { ctes, relations: EMPTY, unnests: EMPTY, parent };
    // A CTE sees the ones defined before it.
    const withs = query.with.map((cte) => {
      const rewritten = rewriteQuery(cte.query, scope);
      ctes.set(cte.name.toLowerCase(), rewritten.columns);
      return { ...cte, query: rewritten.query };
    });
    const body = rewriteBody(query.body, scope);
    const map = childMap(body.last);
    return {
      columns: body.columns,
      query: {
        ...query,
        with: withs,
        body: body.body,
        orderBy: query.orderBy.map((item) => ({ ...item, expr: map.expr(item.expr) })),
      },
    };
  }

  return (query) => rewriteQuery(query, undefined).query;
}
