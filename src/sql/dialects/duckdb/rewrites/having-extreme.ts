/**
 * An aggregate with HAVING MAX | MIN k (`SUM(x HAVING MAX k)`): GoogleSQL aggregates only the
 * group's rows whose k equals the group's largest (smallest) k, every such row. DuckDB has no such
 * clause, and its arg_max keeps one row. Here the group's rows become a list of STRUCTs (the key,
 * the call's arguments and ORDER BY keys), the kept rows are filtered out of it (the `having_max`
 * and `having_min` SQL macros), and the call, as the language table writes it, aggregates them in a
 * scalar subquery over their UNNEST:
 *
 *   (SELECT sum(__having.__row.a0) FROM UNNEST(having_max(list(struct_pack(k := k, a0 := x)))) AS __having(__row))
 *
 * An analytic call with HAVING (`OVER`) is left as it is, and the generator refuses it by name.
 * Run after name resolution and the other passes over the query's own names, so the expressions
 * moved into the list are final.
 */
import type { Rewrite } from '../../../generator/dialect.js';
import { sqlMacroName } from '../sql-macros.js';
import type { Call, Expr, Query, Select } from '../../../parse/tree.js';
import { mapExprChildren, mapQueryParts, mapSelectChildren, type ChildMap } from '../../../parse/walk.js';

const ROWS = '__having';
const ROW = '__row';

function field(name: string): Expr {
  return { kind: 'column', table: ROWS, name: ROW, fields: [name] };
}

function rowsAggregated(call: Call & { having: NonNullable<Call['having']> }): Expr {
  const args = call.args.map((arg, index) => ({ name: `a${index}`, arg }));
  const orders = (call.orderBy ?? []).map((item, index) => ({ name: `o${index}`, item }));
  // COUNT(*) counts the kept rows: its star stays a star.
  const packed = [
    { name: 'k', expr: call.having.expr },
    ...args.filter(({ arg }) => arg.kind !== 'star_argument').map(({ name, arg }) => ({ name, expr: arg })),
    ...orders.map(({ name, item }) => ({ name, expr: item.expr })),
  ];
  const entries: Expr = { kind: 'native', name: 'list', args: [{ kind: 'struct', fields: packed }] };
  const kept: Expr = { kind: 'native', name: sqlMacroName(call.having.extreme === 'MAX' ? 'having_max' : 'having_min'), args: [entries] };
  const inner: Call = {
    ...call,
    having: undefined,
    args: args.map(({ name, arg }) => (arg.kind === 'star_argument' ? arg : field(name))),
    orderBy: call.orderBy && orders.map(({ name, item }) => ({ ...item, expr: field(name) })),
  };
  const select: Select = {
    kind: 'select',
    distinct: false,
    items: [{ kind: 'item', expr: inner }],
    from: [{ kind: 'unnest', array: kept, alias: ROWS, columnAlias: ROW }],
    groupBy: [],
    windows: [],
  };
  return { kind: 'subquery', query: { kind: 'query', with: [], body: select, orderBy: [] }, loc: call.loc };
}

function expr(node: Expr): Expr {
  const mapped = mapExprChildren(node, map);
  if (mapped.kind !== 'call' || mapped.having === undefined || mapped.over !== undefined || (mapped.named?.length ?? 0) > 0) return mapped;
  return rowsAggregated(mapped as Call & { having: NonNullable<Call['having']> });
}

const map: ChildMap & { select(select: Select): Select } = {
  expr,
  query: (query: Query): Query => mapQueryParts(query, map),
  select: (select: Select): Select => mapSelectChildren(select, map),
};

export const havingExtremeForDuckDb: Rewrite = (query) => mapQueryParts(query, map);
