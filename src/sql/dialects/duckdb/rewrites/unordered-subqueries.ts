/**
 * BigQuery keeps no order from a CTE or subquery unless a LIMIT makes it decide which rows are
 * kept (or it is the order of an ARRAY(subquery)'s elements); a backend that would still sort every row (slow, and it blocks DuckDB's top-N pushdown into
 * the scan) gets only the orders that matter: the outermost query's, and those beside a LIMIT.
 */
import type { Rewrite } from '../../../generator/dialect.js';
import type { Expr, Query, Select } from '../../../parse/tree.js';
import { mapExprChildren, mapQueryParts, mapSelectChildren, type ChildMap } from '../../../parse/walk.js';

const inner: ChildMap & { select(select: Select): Select } = {
  // ARRAY(SELECT .. ORDER BY ..) keeps its order: it is the order of the array's elements.
  expr: (expr: Expr): Expr => (expr.kind === 'array_query' ? { ...expr, query: mapQueryParts(expr.query, inner) } : mapExprChildren(expr, inner)),
  query: (query: Query): Query => {
    const rewritten = mapQueryParts(query, inner);
    return rewritten.limit ? rewritten : { ...rewritten, orderBy: [] };
  },
  select: (select: Select): Select => mapSelectChildren(select, inner),
};

export const dropUnorderedSubqueryOrder: Rewrite = (query) => mapQueryParts(query, inner);
