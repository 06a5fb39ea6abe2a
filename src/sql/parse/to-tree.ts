/**
 * node-sql-parser's BigQuery AST -> cannery's query tree (tree.ts). Every quirk of the parser's
 * shapes is handled here and nowhere else: a column may be a string or `{ expr: { value } }`, a
 * subscript hangs under `column` with the field after it as raw text, a set operation is a chain
 * of `_next` with its ORDER BY on the last member, a date part is a bare column name.
 *
 * What the tree has no place for becomes an `unknown` node naming it; the generator refuses it.
 */
import { functionArgs, functionName, identifierText, isNode, locationOf, setOperationMembers, withClauses } from './ast.js';
import { READ_KEYS, REFUSED_KINDS, unreadKey } from './ast-keys.js';
import { resolveFunction } from '../language.js';
import { decodeBigQueryString, IllegalEscape } from './literals.js';
import { InvalidQuery, LocatedSqlError, SqlSyntaxError, type SqlLocation } from './errors.js';
import { parseBigQuery, type AstNode } from './parse.js';
import { pivotTable, unpivotTable } from './pivot.js';
import { rangeFromText } from './range-literal.js';
import type {
  BinaryOperator,
  Call,
  Expr,
  FromItem,
  GroupingSpec,
  Join,
  JoinType,
  Limit,
  OrderItem,
  QuantifiedLike,
  Query,
  QueryBody,
  Select,
  SelectItem,
  SetByName,
  SetOperation,
  SetOperator,
  SubscriptMode,
  TypeName,
  Unknown,
  WindowSpec,
} from './tree.js';

/** A statement that is not a query: kept only so analysis can say what it was. */
export interface OtherStatement {
  kind: 'other';
  type: string;
}

export type Statement = Query | OtherStatement;

export function readStatement(node: AstNode): Statement {
  if (node.type !== 'select' && node.type !== 'set_query') return { kind: 'other', type: String(node.type ?? 'unknown') };
  return readQuery(node);
}

/** SQL text -> its statements as trees. Throws SqlSyntaxError for text the parser cannot read. */
export function parseStatements(sql: string): Statement[] {
  return parseBigQuery(sql).map(readStatement);
}

/** SQL text that must be one SELECT -> its tree (for callers that have checked, and for tests). */
export function parseQuery(sql: string): Query {
  const statements = parseStatements(sql);
  const [statement] = statements;
  if (statements.length !== 1 || statement?.kind !== 'query') throw new Error(`expected one SELECT statement in: ${sql.slice(0, 80)}`);
  return statement;
}

/**
 * The location of the nearest node read so far that has one: not every node the parser makes
 * carries its own (numbers and parameters do not), and a problem should still name a line.
 */
let nearest: SqlLocation | undefined;

function here(node: AstNode | undefined): SqlLocation | undefined {
  return (node && locationOf(node)) ?? nearest;
}

/**
 * Deepest nesting of expressions and queries read: every later stage walks the tree recursively,
 * so a query nested past this is refused here, with a message, instead of overflowing a stack.
 * Real queries nest a few dozen levels; a 1,000-term `a + b + ...` chain is 1,000 deep.
 */
export const MAX_NESTING = 1000;

/** A query nested deeper than MAX_NESTING. */
export class QueryTooDeep extends LocatedSqlError {
  constructor(location: SqlLocation | undefined) {
    super(`the query nests expressions or subqueries more than ${MAX_NESTING} levels deep; write long chains as IN lists or split them into CTEs`, location);
  }
}

let depth = 0;

/** Reads `node` with its location (or the nearest one) as the one its children inherit. */
function located<T>(node: AstNode, read: () => T): T {
  const saved = nearest;
  nearest = here(node);
  if (++depth > MAX_NESTING) {
    const location = nearest;
    depth--;
    nearest = saved;
    throw new QueryTooDeep(location);
  }
  try {
    return read();
  } finally {
    depth--;
    nearest = saved;
  }
}

function unknown(what: string, node?: AstNode): Unknown {
  return { kind: 'unknown', what, loc: here(node) };
}

/** An `unknown` for what the reader cannot take of `node` (unreadPart), if anything. */
function unreadIn(node: AstNode, kind: string): Unknown | undefined {
  const unread = unreadPart(node, kind);
  return unread === undefined ? undefined : unknown(unread, node);
}

/**
 * Why the reader cannot take `node` (read as `kind`, see ast-keys.ts) whole: a kind it refuses, or
 * a key whose meaning it would drop; undefined when it reads everything the node says.
 */
function unreadPart(node: AstNode, kind: string): string | undefined {
  const refused = REFUSED_KINDS[kind];
  if (refused !== undefined) return refused;
  const key = unreadKey(node, kind);
  if (key === undefined) return undefined;
  const inner = node[key];
  const named = isNode(inner) && typeof inner.type === 'string' ? REFUSED_KINDS[inner.type] : undefined;
  return named ?? `${key.replace(/_/g, ' ').toUpperCase()} in ${kind.replace(/[<>]/g, '')}`;
}

const SET_OPERATORS: Record<string, SetOperator> = {
  'union all': 'UNION ALL',
  'union distinct': 'UNION DISTINCT',
  'intersect all': 'INTERSECT ALL',
  'intersect distinct': 'INTERSECT DISTINCT',
  'except all': 'EXCEPT ALL',
  'except distinct': 'EXCEPT DISTINCT',
};

/** A member's `set_op`: the operator and how it matches columns, or what is refused by name. */
function readSetOperator(node: unknown): { operator: SetOperator; byName: SetByName | undefined } | string {
  const plain = typeof node === 'string' ? node : isNode(node) ? String(node.operator ?? '') : '';
  const operator = SET_OPERATORS[plain.toLowerCase()];
  if (operator === undefined) return `set operation ${plain.toUpperCase() || 'UNION'} (write UNION ALL or UNION DISTINCT)`;
  if (!isNode(node)) return { operator, byName: undefined };
  const mode = node.mode === null || node.mode === undefined ? undefined : String(node.mode);
  const match = node.match === null || node.match === undefined ? undefined : String(node.match);
  const columns = Array.isArray(node.columns) ? node.columns.map(String) : undefined;
  const written = `${mode === undefined ? '' : `${mode.toUpperCase()} `}${operator}`;
  if (match === undefined) return `${written} without BY NAME or CORRESPONDING`;
  if (match === 'strict corresponding' && mode !== undefined) return `${written} STRICT CORRESPONDING`;
  const strict = match === 'strict corresponding' || (match === 'by name' && mode === undefined);
  const byName: SetByName = { mode: strict ? 'strict' : ((mode ?? 'inner') as SetByName['mode']) };
  if (columns !== undefined) byName.columns = columns;
  return { operator, byName };
}

const JOIN_TYPES: ReadonlySet<string> = new Set<JoinType>([
  'JOIN', 'INNER JOIN', 'LEFT JOIN', 'LEFT OUTER JOIN', 'RIGHT JOIN', 'RIGHT OUTER JOIN', 'FULL JOIN', 'FULL OUTER JOIN', 'CROSS JOIN',
]);

