/**
 * The newest N rows, bounded by time: `SELECT ... FROM f WHERE p ORDER BY k DESC LIMIT n` gets
 * `AND k >= (SELECT min(k) FROM (SELECT k FROM f WHERE p ORDER BY k DESC LIMIT n))`.
 *
 * Why: DuckDB finds the top N rows on the narrow columns, then fetches the other columns of those
 * rows by row id ("late materialization"). That fetch does not skip row groups by row id: it steps
 * through every vector of the table for each stored column, and a log source's `metadata` has some
 * 200. At 10M edge events `logs.all` took 49 ms on one thread, growing with the table; with the
 * bound, the scan skips every row group older than the N-th newest row by its zone map (20 ms, the
 * same as at 1M). storage.md has the figures.
 *
 * Why it keeps BigQuery's answer: the bound is the smallest k among the first n rows by k, so every
 * one of them has k >= bound and stays; a row dropped has k < bound and ranks after all of them.
 * The final ORDER BY and LIMIT then pick the same rows (with OFFSET m: the first n + m). Fewer
 * than n rows: the bound is the smallest k of them all and nothing is dropped; no row: no answer
 * either way. It needs, and the rewrite checks:
 * - k is a column that cannot be NULL (a NULL k fails `>=`): a source's `timestamp`, which its
 *   table declares NOT NULL (source-tables.ts), read directly or passed on by a CTE;
 * - the SELECT filters and sorts only: no DISTINCT, GROUP BY, aggregate, window function, HAVING
 *   or QUALIFY, whose values would change with the rows dropped;
 * - the first FROM item is k's, and nothing joins it as the side that can be NULL (no RIGHT or
 *   FULL join);
 * - nothing in the query is random (RAND, GENERATE_UUID): the bound reads FROM and WHERE again;
 * - LIMIT and OFFSET are literals (the generator refuses any other on DuckDB).
 * Applied to the outermost query and to each CTE's; subqueries elsewhere are left as they are.
 */
import type { Rewrite } from '../../../generator/dialect.js';
import { resolveFunction } from '../../../language.js';
import type { Columns } from '../../../analyse/shapes.js';
import type { ColumnRef, Cte, Expr, FromItem, Limit, OrderItem, Query, Select } from '../../../parse/tree.js';
import { walkTree } from '../../../parse/walk.js';

/** Above this many rows to keep, the second top-N is no longer cheap next to the fetch it saves. */
const MAX_ROWS = 100_000;

/** Functions whose value differs each time they are evaluated: FROM and WHERE are read twice. */
const RANDOM = new Set(['rand', 'generate_uuid']);

const BOUND_ALIAS = '__cannery_top';
const BOUND_COLUMN = 'k';

/** The rows a literal LIMIT (and OFFSET) keep from the start, or undefined. */
function rowsKept(limit: Limit | undefined): number | undefined {
  if (limit === undefined) return undefined;
  const literal = (expr: Expr | undefined): number | undefined =>
    expr === undefined ? 0 : expr.kind === 'literal' && expr.type === 'int64' ? Number(expr.value) : undefined;
  const count = literal(limit.count);
  const offset = literal(limit.offset);
  if (count === undefined || offset === undefined || count < 1 || count + offset > MAX_ROWS) return undefined;
  return count + offset;
}

/** The SELECT (and its ORDER BY's other keys) only filters and sorts: nothing is computed over its rows. */
function filtersOnly(select: Select, orderBy: readonly OrderItem[]): boolean {
  if (select.distinct || select.groupBy.length || select.having || select.qualify || select.windows.length) return false;
  let computes = false;
  const exprs = [...select.items.flatMap((item) => (item.kind === 'item' ? [item.expr] : [])), ...orderBy.map((item) => item.expr)];
  for (const expr of exprs) {
    walkTree(expr, (node) => {
      if (node.kind !== 'call') return;
      if (node.over !== undefined || resolveFunction(node.name)?.spec.kind === 'aggregate') computes = true;
    });
  }
  return !computes;
}

function random(query: Query): boolean {
  let found = false;
  walkTree(query, (node) => {
    if (node.kind === 'call' && RANDOM.has(node.name.toLowerCase())) found = true;
  });
  return found;
}

/** The FROM items joined to the first one keep all of its rows' values (no RIGHT or FULL join). */
function firstItemKeepsValues(from: readonly FromItem[]): boolean {
  return from.every((item, index) => index === 0 || (item.kind !== 'unknown' && !/^(RIGHT|FULL)/.test(item.join?.type ?? '')));
}

interface Scope {
  sourceColumns: ((source: string) => Columns) | undefined;
  /** CTEs visible here, innermost first. */
  ctes: readonly Cte[];
}

function sameName(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase();
}

