/**
 * Generic traversal of the query tree: the direct children of a node, a read-only walk, and a
 * rebuild with children replaced. Stages that care about scope (rewrites, name resolution) do their
 * own recursion and use `mapChildren` for everything they do not look at.
 */
import type { Expr, FromItem, OrderItem, Query, QueryBody, Select, SelectItem, SetOperation, WindowSpec } from './tree.js';

export type TreeNode = Query | Select | SetOperation | FromItem | SelectItem | Expr;

function orderExprs(items: readonly OrderItem[]): Expr[] {
  return items.map((item) => item.expr);
}

function windowExprs(spec: WindowSpec | undefined): Expr[] {
  return spec ? [...spec.partitionBy, ...orderExprs(spec.orderBy)] : [];
}

function present<T>(...values: (T | undefined)[]): T[] {
  return values.filter((value): value is T => value !== undefined);
}

/** The direct children of a node, in the order they appear in the SQL text. */
export function childrenOf(node: TreeNode): TreeNode[] {
  switch (node.kind) {
    case 'query':
      return [...node.with.map((cte) => cte.query), node.body, ...orderExprs(node.orderBy), ...present(node.limit?.count, node.limit?.offset)];
    case 'set':
      return node.members;
    case 'select':
      return [
        ...node.items,
        ...node.from,
        ...present(node.where),
        ...node.groupBy,
        ...present(node.having, node.qualify),
        ...node.windows.flatMap((window) => windowExprs(window.spec)),
      ];
    case 'table':
      return present(node.join?.on);
    case 'derived':
      return [node.query, ...present(node.join?.on)];
    case 'unnest':
      return [node.array, ...present(node.join?.on)];
    case 'join_group':
      return [...node.items, ...present(node.join?.on)];
    case 'item':
      return [node.expr];
    case 'star':
      return node.replace.map((replacement) => replacement.expr);
    case 'unary':
      return [node.operand];
    case 'binary':
      return [node.left, node.right];
    case 'between':
      return [node.operand, node.low, node.high];
    case 'in_list':
      return [node.operand, ...node.list];
    case 'in_query':
      return [node.operand, node.query];
    case 'in_unnest':
      return [node.operand, node.array];
    case 'quantified_like':
      return [node.operand, ...node.list, ...present(node.array)];
    case 'exists':
    case 'subquery':
    case 'array_query':
      return [node.query];
    case 'case':
      return [...present(node.subject), ...node.whens.flatMap((branch) => [branch.when, branch.then]), ...present(node.else)];
    case 'cast':
      return [node.operand, ...present(node.format), ...present(node.timeZone)];
    case 'interval':
      return [node.value];
    case 'extract':
      return [node.source, ...present(node.timeZone)];
    case 'call':
      return [...node.args, ...(node.named ?? []).map((argument) => argument.value), ...present(node.having?.expr), ...orderExprs(node.orderBy ?? []), ...present(node.limit), ...windowExprs(node.over)];
    case 'subscript':
      return [node.array, node.index];
    case 'field':
      return [node.operand];
    case 'array':
      return node.elements;
    case 'struct':
      return node.fields.map((field) => field.expr);
    case 'native':
      return node.args;
    case 'column':
    case 'param':
    case 'literal':
    case 'date_part':
    case 'star_argument':
    case 'unknown':
      return [];
  }
}

/** Visits `root` and every node below it, parents before children. */
export function walkTree(root: TreeNode, visit: (node: TreeNode) => void): void {
  const stack: TreeNode[] = [root];
  while (stack.length) {
    const node = stack.pop()!;
    visit(node);
    const children = childrenOf(node);
    for (let index = children.length - 1; index >= 0; index--) stack.push(children[index]!);
  }
}

export interface ChildMap {
  expr(expr: Expr): Expr;
  query(query: Query): Query;
}

function mapOrder(items: readonly OrderItem[], map: ChildMap): OrderItem[] {
  return items.map((item) => ({ ...item, expr: map.expr(item.expr) }));
}

function mapWindow(spec: WindowSpec, map: ChildMap): WindowSpec {
  return { ...spec, partitionBy: spec.partitionBy.map(map.expr), orderBy: mapOrder(spec.orderBy, map) };
}

function mapOptional(expr: Expr | undefined, map: ChildMap): Expr | undefined {
  return expr === undefined ? undefined : map.expr(expr);
}