const BINARY_OPERATORS: ReadonlySet<string> = new Set<BinaryOperator>([
  'AND', 'OR', '=', '!=', '<>', '<', '>', '<=', '>=', '+', '-', '*', '/', '||', '&', '|', '^', '<<', '>>',
  'LIKE', 'NOT LIKE', 'IS', 'IS NOT', 'IS DISTINCT FROM', 'IS NOT DISTINCT FROM',
]);

const SUBSCRIPTS: ReadonlySet<string> = new Set<SubscriptMode>(['OFFSET', 'SAFE_OFFSET', 'ORDINAL', 'SAFE_ORDINAL', 'INDEX']);

/** SELECT clauses the tree has no place for, by AST key. */
const UNREAD_CLAUSES: Record<string, string> = {
  for_sys_time_as_of: 'FOR SYSTEM_TIME AS OF',
  _orderby: 'ORDER BY after a parenthesised query',
  _limit: 'LIMIT after a parenthesised query',
};

export function readQuery(select: AstNode): Query {
  return located(select, () => readQueryHere(select));
}

function readQueryHere(select: AstNode): Query {
  const members = setOperationMembers(select);
  const last = members[members.length - 1]!;
  const readCtes = (member: AstNode) => withClauses(member).map((cte) => ({ name: cte.name, query: readQuery(cte.stmt), loc: here(cte.node) }));
  // `(WITH a AS (...) SELECT ...) UNION ALL (...)`: a parenthesised member's WITH is its own.
  const ownsWith = (member: AstNode) => members.length > 1 && (member !== select || Boolean(member.parentheses_symbol));
  const ctes = ownsWith(select) ? [] : readCtes(select);
  // The CTEs the body sees, for a PIVOT over one of them (pivot.ts lists its columns).
  const outerCtes = visibleCtes;
  if (ctes.length > 0) visibleCtes = new Map([...outerCtes, ...ctes.map((cte): [string, Query] => [cte.name.toLowerCase(), cte.query])]);
  try {
    return readQueryBody(select, members, last, ctes, ownsWith);
  } finally {
    visibleCtes = outerCtes;
  }
}

/** The CTEs a FROM item being read can name, by lower-case name. */
let visibleCtes: ReadonlyMap<string, Query> = new Map();

function readQueryBody(select: AstNode, members: AstNode[], last: AstNode, ctes: Query['with'], ownsWith: (member: AstNode) => boolean): Query {
  const readCtes = (member: AstNode) => withClauses(member).map((cte) => ({ name: cte.name, query: readQuery(cte.stmt), loc: here(cte.node) }));
  const readMember = (member: AstNode): QueryBody => {
    // `(a UNION ALL b) EXCEPT DISTINCT c`: a set operation in parentheses is a query of its own.
    if (member.type === 'set_query' && isNode(member.ast)) return readQuery(member.ast);
    if (!ownsWith(member) || withClauses(member).length === 0) return readSelect(member);
    return { kind: 'query', with: readCtes(member), body: readSelect(member), orderBy: [], loc: here(member) };
  };
  // ORDER BY / LIMIT after a parenthesised last member (grammar patch 17): the whole query's.
  const outer = { orderBy: select._outer_orderby, limit: select._outer_limit };
  const outerGiven = Boolean(outer.orderBy || outer.limit);
  let body: QueryBody;
  if (members.length === 1) {
    // `(SELECT ... ORDER BY a LIMIT 5) ORDER BY b LIMIT 1` is not written (DuckDB cannot parse it).
    body = outerGiven && (last.orderby || last.limit) ? unknownSelect('ORDER BY or LIMIT both inside and after a parenthesised query', last) : readSelect(last);
  } else {
    // The parser hangs the whole operation's ORDER BY / LIMIT on its last member; a member of its own
    // (in parentheses) that has them is a construct the tree does not keep.
    const owned = members.find((member) => (member !== last || member.parentheses_symbol) && (member.orderby || member.limit));
    const operators = members.slice(0, -1).map((member) => readSetOperator(member.set_op));
    const set: SetOperation = {
      kind: 'set',
      members: members.map((member) => (member === owned ? unknownSelect('ORDER BY or LIMIT inside one member of a set operation', member) : readMember(member))),
      operators: operators.map((operator) => (typeof operator === 'string' ? 'UNION ALL' : operator.operator)),
      loc: here(select),
    };
    const refused = operators.find((operator): operator is string => typeof operator === 'string');
    const byName = operators.map((operator) => (typeof operator === 'string' ? undefined : operator.byName));
    const same = byName.every((one) => JSON.stringify(one) === JSON.stringify(byName[0]));
    if (refused !== undefined) set.members[0] = unknownSelect(refused, members[operators.indexOf(refused)]!);
    // GoogleSQL wants parentheses between different set operations; matching by name is part of one.
    else if (!same) set.members[0] = unknownSelect('set operations matching columns differently without parentheses', members[0]!);
    else if (byName[0] !== undefined) set.byName = byName[0];
    body = set;
  }
  const ownsOrder = !outerGiven && (members.length === 1 || !last.parentheses_symbol);
  return {
    kind: 'query',
    with: ctes,
    body,
    orderBy: ownsOrder ? readOrder(last.orderby) : readOrder(outer.orderBy),
    limit: ownsOrder ? readLimit(last.limit, last) : readLimit(outer.limit, select),
    loc: here(select),
  };
}

/** A SELECT that stands for a construct the tree does not keep: its one item is the unknown. */
function unknownSelect(what: string, node: AstNode): Select {
  return { kind: 'select', distinct: false, items: [{ kind: 'item', expr: unknown(what, node) }], from: [], groupBy: [], windows: [], loc: here(node) };
}

function readSelect(select: AstNode): Select {
  return located(select, () => readSelectHere(select));
}