/** Whether `column`, read in `select`, is a column of its first FROM item that cannot be NULL. */
function notNullColumn(column: ColumnRef, select: Select, scope: Scope, depth = 0): boolean {
  const first = select.from[0];
  if (depth > 8 || column.fields.length || first?.kind !== 'table' || !firstItemKeepsValues(select.from)) return false;
  const names = first.alias !== undefined ? [first.alias] : [first.name, first.name.split('.').at(-1)!];
  // Unqualified, it is the first item's when the others are UNNESTs: name resolution qualifies an
  // element's field that no FROM relation has with the UNNEST's alias.
  const onlyRelation = select.from.every((item, index) => index === 0 || item.kind === 'unnest');
  if (column.table !== undefined ? !names.some((name) => sameName(name, column.table!)) : !onlyRelation) return false;
  const cte = first.qualified ? undefined : scope.ctes.find((candidate) => sameName(candidate.name, first.name));
  if (cte === undefined) {
    const shape = scope.sourceColumns?.(first.name)?.get(column.name.toLowerCase());
    return shape?.kind === 'scalar' && shape.notNull === true;
  }
  // A CTE passes the column on when its own SELECT reads it from its first FROM item the same way.
  const body = cte.query.body;
  if (body.kind !== 'select') return false;
  const inner: Scope = { ...scope, ctes: [...[...cte.query.with].reverse(), ...scope.ctes.slice(scope.ctes.indexOf(cte) + 1)] };
  for (const item of body.items) {
    if (item.kind === 'star') {
      if (item.except.some((name) => sameName(name, column.name)) || item.replace.some((entry) => sameName(entry.alias, column.name))) return false;
      const passed: ColumnRef = { kind: 'column', table: item.table, name: column.name, fields: [] };
      if (item.table === undefined && !body.from.every((from, index) => index === 0 || from.kind === 'unnest')) return false;
      return notNullColumn(passed, body, inner, depth + 1);
    }
    const named = item.alias ?? (item.expr.kind === 'column' && item.expr.fields.length === 0 ? item.expr.name : undefined);
    if (named === undefined || !sameName(named, column.name)) continue;
    return item.expr.kind === 'column' && notNullColumn(item.expr, body, inner, depth + 1);
  }
  return false;
}

function bounded(query: Query, scope: Scope): Query {
  const select = query.body;
  const kept = rowsKept(query.limit);
  const key: OrderItem | undefined = query.orderBy[0];
  if (kept === undefined || key === undefined || select.kind !== 'select' || key.expr.kind !== 'column') return query;
  const column = key.expr;
  // An item named like the column would be what ORDER BY means (name resolution replaces it with
  // its expression, but only where it knows the names): only the column itself may carry it.
  const shadowed = select.items.some((item) => item.kind === 'item' && item.alias !== undefined && sameName(item.alias, column.name) && !(item.expr.kind === 'column' && sameName(item.expr.name, column.name) && item.expr.fields.length === 0));
  if (shadowed || !filtersOnly(select, query.orderBy) || !notNullColumn(column, select, scope)) return query;
  const descending = key.direction === 'DESC';
  const topRows: Query = {
    kind: 'query',
    with: [],
    body: { ...select, items: [{ kind: 'item', expr: key.expr, alias: BOUND_COLUMN }] },
    orderBy: [{ expr: key.expr, direction: descending ? 'DESC' : 'ASC' }],
    limit: { count: { kind: 'literal', type: 'int64', value: String(kept) } },
  };
  const bound: Expr = {
    kind: 'subquery',
    query: {
      kind: 'query',
      with: [],
      body: {
        kind: 'select',
        distinct: false,
        items: [{ kind: 'item', expr: { kind: 'native', name: descending ? 'min' : 'max', args: [{ kind: 'column', table: BOUND_ALIAS, name: BOUND_COLUMN, fields: [] }] } }],
        from: [{ kind: 'derived', alias: BOUND_ALIAS, query: topRows }],
        groupBy: [],
        windows: [],
      },
      orderBy: [],
    },
  };
  const within: Expr = { kind: 'binary', operator: descending ? '>=' : '<=', left: key.expr, right: bound };
  return { ...query, body: { ...select, where: select.where ? { kind: 'binary', operator: 'AND', left: select.where, right: within } : within } };
}

function rewrite(query: Query, scope: Scope): Query {
  const ctes = [...query.with].reverse();
  const inner: Scope = { ...scope, ctes: [...ctes, ...scope.ctes] };
  const withs = query.with.map((cte, index) => ({
    ...cte,
    // A CTE sees those before it (and its own nested ones), as in BigQuery.
    query: rewrite(cte.query, { ...scope, ctes: [...query.with.slice(0, index).reverse(), ...scope.ctes] }),
  }));
  return bounded({ ...query, with: withs }, inner);
}

export function boundTopRows(sourceColumns?: (source: string) => Columns): Rewrite {
  // FROM and WHERE are read twice, and a CTE with them: nothing in the statement may be random.
  return (query) => (random(query) ? query : rewrite(query, { sourceColumns, ctes: [] }));
}
