/**
 * BigQuery names an unaliased expression column `f0_`, `f1_`, ... (counting only such columns of
 * its SELECT); a backend that names them otherwise gets the names written out, so a caller sees the
 * same keys and a CTE's columns can be read by those names.
 */
import type { Rewrite } from '../../../generator/dialect.js';
import type { Expr, Query, Select } from '../../../parse/tree.js';
import { mapExprChildren, mapQueryParts, mapSelectChildren, type ChildMap } from '../../../parse/walk.js';

const map: ChildMap & { select(select: Select): Select } = {
  expr: (expr: Expr): Expr => mapExprChildren(expr, map),
  query: (query: Query): Query => rewrite(query),
  select: (select: Select): Select => {
    let anonymous = 0;
    const named = mapSelectChildren(select, map);
    return {
      ...named,
      items: named.items.map((item) => (item.kind === 'item' && item.alias === undefined && item.expr.kind !== 'column' ? { ...item, alias: `f${anonymous++}_` } : item)),
    };
  },
};

function rewrite(query: Query): Query {
  return mapQueryParts(query, map);
}

export const nameAnonymousColumns: Rewrite = rewrite;

