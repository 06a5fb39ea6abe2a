/**
 * ROLLUP, CUBE and GROUPING SETS as DuckDB must be told them to answer as BigQuery does (run after
 * name resolution, so that names are written alike wherever they are the same column):
 *
 * - An ordinal is its SELECT item's expression: DuckDB takes `1` and the expression it names for
 *   two grouping expressions, and answers both sets wrong (`GROUPING SETS(1, a1)`). An item that
 *   is an integer constant is refused: written in its place it would be read as an ordinal again.
 * - A grouped expression over a column that is grouped too (`ROLLUP(a, a + 1)`) is refused:
 *   GoogleSQL computes `a + 1` in the SELECT list from the grouped `a` (11 where only `a` is
 *   grouped), DuckDB takes it for the grouped expression (NULL there).
 */
import type { Rewrite } from '../../../generator/dialect.js';
import type { Expr, Query, Select, SelectItem } from '../../../parse/tree.js';
import { mapExprChildren, mapQueryParts, mapSelectChildren, walkTree, type ChildMap } from '../../../parse/walk.js';

function columnKey(expr: Expr): string | undefined {
  if (expr.kind !== 'column') return undefined;
  return [expr.table ?? '', expr.name, ...expr.fields].join('.').toLowerCase();
}

function ordinalItem(expr: Expr, items: readonly SelectItem[]): Expr {
  if (expr.kind !== 'literal' || expr.type !== 'int64' || typeof expr.value !== 'string' || !/^[1-9][0-9]*$/.test(expr.value)) return expr;
  const item = items[Number(expr.value) - 1];
  if (item?.kind !== 'item') return expr;
  if (item.expr.kind === 'literal' && item.expr.type === 'int64') return { kind: 'unknown', what: 'an integer constant grouped in ROLLUP, CUBE or GROUPING SETS', loc: expr.loc };
  return item.expr;
}

/** Whether an expression reads a column that is grouped on its own (or a field of one). */
function readsGrouped(expr: Expr, grouped: ReadonlySet<string>): boolean {
  let found = false;
  walkTree(expr, (node) => {
    const key = node.kind === 'column' ? columnKey(node) : undefined;
    if (key !== undefined && [...grouped].some((column) => key === column || key.startsWith(column + '.'))) found = true;
  });
  return found;
}

function groupingSelect(select: Select): Select {
  if (!select.grouping) return select;
  const groupBy = select.groupBy.map((expr) => ordinalItem(expr, select.items));
  const grouped = new Set(groupBy.map(columnKey).filter((key): key is string => key !== undefined));
  const mixed = groupBy.find((expr) => expr.kind !== 'column' && expr.kind !== 'unknown' && readsGrouped(expr, grouped));
  if (mixed) return { ...select, groupBy: [{ kind: 'unknown', what: 'ROLLUP, CUBE or GROUPING SETS of both a column and an expression over it', loc: mixed.loc }] };
  return { ...select, groupBy };
}

const map: ChildMap & { select(select: Select): Select } = {
  expr: (expr: Expr): Expr => mapExprChildren(expr, map),
  query: (query: Query): Query => mapQueryParts(query, map),
  select: (select: Select): Select => groupingSelect(mapSelectChildren(select, map)),
};

export const groupingSetsForDuckDb: Rewrite = (query) => mapQueryParts(query, map);