function readSelectHere(select: AstNode): Select {
  if (select.type !== 'select') return unknownSelect(`${String(select.type).toUpperCase()} statement`, select);
  for (const [key, what] of Object.entries(UNREAD_CLAUSES)) if (select[key]) return unknownSelect(what, select);
  const unread = unreadPart(select, 'select');
  if (unread !== undefined) return unknownSelect(unread, select);
  const distinct = String(select.distinct ?? '').toUpperCase();
  if (distinct !== '' && distinct !== 'ALL' && distinct !== 'DISTINCT') return unknownSelect(`SELECT ${distinct}`, select);
  if (!Array.isArray(select.columns)) return unknownSelect('SELECT without columns', select);
  const as = String(select.as_struct_val ?? '').toLowerCase();
  // The grammar reads AS STRUCT before DISTINCT, where GoogleSQL writes it after: not written either way.
  if (as !== '' && distinct !== '') return unknownSelect(`SELECT ${distinct} ${as.toUpperCase()}`, select);
  const fromItems = Array.isArray(select.from) ? select.from.filter(isNode) : [];
  // The grammar hangs a PIVOT or UNPIVOT after several FROM items on the first (patches 28, 30): which it turns is not written down.
  if (fromItems.length > 1 && isNode(fromItems[0]!.operator)) return unknownSelect('PIVOT or UNPIVOT after a join (turn a subquery of the join)', fromItems[0]!.operator);
  const from = fromItems.map(readFromItem);
  const windows = isNode(select.window) && Array.isArray(select.window.expr)
    ? select.window.expr.filter(isNode).map((window) => ({ name: identifierText(window.name) ?? '', spec: readWindow(window, '<window>') }))
    : [];
  return {
    kind: 'select',
    distinct: distinct === 'DISTINCT',
    as: as === 'as struct' ? 'struct' : as === 'as value' ? 'value' : undefined,
    items: select.columns.filter(isNode).map(readSelectItem),
    from,
    where: select.where ? readExpr(select.where) : undefined,
    ...readGroupBy(groupByItems(select.groupby), select),
    having: select.having ? readExpr(select.having) : undefined,
    qualify: select.qualify ? readExpr(select.qualify) : undefined,
    windows,
    loc: here(select),
  };
}

/**
 * GROUP BY's expressions, and its ROLLUP, CUBE or GROUPING SETS over them (grammar patch 25).
 * GoogleSQL takes one of these as the whole clause, and only ROLLUP and CUBE inside GROUPING SETS:
 * anything else is its error, so it is refused rather than answered.
 */
function readGroupBy(items: unknown[], select: AstNode): Pick<Select, 'groupBy' | 'grouping'> {
  // `GROUP BY ()` (grammar patch 29): one group of every row, even of none, as GROUPING SETS (()) is.
  const empty = (item: unknown) => isNode(item) && item.type === 'expr_list' && Array.isArray(item.value) && item.value.length === 0;
  if (items.some(empty)) {
    if (items.length > 1) return { groupBy: [unknown('GROUP BY () beside other items', select)] };
    return { groupBy: [], grouping: { kind: 'grouping sets', items: [[]] } };
  }
  const specs = items.filter((item) => isNode(item) && item.type === 'grouping_spec');
  if (specs.length === 0) return { groupBy: items.map(readExpr) };
  if (items.length > 1) return { groupBy: [unknown('GROUP BY mixing ROLLUP, CUBE or GROUPING SETS with other items', select)] };
  const groupBy: Expr[] = [];
  const unit = (item: unknown): number[] => {
    // `(a, b)`: one unit of its expressions; `()` the empty one; `(a)` is `a`.
    const members = isNode(item) && item.type === 'expr_list' && Array.isArray(item.value) ? item.value : [item];
    return members.map((member) => groupBy.push(readExpr(member)) - 1);
  };
  const spec = (node: AstNode, nested: boolean): GroupingSpec | undefined => {
    const kind = String(node.kind) as GroupingSpec['kind'];
    if (nested && kind === 'grouping sets') return undefined;
    const read: (number[] | GroupingSpec)[] = [];
    for (const item of Array.isArray(node.items) ? node.items : []) {
      if (isNode(item) && item.type === 'grouping_spec') {
        const inner = kind === 'grouping sets' ? spec(item, true) : undefined;
        if (inner === undefined) return undefined;
        read.push(inner);
      } else read.push(unit(item));
    }
    return { kind, items: read };
  };
  const grouping = spec(specs[0] as AstNode, false);
  if (grouping === undefined) return { groupBy: [unknown('GROUPING SETS, ROLLUP or CUBE nested other than in GROUPING SETS', select)] };
  return { groupBy, grouping };
}

function groupByItems(groupby: unknown): unknown[] {
  if (Array.isArray(groupby)) return groupby;
  if (isNode(groupby) && Array.isArray(groupby.columns)) return groupby.columns;
  return [];
}

function isStar(expr: unknown): expr is AstNode {
  return isNode(expr) && expr.type === 'column_ref' && identifierText(expr.column) === '*';
}

function readSelectItem(column: AstNode): SelectItem {
  const expr = column.expr;
  const loc = here(column) ?? (isNode(expr) ? here(expr) : undefined);
  const unread = unreadPart(column, typeof column.type === 'string' ? column.type : '<select item>');
  if (unread !== undefined) return { kind: 'item', expr: unknown(unread, column), loc };
  if ((column.type === 'except' || column.type === 'replace') && isStar(expr)) {
    const list = Array.isArray(column.expr_list) ? column.expr_list.filter(isNode) : [];
    const table = identifierText(expr.table) ?? undefined;
    if (column.type === 'except') {
      const names = list.map((item) => (isNode(item.expr) && item.expr.type === 'column_ref' && !item.expr.table && !item.as ? identifierText(item.expr.column) : undefined));
      if (names.some((name) => name === undefined)) return { kind: 'item', expr: unknown('EXCEPT item other than a column name', column), loc };
      return { kind: 'star', table, except: names as string[], replace: [], loc };
    }
    const replace = list.map((item) => ({ expr: readExpr(item.expr), alias: identifierText(item.as) }));
    if (replace.some((item) => item.alias === undefined)) return { kind: 'item', expr: unknown('REPLACE item without AS', column), loc };
    return { kind: 'star', table, except: [], replace: replace as { expr: Expr; alias: string }[], loc };
  }
  if (column.type !== undefined && column.type !== null) return { kind: 'item', expr: unknown(`select item ${String(column.type).toUpperCase()}`, column), loc };
  if (isStar(expr)) return { kind: 'star', table: identifierText(expr.table) ?? undefined, except: [], replace: [], loc };
  if (!isNode(expr)) return { kind: 'item', expr: unknown('select item', column), loc };
  return { kind: 'item', expr: readExpr(expr), alias: identifierText(column.as), loc };
}

function readJoin(item: AstNode): Join {
  const type = typeof item.join === 'string' ? item.join.toUpperCase() : ',';
  const using = Array.isArray(item.using) ? item.using.map((name) => identifierText(name) ?? '') : undefined;
  return {
    type: (JOIN_TYPES.has(type) || type === ',' ? type : 'JOIN') as JoinType,
    on: JOIN_TYPES.has(type) || type === ',' ? (item.on ? readExpr(item.on) : undefined) : unknown(type, item),
    using: using?.some((name) => name === '') ? undefined : using,
  };
}

function readFromItem(item: AstNode, index: number): FromItem {
  return located(item, () => readFromItemHere(item, index));
}

