/**
 * `SELECT AS STRUCT` and `SELECT AS VALUE` in an expression subquery (`ARRAY(SELECT AS STRUCT a, b
 * FROM ...)`, `(SELECT AS VALUE ...)`, IN, EXISTS): DuckDB has no value tables, so each row is
 * written as the one value BigQuery makes of it: a STRUCT of the items, named as their columns
 * would be, or the one item itself. Elsewhere (a query's result, a FROM item, a CTE) the rows are a
 * value table whose columns DuckDB cannot give alike, and the generator refuses it by name. Run
 * after name resolution: ORDER BY reads the items' expressions, not their names, by then.
 */
import type { Rewrite } from '../../../generator/dialect.js';
import { impliedName } from '../../../analyse/item-names.js';
import type { Expr, Query, QueryBody, Select, SelectItem } from '../../../parse/tree.js';
import { mapExprChildren, mapQueryParts, mapSelectChildren, type ChildMap } from '../../../parse/walk.js';

function unknownItem(what: string, select: Select): SelectItem[] {
  return [{ kind: 'item', expr: { kind: 'unknown', what, loc: select.loc } }];
}

function oneValue(select: Select): Select {
  if (!select.as) return select;
  const items = select.items;
  if (items.some((item) => item.kind === 'star')) return { ...select, as: undefined, items: unknownItem(`SELECT AS ${select.as.toUpperCase()} *`, select) };
  if (select.as === 'value') {
    return { ...select, as: undefined, items: items.length === 1 ? items : unknownItem('SELECT AS VALUE of more than one item', select) };
  }
  const fields: { name: string; expr: Expr }[] = [];
  for (const item of items) {
    if (item.kind !== 'item') continue;
    const name = item.alias ?? impliedName(item.expr);
    // BigQuery's STRUCT keeps an unnamed field unnamed, which a DuckDB STRUCT cannot.
    if (name === undefined) return { ...select, as: undefined, items: unknownItem('SELECT AS STRUCT of an item without a name (give it one with AS)', select) };
    fields.push({ name, expr: item.expr });
  }
  return { ...select, as: undefined, items: [{ kind: 'item', expr: { kind: 'struct', fields }, loc: select.loc }] };
}

function body(node: QueryBody): QueryBody {
  if (node.kind === 'select') return oneValue(node);
  if (node.kind === 'set') return { ...node, members: node.members.map(body) };
  return subquery(node);
}

/** An expression subquery's query: its own value-table SELECTs made plain, then what it holds. */
function subquery(query: Query): Query {
  const mapped = mapQueryParts(query, map);
  // An ordinal would name an item that is now a field of the one STRUCT.
  const ordinal = mapped.orderBy.some((item) => item.expr.kind === 'literal' && item.expr.type === 'int64');
  const rewritten = body(mapped.body);
  if (ordinal && rewritten !== mapped.body) return { ...mapped, orderBy: [{ expr: { kind: 'unknown', what: 'ORDER BY an ordinal after SELECT AS STRUCT', loc: query.loc } }] };
  return { ...mapped, body: rewritten };
}

function expr(node: Expr): Expr {
  switch (node.kind) {
    case 'subquery':
    case 'array_query':
    case 'exists':
      return { ...node, query: subquery(node.query) };
    case 'in_query':
      return { ...node, operand: expr(node.operand), query: subquery(node.query) };
    default:
      return mapExprChildren(node, map);
  }
}

const map: ChildMap & { select(select: Select): Select } = {
  expr,
  query: (query: Query): Query => mapQueryParts(query, map),
  select: (select: Select): Select => mapSelectChildren(select, map),
};

export const selectAsForDuckDb: Rewrite = (query) => mapQueryParts(query, map);