/** A copy of an expression with each direct child expression and subquery replaced by `map`'s. */
export function mapExprChildren(node: Expr, map: ChildMap): Expr {
  switch (node.kind) {
    case 'unary':
      return { ...node, operand: map.expr(node.operand) };
    case 'binary':
      return { ...node, left: map.expr(node.left), right: map.expr(node.right) };
    case 'between':
      return { ...node, operand: map.expr(node.operand), low: map.expr(node.low), high: map.expr(node.high) };
    case 'in_list':
      return { ...node, operand: map.expr(node.operand), list: node.list.map(map.expr) };
    case 'in_query':
      return { ...node, operand: map.expr(node.operand), query: map.query(node.query) };
    case 'in_unnest':
      return { ...node, operand: map.expr(node.operand), array: map.expr(node.array) };
    case 'quantified_like':
      return { ...node, operand: map.expr(node.operand), list: node.list.map(map.expr), array: mapOptional(node.array, map) };
    case 'exists':
    case 'subquery':
    case 'array_query':
      return { ...node, query: map.query(node.query) };
    case 'case':
      return {
        ...node,
        subject: mapOptional(node.subject, map),
        whens: node.whens.map((branch) => ({ when: map.expr(branch.when), then: map.expr(branch.then) })),
        else: mapOptional(node.else, map),
      };
    case 'cast':
      return { ...node, operand: map.expr(node.operand), format: mapOptional(node.format, map), timeZone: mapOptional(node.timeZone, map) };
    case 'interval':
      return { ...node, value: map.expr(node.value) };
    case 'extract':
      return { ...node, source: map.expr(node.source), timeZone: mapOptional(node.timeZone, map) };
    case 'call':
      return {
        ...node,
        args: node.args.map(map.expr),
        named: node.named?.map((argument) => ({ ...argument, value: map.expr(argument.value) })),
        having: node.having && { ...node.having, expr: map.expr(node.having.expr) },
        orderBy: node.orderBy && mapOrder(node.orderBy, map),
        limit: mapOptional(node.limit, map),
        over: node.over && mapWindow(node.over, map),
      };
    case 'subscript':
      return { ...node, array: map.expr(node.array), index: map.expr(node.index) };
    case 'field':
      return { ...node, operand: map.expr(node.operand) };
    case 'array':
      return { ...node, elements: node.elements.map(map.expr) };
    case 'struct':
      return { ...node, fields: node.fields.map((field) => ({ ...field, expr: map.expr(field.expr) })) };
    case 'native':
      return { ...node, args: node.args.map(map.expr) };
    case 'column':
    case 'param':
    case 'literal':
    case 'date_part':
    case 'star_argument':
    case 'unknown':
      return node;
  }
}

export function mapSelectItem(item: SelectItem, map: ChildMap): SelectItem {
  if (item.kind === 'item') return { ...item, expr: map.expr(item.expr) };
  return { ...item, replace: item.replace.map((replacement) => ({ ...replacement, expr: map.expr(replacement.expr) })) };
}

export function mapFromItem(item: FromItem, map: ChildMap): FromItem {
  if (item.kind === 'unknown') return item;
  const join = item.join && { ...item.join, on: mapOptional(item.join.on, map) };
  switch (item.kind) {
    case 'table':
      return { ...item, join };
    case 'derived':
      return { ...item, join, query: map.query(item.query) };
    case 'unnest':
      return { ...item, join, array: map.expr(item.array) };
    case 'join_group':
      return { ...item, join, items: item.items.map((inner) => mapFromItem(inner, map)) };
  }
}

/** A copy of a SELECT with every expression and subquery in it replaced by `map`'s. */
export function mapSelectChildren(select: Select, map: ChildMap): Select {
  return {
    ...select,
    items: select.items.map((item) => mapSelectItem(item, map)),
    from: select.from.map((item) => mapFromItem(item, map)),
    where: mapOptional(select.where, map),
    groupBy: select.groupBy.map(map.expr),
    having: mapOptional(select.having, map),
    qualify: mapOptional(select.qualify, map),
    windows: select.windows.map((window) => ({ ...window, spec: mapWindow(window.spec, map) })),
  };
}

/** A copy of a query with its CTEs, body, ORDER BY and LIMIT mapped; `body` maps each SELECT. */
export function mapQueryParts(query: Query, map: ChildMap & { select(select: Select): Select }): Query {
  const body = (node: Query['body']): Query['body'] => {
    if (node.kind === 'select') return map.select(node);
    if (node.kind === 'set') return { ...node, members: node.members.map(body) };
    return map.query(node);
  };
  return {
    ...query,
    with: query.with.map((cte) => ({ ...cte, query: map.query(cte.query) })),
    body: body(query.body),
    orderBy: mapOrder(query.orderBy, map),
    limit: query.limit && { count: map.expr(query.limit.count), offset: mapOptional(query.limit.offset, map) },
  };
}

/**
 * A rewrite of every query's body, inner queries (CTEs, subqueries, set members' own queries)
 * first: `rewrite` is given each body with the queries it holds already rewritten.
 */
export function rewriteBodies(rewrite: (body: QueryBody) => QueryBody): (query: Query) => Query {
  const map: ChildMap & { select(select: Select): Select } = {
    expr: (expr: Expr): Expr => mapExprChildren(expr, map),
    query: (query: Query): Query => everyQuery(query),
    select: (select: Select): Select => mapSelectChildren(select, map),
  };
  function everyQuery(query: Query): Query {
    const mapped = mapQueryParts(query, map);
    return { ...mapped, body: rewrite(mapped.body) };
  }
  return everyQuery;
}