function readFromItemHere(item: AstNode, index: number): FromItem {
  if (isNode(item.operator) && item.operator.type === 'pivot_operator') return readPivot(item, index, item.operator);
  if (isNode(item.operator) && item.operator.type === 'unpivot_operator') return readUnpivot(item, index, item.operator);
  const loc = here(item);
  const alias = identifierText(item.as) ?? undefined;
  const join = index === 0 ? undefined : readJoin(item);
  if (Array.isArray(item.using) && item.using.some((name) => identifierText(name) === undefined)) {
    return { ...unknown('USING column', item) };
  }
  const unread = unreadPart(item, item.type === 'unnest' || item.type === 'parenthesized_join' ? item.type : '<from item>')
    ?? (isNode(item.with_offset) ? unreadPart(item.with_offset, '<with offset>') : undefined)
    ?? (isNode(item.expr) && isNode(item.expr.ast) ? unreadPart(item.expr, '<subquery>') : undefined);
  if (unread !== undefined) return unknown(unread, item);
  if (item.type === 'unnest') {
    const offset = isNode(item.with_offset) ? (identifierText(item.with_offset.as) ?? 'offset') : undefined;
    const array = isNode(item.expr) ? readExpr(item.expr) : unknown('UNNEST argument', item);
    // The parser gives an UNNEST no location of its own; its argument's is on the same line.
    return { kind: 'unnest', array, alias, offsetAlias: offset, join, loc: locationOf(item) ?? array.loc ?? loc };
  }
  if (item.type === 'parenthesized_join') {
    const items = Array.isArray(item.from) ? item.from.filter(isNode).map(readFromItem) : [];
    return { kind: 'join_group', items, join, loc };
  }
  if (isNode(item.expr)) {
    if (isNode(item.expr.ast)) return { kind: 'derived', query: readQuery(item.expr.ast), alias, join, loc };
    const name = item.expr.type === 'function' ? functionName(item.expr).toUpperCase() : String(item.expr.type);
    return unknown(`table function ${name}`, item);
  }
  const table = identifierText(item.table);
  if (table === undefined) return unknown('FROM item', item);
  const prefix = [identifierText(item.db), identifierText(item.schema)].filter((part): part is string => Boolean(part));
  return { kind: 'table', name: [...prefix, table].join('.'), qualified: prefix.length > 0, alias, join, loc };
}

/** `input PIVOT (...)` (grammar patch 28): the query it stands for (pivot.ts), or refused by name. */
function readPivot(item: AstNode, index: number, pivot: AstNode): FromItem {
  const input = readFromItemHere({ ...item, operator: null }, index);
  if (input.kind === 'unknown') return input;
  const aliased = (list: unknown) => (Array.isArray(list) ? list.filter(isNode) : []).map((entry) => ({ expr: readExpr(entry.expr), alias: identifierText(entry.as) ?? undefined }));
  const table = pivotTable(input, { aggregates: aliased(pivot.aggregates), column: readExpr(pivot.column), values: aliased(pivot.values), alias: identifierText(pivot.as) ?? undefined }, visibleCtes);
  return typeof table === 'string' ? unknown(table, pivot) : table;
}

/** `input UNPIVOT (...)` (grammar patch 30): the query it stands for (pivot.ts), BigQuery's error, or refused by name. */
function readUnpivot(item: AstNode, index: number, unpivot: AstNode): FromItem {
  const input = readFromItemHere({ ...item, operator: null }, index);
  if (input.kind === 'unknown') return input;
  const sets = (Array.isArray(unpivot.columns) ? unpivot.columns.filter(isNode) : []).map((entry) => ({
    columns: (Array.isArray(entry.columns) ? entry.columns.filter(isNode) : []).map((column) => readExpr(column)),
    label: isNode(entry.as) ? readExpr(entry.as) : undefined,
    loc: here(entry),
  }));
  let table: ReturnType<typeof unpivotTable>;
  try {
    table = unpivotTable(input, {
      includeNulls: unpivot.nulls === 'include',
      valueColumns: (Array.isArray(unpivot.value_columns) ? unpivot.value_columns : []).map(String),
      nameColumn: String(unpivot.name_column),
      sets,
      alias: identifierText(unpivot.as) ?? undefined,
      loc: here(unpivot),
    }, visibleCtes);
  } catch (error) {
    // BigQuery's error, raised where the query is written for a backend, as the generator's own are.
    if (error instanceof InvalidQuery) return { kind: 'unknown', what: error.message, invalid: true, loc: error.location };
    throw error;
  }
  return typeof table === 'string' ? unknown(table, unpivot) : table;
}

function readOrder(items: unknown): OrderItem[] {
  if (!Array.isArray(items)) return [];
  return items.filter(isNode).map((item) => ({
    expr: unreadIn(item, typeof item.type === 'string' ? item.type : '<order item>') ?? readExpr(item.expr),
    direction: item.type === 'DESC' ? 'DESC' : item.type === 'ASC' ? 'ASC' : undefined,
    nulls: item.nulls ? (String(item.nulls).toUpperCase().includes('FIRST') ? 'FIRST' : 'LAST') : undefined,
  }));
}

function readLimit(node: unknown, owner: AstNode): Limit | undefined {
  const values = isNode(node) && Array.isArray(node.value) ? node.value.filter(isNode) : [];
  if (values.length === 0) return undefined;
  const unread = unreadIn(node as AstNode, '<limit>');
  if (unread) return { count: unread };
  if (values.length === 1) return { count: readExpr(values[0]!) };
  if (values.length === 2 && isNode(node) && node.seperator === 'offset') return { count: readExpr(values[0]!), offset: readExpr(values[1]!) };
  return { count: unknown('LIMIT form (write LIMIT n OFFSET m)', owner) };
}

/** `OVER (...)`, `OVER w`, or a `WINDOW w AS (...)` entry. */
function readWindow(value: unknown, kind = 'window'): WindowSpec {
  // The grammar puts `ON UPDATE CURRENT_TIMESTAMP` where OVER goes: refused, never read as OVER ().
  if (kind === 'window' && isNode(value) && value.type !== 'window') {
    return { partitionBy: [unknown(REFUSED_KINDS[String(value.type)] ?? `${String(value.type)} where OVER goes`, value)], orderBy: [] };
  }
  const specification = isNode(value) ? value.as_window_specification : undefined;
  const unread = (isNode(value) ? unreadPart(value, kind) : 'window') ?? (isNode(specification) ? unreadPart(specification, '<window specification>') : undefined);
  if (unread !== undefined) return { partitionBy: [unknown(unread, isNode(value) ? value : undefined)], orderBy: [] };
  if (typeof specification === 'string') return { name: specification, partitionBy: [], orderBy: [] };
  const spec = isNode(specification) ? specification.window_specification : undefined;
  if (!isNode(spec)) return { partitionBy: [], orderBy: [] };
  const unreadSpec = unreadPart(spec, '<window spec>');
  if (unreadSpec !== undefined) return { partitionBy: [unknown(unreadSpec, spec)], orderBy: [] };
  return {
    name: identifierText(spec.name) ?? undefined,
    partitionBy: Array.isArray(spec.partitionby) ? spec.partitionby.filter(isNode).map((item) => unaliased(item, 'PARTITION BY')) : [],
    orderBy: readOrder(spec.orderby),
    frame: spec.window_frame_clause ? readFrame(spec.window_frame_clause) : undefined,
  };
}

const FRAME_BOUND = /^(UNBOUNDED PRECEDING|UNBOUNDED FOLLOWING|CURRENT ROW|\d+ PRECEDING|\d+ FOLLOWING)$/;

/**
 * A window frame as text both dialects write alike (`ROWS BETWEEN 1 PRECEDING AND CURRENT ROW`);
 * a form it cannot check is `unknown`, which the generator refuses.
 */
function readFrame(clause: unknown): string {
  const bound = (node: unknown): string | undefined => {
    const text = isNode(node) ? String(node.value ?? '').toUpperCase().replace(/\s+/g, ' ').trim() : '';
    return FRAME_BOUND.test(text) ? text : undefined;
  };
  if (!isNode(clause)) return 'unknown';
  if (clause.type === 'binary_expr' && clause.operator === 'BETWEEN' && isNode(clause.left) && isNode(clause.right) && Array.isArray(clause.right.value)) {
    const unit = String(clause.left.value ?? '').toUpperCase();
    const [low, high] = clause.right.value.map(bound);
    if ((unit === 'ROWS' || unit === 'RANGE') && low && high && clause.right.value.length === 2) return `${unit} BETWEEN ${low} AND ${high}`;
  }
  const unit = String(clause.type ?? '').toUpperCase();
  const single = bound(clause.expr);
  if ((unit === 'ROWS' || unit === 'RANGE') && single) return `${unit} ${single}`;
  return 'unknown';
}

const INTEGER = /^-?\d+$/;

export function readExpr(value: unknown): Expr {
  if (!isNode(value)) return unknown('expression');
  return located(value, () => readExprHere(value));
}

function readExprHere(node: AstNode): Expr {
  const loc = here(node);
  if (isNode(node.ast)) return unreadIn(node, '<subquery>') ?? { kind: 'subquery', query: readQuery(node.ast), loc };
  const kind = String(node.type);
  // Some refused nodes have no location of their own; their operand's is on the same line.
  if (kind in REFUSED_KINDS) return unknown(REFUSED_KINDS[kind]!, isNode(node.expr) && locationOf(node.expr) ? node.expr : node);
  if (kind in READ_KEYS) {
    const unread = unreadIn(node, kind);
    if (unread) return unread;
  }
  switch (node.type) {
    case 'column_ref':
      return readColumn(node);
    case 'param':
      // `:name` is another dialect's parameter; BigQuery's are `@name`.
      if (node.prefix !== '@') return unknown(`parameter ${String(node.prefix)}${String(node.value)} (BigQuery's parameters are @name)`, node);
      return { kind: 'param', name: String(node.value), loc };
    case 'number':
    // Integers from 2^53 (negative ones too) and numbers with an exponent, as written; INT64's
    // range is checked where they are written.
    case 'bigint': {
      const text = String(node.value);
      return { kind: 'literal', type: INTEGER.test(text) ? 'int64' : 'float64', value: text, loc };
    }
    case 'bytes_string':
      return { kind: 'literal', type: 'bytes', value: hexOf(decodedBytes(String(node.value))), loc };
    case 'raw_bytes_string':
      return { kind: 'literal', type: 'bytes', value: hexOf(Buffer.from(String(node.value), 'utf8')), loc };
    case 'struct':
      return readStruct(node);
    case 'array':
      return readArray(node);
    case 'single_quote_string':
    case 'double_quote_string':
    case 'string':
      return { kind: 'literal', type: 'string', value: decodedString(String(node.value)), loc };
    case 'regex_string':
      // A raw string's value is its content already.
      return { kind: 'literal', type: 'string', value: String(node.value), loc };
    case 'bool':
      return { kind: 'literal', type: 'bool', value: node.value === true, loc };
    case 'null':
      return { kind: 'literal', type: 'null', value: null, loc };
    case 'date':
    case 'timestamp':
    case 'datetime':
    case 'time':
    case 'numeric':
    case 'bignumeric':
      return { kind: 'literal', type: node.type, value: String(node.value), loc };
    case 'range_literal':
      return rangeFromText(String(node.element), decodedString(String(node.value)), loc);
    case 'json': {
      // JSON '...': one string literal, its text decoded as any string's.
      const texts = Array.isArray(node.expr_list) ? node.expr_list.filter(isNode) : [];
      const text = texts.length === 1 ? readExpr(texts[0]) : undefined;
      if (text?.kind !== 'literal' || text.type !== 'string') return unknown('JSON literal other than JSON \'...\'', node);
      return { kind: 'literal', type: 'json', value: text.value, loc };
    }
    case 'star':
      return { kind: 'star_argument', loc };
    case 'binary_expr':
      return readBinary(node);
    case 'unary_expr':
      return readUnary(node);
    case 'case':
      return readCase(node);
    case 'cast':
    case 'cast_format': {
      const targets = Array.isArray(node.target) ? node.target.filter(isNode) : [];
      const unreadTarget = targets.map((target) => unreadIn(target, '<type>')).find(Boolean);
      if (unreadTarget) return unreadTarget;
      const type = targets.length === 1 ? readType(targets[0]) : undefined;
      if (type === undefined) return unknown(`CAST to ${String(targets[0]?.dataType ?? 'this type').toUpperCase()}`, node);
      const safe = String(node.keyword).toLowerCase() === 'safe_cast';
      if (node.type === 'cast') {
        const operand = readExpr(node.expr);
        // CAST('[a, b)' AS RANGE<DATE>) is the literal RANGE<DATE> '[a, b)' (SAFE_CAST's NULL for bad text aside).
        if (type.name === 'RANGE' && type.element && !safe && operand.kind === 'literal' && operand.type === 'string') {
          return rangeFromText(type.element.name, String(operand.value), loc);
        }
        return { kind: 'cast', safe, operand, type, loc };
      }
      const timeZone = isNode(node.time_zone) ? readExpr(node.time_zone) : undefined;
      // The grammar gives a cast with FORMAT no location of its own; its operand's is on the same line.
      const at = locationOf(node) ?? (isNode(node.expr) ? here(node.expr) : loc);
      return { kind: 'cast', safe, operand: readExpr(node.expr), type, format: readExpr(node.format), timeZone, loc: at };
    }
    case 'interval':
      return { kind: 'interval', value: readExpr(node.expr), unit: String(node.unit ?? '').toLowerCase(), loc };
    case 'extract':
      return readExtract(node);
    case 'function':
      return readFunction(node);
    case 'aggr_func':
    case 'aggr_func_clauses':
      return readAggregate(node);
    case 'any_value': {
      const args = isNode(node.args) ? node.args : {};
      // The grammar reads `ANY_VALUE(x, y)` as one list; BigQuery takes one argument (and one HAVING).
      const listed = (value: unknown) => isNode(value) && value.type === 'expr_list' && !value.parentheses;
      if (listed(args.expr) || (isNode(args.having) && listed(args.having.expr))) return unknown('ANY_VALUE with more than one argument', node);
      const over = node.over ? readWindow(node.over) : undefined;
      // ANY_VALUE(x HAVING MAX y) is MAX_BY(x, y), as BigQuery defines it (and MIN likewise).
      if (isNode(args.having)) {
        const name = String(args.having.prefix).toUpperCase() === 'MIN' ? 'min_by' : 'max_by';
        return { kind: 'call', name, args: [readExpr(args.expr), readExpr(args.having.expr)], over, loc };
      }
      return { kind: 'call', name: 'any_value', args: [readExpr(args.expr)], over, loc };
    }
    case 'expr_list': {
      // A parenthesised list in an expression is BigQuery's tuple syntax for a STRUCT.
      const items = (Array.isArray(node.value) ? node.value : []).map(readExpr);
      if (items.length === 1) return items[0]!;
      return { kind: 'struct', fields: items.map((expr) => ({ expr })), tuple: true, loc };
    }
    default:
      return unknown(node.type === undefined ? 'expression' : String(node.type).replace(/_/g, ' '), node);
  }
}

/** A string literal's text; an escape BigQuery does not read is a syntax error where the literal is. */
function decodedString(raw: string): string {
  try {
    return decodeBigQueryString(raw);
  } catch (error) {
    if (error instanceof IllegalEscape) throw new SqlSyntaxError(error.message, nearest);
    throw error;
  }
}

function readColumn(node: AstNode): Expr {
  const loc = here(node);
  if (node.db || node.schema) return unknown('column reference with more than a table qualifier', node);
  const column = node.column;
  if (isNode(column) && Array.isArray(column.offset) && (column.offset.length > 0 || column.suffix)) {
    // `t.a[OFFSET(0)].b`, `f(x).a`: the operand sits under `column`, the subscripts beside it, the
    // fields after them as raw text (`.b`); a bare name (`a[0]`) is a `default` node.
    const unread = unreadIn(column, '<subscripted>');
    if (unread) return unread;
    const inner = isNode(column.expr) ? { ...column.expr, table: column.expr.table ?? node.table } : column.expr;
    let expr: Expr = isNode(inner) && inner.type === 'default' && typeof inner.value === 'string'
      ? { kind: 'column', table: identifierText(inner.table) ?? undefined, name: inner.value, fields: [], loc }
      : readExpr(inner);
    for (const offset of column.offset.filter(isNode)) {
      const unreadOffset = unreadIn(offset, '<subscript>');
      if (unreadOffset) return unreadOffset;
      // A bare `[n]` counts from zero, as OFFSET does.
      const mode = String(offset.name ?? '').toUpperCase() || 'INDEX';
      if (!SUBSCRIPTS.has(mode)) return unknown(`array subscript ${mode}`, offset);
      expr = { kind: 'subscript', array: expr, mode: mode as SubscriptMode, index: readExpr(offset.value), loc };
    }
    const suffix = typeof column.suffix === 'string' ? column.suffix : '';
    if (suffix !== '') {
      const fields = suffix.split('.');
      if (fields.shift() !== '' || !fields.every((field) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(field))) return unknown(`field access ${suffix}`, node);
      for (const name of fields) expr = { kind: 'field', operand: expr, name, loc };
    }
    return expr;
  }
  if (isNode(column) && column.suffix) return unknown(`field access ${String(column.suffix)}`, node);
  const name = identifierText(column);
  if (name === undefined || name === '*') return unknown('column reference', node);
  const table = identifierText(node.table) ?? undefined;
  const fields = Array.isArray(node.subFields) ? node.subFields.map(String) : [];
  return { kind: 'column', table, name, fields, loc };
}

function readBinary(node: AstNode): Expr {
  const loc = here(node);
  const operator = String(node.operator).toUpperCase();
  const operand = readExpr(node.left);
  const right = node.right;
  const not = operator.startsWith('NOT ');
  if (operator === 'BETWEEN' || operator === 'NOT BETWEEN') {
    const bounds = isNode(right) && Array.isArray(right.value) ? right.value : [];
    if (bounds.length !== 2) return unknown('BETWEEN without two bounds', node);
    return { kind: 'between', not, operand, low: readExpr(bounds[0]), high: readExpr(bounds[1]), loc };
  }
  if (operator === 'IN' || operator === 'NOT IN') {
    if (isNode(right) && right.type === 'unnest') return { kind: 'in_unnest', not, operand, array: readExpr(right.expr), loc };
    const items = isNode(right) && right.type === 'expr_list' && Array.isArray(right.value) ? right.value : undefined;
    if (items === undefined) return unknown(`${operator} with this right-hand side`, node);
    const only = items.length === 1 && isNode(items[0]) && isNode(items[0].ast) ? (items[0].ast as AstNode) : undefined;
    // `IN ((SELECT ...))` may be a subquery or a list of one scalar subquery (NOT IN differs on an
    // empty or NULL answer): refused rather than guessed.
    if (only && items[0]!.parentheses) return unknown(`${operator} ((subquery)) (write ${operator} (subquery), or a list with a second value)`, node);
    if (only) return { kind: 'in_query', not, operand, query: readQuery(only), loc };
    return { kind: 'in_list', not, operand, list: items.map(readExpr), loc };
  }
  const quantified = /^(NOT )?LIKE (ANY|SOME|ALL)$/.exec(operator);
  if (quantified) {
    const quantifier = quantified[2] as QuantifiedLike['quantifier'];
    if (isNode(right) && right.type === 'unnest') return { kind: 'quantified_like', not, quantifier, operand, list: [], array: readExpr(right.expr), loc };
    const items = isNode(right) && right.type === 'expr_list' && Array.isArray(right.value) ? right.value : [];
    // `LIKE ANY (SELECT ...)` matches each row of the subquery: GoogleSQL's form, not BigQuery's.
    if (items.length === 1 && isNode(items[0]) && isNode(items[0].ast) && !items[0].parentheses) return unknown(`${operator} (subquery) (BigQuery takes a list of patterns or UNNEST(array))`, node);
    return { kind: 'quantified_like', not, quantifier, operand, list: items.map(readExpr), loc };
  }
  if (!BINARY_OPERATORS.has(operator)) return unknown(`operator ${operator}`, node);
  const value = readExpr(right);
  // BigQuery's IS [NOT] takes NULL, TRUE or FALSE; the grammar reads any sum there (`x IS NULL || y`).
  if ((operator === 'IS' || operator === 'IS NOT') && (value.kind !== 'literal' || (value.type !== 'null' && value.type !== 'bool'))) {
    return unknown(`${operator} with an operand other than NULL, TRUE or FALSE`, node);
  }
  return { kind: 'binary', operator: operator as BinaryOperator, left: operand, right: value, loc };
}

function readUnary(node: AstNode): Expr {
  const loc = here(node);
  const operator = String(node.operator).toUpperCase();
  if (operator === 'NOT') return { kind: 'unary', operator: 'NOT', operand: readExpr(node.expr), loc };
  if (operator === 'NOT EXISTS' && isNode(node.expr) && isNode(node.expr.ast)) return { kind: 'exists', not: true, query: readQuery(node.expr.ast), loc };
  if (operator === '-' || operator === '+' || operator === '~') return { kind: 'unary', operator, operand: readExpr(node.expr), loc };
  return unknown(`unary operator ${operator}`, node);
}

function readCase(node: AstNode): Expr {
  const whens: { when: Expr; then: Expr }[] = [];
  let otherwise: Expr | undefined;
  for (const branch of (Array.isArray(node.args) ? node.args : []).filter(isNode)) {
    const unread = unreadIn(branch, String(branch.type));
    if (unread) return unread;
    if (branch.type === 'when') whens.push({ when: readExpr(branch.cond), then: readExpr(branch.result) });
    else if (branch.type === 'else') otherwise = readExpr(branch.result);
    else return unknown('CASE branch', branch);
  }
  return { kind: 'case', subject: node.expr ? readExpr(node.expr) : undefined, whens, else: otherwise, loc: here(node) };
}

/**
 * A date part keyword (`MINUTE`) parses as a bare column name, or as the parser's own `origin`
 * node (`DATE_TRUNC(d, WEEK)`); `WEEK(MONDAY)` as a call of `week`. The language table says where
 * one is expected.
 */
function readDatePart(arg: AstNode): Expr {
  // `hour` in backticks is a column's name, not the date part HOUR.
  const quoted = arg.type === 'column_ref' && isNode(arg.column) && isNode(arg.column.expr) && arg.column.expr.type === 'backticks_quote_string';
  if (((arg.type === 'column_ref' && !arg.table) || arg.type === 'origin') && !quoted) {
    const part = arg.type === 'origin' ? identifierText(arg) : identifierText(arg.column);
    if (part !== undefined) return { kind: 'date_part', part: part.toLowerCase(), loc: here(arg) };
  }
  if (arg.type === 'function' && functionName(arg) === 'week') {
    const [weekday, ...rest] = functionArgs(arg);
    const day = weekday?.type === 'column_ref' && !weekday.table ? identifierText(weekday.column) : undefined;
    if (day !== undefined && rest.length === 0) return { kind: 'date_part', part: 'week', weekday: day.toLowerCase(), loc: here(arg) };
  }
  return readExpr(arg);
}

function readFunction(node: AstNode): Expr {
  const loc = here(node);
  const name = functionName(node);
  const args = functionArgs(node);
  const unreadArgs = isNode(node.args) ? unreadIn(node.args, String(node.args.type)) : undefined;
  if (unreadArgs) return unreadArgs;
  if (name === 'exists') {
    const sub = args[0];
    if (args.length !== 1 || !isNode(sub?.ast)) return unknown('EXISTS without a subquery', node);
    return { kind: 'exists', not: false, query: readQuery(sub.ast), loc };
  }
  // The parser reads `NOT (x)` as a call.
  if (name === 'not' && args.length === 1) return { kind: 'unary', operator: 'NOT', operand: readExpr(args[0]), loc };
  const dateParts = resolveFunction(name)?.spec.dateParts ?? [];
  // BigQuery takes named arguments after the positional ones only; not reordered here.
  const firstNamed = args.findIndex((arg) => arg.type === 'named_argument');
  if (firstNamed >= 0 && args.slice(firstNamed).some((arg) => arg.type !== 'named_argument')) return unknown('a positional argument after a named one', node);
  const positional = args.filter((arg) => arg.type !== 'named_argument');
  const named = args.filter((arg) => arg.type === 'named_argument').map((arg) => ({ name: String(arg.name).toLowerCase(), value: readExpr(arg.value) }));
  const call: Call = {
    kind: 'call',
    name,
    args: positional.map((arg, index) => (dateParts.includes(index) ? readDatePart(arg) : readExpr(arg))),
    ...(named.length ? { named } : {}),
    over: node.over ? readWindow(node.over) : undefined,
    loc,
  };
  return call;
}

function readAggregate(node: AstNode): Expr {
  const args = isNode(node.args) ? node.args : {};
  // ARRAY_AGG's argument without modifiers is the args node itself (an expression, which has a
  // type); with them, and the others', is under `expr`.
  if (typeof args.type === 'string') return aggregateCall(node, { expr: args });
  const unread = unreadIn(args, '<aggregate arguments>') ?? (isNode(args.separator) ? unreadIn(args.separator, '<separator>') : undefined) ?? (isNode(args.having) ? unreadIn(args.having, '<having>') : undefined);
  return unread ?? aggregateCall(node, args);
}

function aggregateCall(node: AstNode, args: AstNode): Call {
  const arg = args.expr;
  // STRING_AGG's delimiter becomes its second argument, as when written without modifiers.
  const delimiter = isNode(args.separator) && isNode(args.separator.delimiter) ? [readExpr(args.separator.delimiter)] : [];
  const limits = isNode(args.limit) ? readLimit(args.limit, node) : undefined;
  // An aggregate takes LIMIT n only; an OFFSET is refused, never dropped.
  const limit = limits?.offset ? unknown('LIMIT ... OFFSET inside an aggregate', node) : limits?.count;
  const consider = String(args.consider_nulls ?? '').toUpperCase();
  const call: Call = {
    kind: 'call',
    name: String(node.name).toLowerCase(),
    args: [readExpr(arg), ...delimiter],
    distinct: Boolean(args.distinct),
    orderBy: args.orderby ? readOrder(args.orderby) : undefined,
    limit,
    ignoreNulls: consider === 'IGNORE NULLS' ? true : consider === 'RESPECT NULLS' ? false : undefined,
    over: node.over ? readWindow(node.over) : undefined,
    loc: here(node),
  };
  if (isNode(args.having)) call.having = { extreme: String(args.having.prefix).toUpperCase() === 'MIN' ? 'MIN' : 'MAX', expr: readExpr(args.having.expr) };
  return call;
}

/** A type as the parser writes it in CAST, STRUCT<...> or ARRAY<...>. */
function readType(node: AstNode | undefined): TypeName | undefined {
  if (!isNode(node)) return undefined;
  const written = String(node.dataType ?? '').toUpperCase();
  // `DECIMAL(10, 2)` keeps its parameters in the name.
  const inline = /^([A-Z0-9_]+)\s*\(\s*(\d+)\s*(?:,\s*(\d+)\s*)?\)$/.exec(written);
  const name = inline ? inline[1]! : written;
  if (!/^[A-Z][A-Z0-9_]*$/.test(name)) return undefined;
  const params = inline
    ? [Number(inline[2]), ...(inline[3] === undefined ? [] : [Number(inline[3])])]
    : typeof node.length === 'number'
      ? [node.length, ...(typeof node.scale === 'number' ? [node.scale] : [])]
      : undefined;
  if (unreadKey(node, '<type>') !== undefined) return undefined;
  const definition = Array.isArray(node.definition) ? node.definition.filter(isNode) : undefined;
  if (definition?.some((field) => unreadKey(field, '<field>') !== undefined)) return undefined;
  if (name === 'ARRAY') {
    // ARRAY<INT64, STRING> or ARRAY<a INT64> is no type: not read as ARRAY<INT64>.
    if (definition?.length !== 1 || definition[0]!.field_name) return undefined;
    const element = readType(isNode(definition[0]!.field_type) ? definition[0]!.field_type : undefined);
    return element && { name, element };
  }
  if (name === 'RANGE') {
    const element = definition?.length === 1 ? readType(isNode(definition[0]!.field_type) ? definition[0]!.field_type : undefined) : undefined;
    return element && { name, element };
  }
  if (name === 'STRUCT') {
    const fields = (definition ?? []).map((field) => ({ name: identifierText(field.field_name) ?? undefined, type: readType(isNode(field.field_type) ? field.field_type : undefined) }));
    if (fields.some((field) => field.type === undefined)) return undefined;
    return { name, fields: fields as { name?: string; type: TypeName }[] };
  }
  return params ? { name, params } : { name };
}

function readStruct(node: AstNode): Expr {
  const loc = here(node);
  const items = Array.isArray(node.expr_list) ? node.expr_list.filter(isNode) : [];
  const fields = items.map((item) => ({ expr: readExpr(item.expr), name: identifierText(item.as) ?? undefined }));
  if (!isNode(node.definition)) {
    // GoogleSQL names a field after the path it is given (`STRUCT(1, t.str_col)` is
    // STRUCT<INT64, str_col STRING>); the tuple syntax and typed STRUCT<...>(...) do not.
    return { kind: 'struct', fields: fields.map((field) => (field.name === undefined ? { ...field, name: pathName(field.expr) } : field)), loc };
  }
  // STRUCT<a INT64>(1 AS z): the type names the fields, and an alias there is refused, never dropped.
  if (items.some((item) => item.as)) return unknown('an alias in a typed STRUCT<...>(...)', node);
  const type = readType(node.definition);
  if (type === undefined || type.fields?.length !== fields.length) return unknown('STRUCT<...> whose type does not match its values', node);
  return { kind: 'struct', fields, type, loc };
}

/** A list item's expression (`column_clause` items); an alias there is refused, never dropped. */
function unaliased(item: AstNode, where: string): Expr {
  return item.as ? unknown(`an alias in ${where}`, item) : readExpr(item.expr);
}

/** The name a path expression gives a STRUCT field or a select item: its last name. */
function pathName(expr: Expr): string | undefined {
  if (expr.kind === 'column') return expr.fields.at(-1) ?? expr.name;
  if (expr.kind === 'field') return expr.name;
  return undefined;
}

function readArray(node: AstNode): Expr {
  const loc = here(node);
  const list = node.expr_list;
  // ARRAY(subquery): the parser keeps the subquery in expr_list.
  if (isNode(list) && isNode(list.ast)) {
    // BigQuery's ARRAY(subquery) takes no element type; the grammar would read ARRAY<T>(subquery) and drop T.
    if (isNode(node.definition)) return unknown('ARRAY<T>(...) of a subquery (BigQuery takes ARRAY(subquery))', node);
    return { kind: 'array_query', query: readQuery(list.ast), loc };
  }
  let elements: Expr[];
  if (list === undefined || list === null) {
    elements = (Array.isArray(node.array_path) ? node.array_path.filter(isNode) : []).map((item) => unaliased(item, 'an array literal'));
  } else {
    // ARRAY[x] and ARRAY<T>[x] of one element that is not a literal, or with a space before the
    // bracket, reach the grammar's alternative that keeps the one expression in expr_list (read
    // as no element at all, these gave an empty array). ARRAY(x) without a subquery is no
    // BigQuery array; ARRAY[(a, b)] (a parenthesised list, a STRUCT in BigQuery) is not read.
    const inner = Array.isArray(list) && list.length === 1 && Array.isArray(list[0]) ? (list[0] as unknown[]).filter(isNode) : undefined;
    if (node.parentheses === true) return unknown('ARRAY(...) of an expression (BigQuery takes a subquery there)', node);
    if (isNode(list)) elements = [readExpr(list)];
    else if (inner?.length === 1) elements = [readExpr(inner[0]!.expr)];
    else return unknown('ARRAY[(...)] of a parenthesised list', node);
  }
  if (!isNode(node.definition)) return { kind: 'array', elements, loc };
  const type = readType(node.definition);
  if (type?.element === undefined) return unknown('ARRAY<...> literal of this type', node);
  return { kind: 'array', elements, elementType: type.element, loc };
}

function readExtract(node: AstNode): Expr {
  const loc = here(node);
  const args = isNode(node.args) ? node.args : {};
  const unread = unreadIn(args, '<extract>') ?? (isNode(args.source) && args.source.type === 'at_time_zone' ? unreadIn(args.source, 'at_time_zone') : undefined);
  if (unread) return unread;
  const field = String(args.field ?? '').toLowerCase();
  // `WEEK(MONDAY)` as written.
  const week = /^week\s*\(\s*([a-z]+)\s*\)$/.exec(field);
  let source: Expr;
  let timeZone: Expr | undefined;
  if (isNode(args.source) && args.source.type === 'at_time_zone') {
    source = readExpr(args.source.expr);
    timeZone = readExpr(args.source.time_zone);
  } else if (typeof args.cast_type === 'string') {
    // `EXTRACT(HOUR FROM TIMESTAMP '...')`: the parser keeps the literal's type beside its text.
    source = { kind: 'cast', safe: false, operand: readExpr(args.source), type: { name: args.cast_type.toUpperCase() }, loc };
  } else {
    source = readExpr(args.source);
  }
  return { kind: 'extract', part: week ? 'week' : field, weekday: week?.[1], source, timeZone, loc };
}

/** A bytes literal's bytes: BigQuery's escapes, each one byte, and UTF-8 for the rest. */
function decodedBytes(raw: string): Buffer {
  const bytes: number[] = [];
  for (let i = 0; i < raw.length; i++) {
    if (raw[i] !== '\\') {
      // A whole code point: a character beyond the BMP is two UTF-16 units, each alone no character.
      const character = String.fromCodePoint(raw.codePointAt(i)!);
      bytes.push(...Buffer.from(character, 'utf8'));
      i += character.length - 1;
      continue;
    }
    const escape = raw.slice(i, i + 4);
    const hex = /^\\[xX]([0-9A-Fa-f]{2})/.exec(escape);
    const octal = /^\\([0-7]{3})/.exec(escape);
    if (hex) {
      bytes.push(parseInt(hex[1]!, 16));
      i += 3;
    } else if (octal) {
      const value = parseInt(octal[1]!, 8);
      if (value > 255) throw new SqlSyntaxError(`illegal escape sequence \\${octal[1]} in a bytes literal`, nearest);
      bytes.push(value);
      i += 3;
    } else {
      bytes.push(...Buffer.from(decodedString(raw.slice(i, i + 2)), 'utf8'));
      i += 1;
    }
  }
  return Buffer.from(bytes);
}

function hexOf(bytes: Buffer): string {
  return bytes.toString('hex');
}
