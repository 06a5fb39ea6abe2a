/**
 * What the reader (to-tree.ts) takes from each node the grammar makes: for every node kind, the
 * keys whose values it reads into the query tree. A node that holds a meaningful value under any
 * other key is refused by name (`unreadKey`), so a construct the grammar parses and the reader
 * does not know (PIVOT hung on a FROM item, COLLATE on a column, FOR SYSTEM_TIME AS OF) can never
 * be dropped on the way to the tree: the generator refuses it for every backend.
 *
 * test/sql/parse/ast-keys.test.ts checks this table against the grammar: every node kind it can
 * make is here, and every clause of a SELECT and a FROM item.
 */
import type { AstNode } from './parse.js';

/** Keys that say only how the text was written (brackets, parentheses, where it starts). */
const SYNTAX_KEYS: ReadonlySet<string> = new Set(['type', 'loc', 'parentheses', 'parentheses_symbol', '_parentheses', 'brackets', 'surround', 'tableList', 'columnList', 'anglebracket']);

/**
 * Node kinds by their `type` (a node without one by the place it holds, in angle brackets), with
 * the keys the reader reads of each. Kinds the reader refuses whole are in REFUSED_KINDS.
 */
export const READ_KEYS: Readonly<Record<string, readonly string[]>> = {
  select: ['with', 'as_struct_val', 'distinct', 'columns', 'from', 'for_sys_time_as_of', 'where', 'groupby', 'having', 'qualify', 'orderby', 'limit', 'window', '_next', 'set_op', '_orderby', '_limit', '_outer_orderby', '_outer_limit'],
  '<subquery>': ['ast'],
  set_op: ['operator', 'mode', 'match', 'columns'],
  set_query: ['ast', '_next', 'set_op', '_outer_orderby', '_outer_limit'],
  '<cte>': ['name', 'stmt'],
  '<select item>': ['expr', 'as'],
  except: ['expr', 'expr_list'],
  replace: ['expr', 'expr_list'],
  '<from item>': ['db', 'schema', 'table', 'as', 'join', 'on', 'using', 'expr', 'operator'],
  unnest: ['expr', 'as', 'join', 'on', 'using', 'with_offset'],
  '<with offset>': ['keyword', 'as'],
  parenthesized_join: ['from', 'join', 'on', 'using'],
  '<order item>': ['expr', 'nulls'],
  ASC: ['expr', 'nulls'],
  DESC: ['expr', 'nulls'],
  '<limit>': ['seperator', 'value'],
  '<group by>': ['columns'],
  window: ['as_window_specification', 'keyword', 'expr'],
  '<window>': ['name', 'as_window_specification'],
  '<window specification>': ['window_specification'],
  '<window spec>': ['name', 'partitionby', 'orderby', 'window_frame_clause'],
  column_ref: ['db', 'schema', 'table', 'column', 'subFields'],
  '<subscripted>': ['expr', 'offset', 'suffix'],
  '<subscript>': ['name', 'value'],
  param: ['value', 'prefix'],
  number: ['value'],
  bigint: ['value'],
  bytes_string: ['value'],
  raw_bytes_string: ['value'],
  single_quote_string: ['value'],
  double_quote_string: ['value'],
  string: ['value'],
  regex_string: ['value'],
  bool: ['value'],
  null: ['value'],
  date: ['value'],
  datetime: ['value'],
  timestamp: ['value'],
  time: ['value'],
  numeric: ['value'],
  bignumeric: ['value'],
  range_literal: ['element', 'value'],
  json: ['keyword', 'expr_list'],
  named_argument: ['name', 'value'],
  star: ['value'],
  binary_expr: ['operator', 'left', 'right'],
  unary_expr: ['operator', 'expr'],
  case: ['expr', 'args'],
  when: ['cond', 'result'],
  else: ['result'],
  cast: ['keyword', 'expr', 'symbol', 'target'],
  cast_format: ['keyword', 'expr', 'symbol', 'target', 'format', 'time_zone'],
  '<type>': ['dataType', 'length', 'scale', 'definition'],
  '<field>': ['field_name', 'field_type'],
  interval: ['expr', 'unit'],
  extract: ['args'],
  '<extract>': ['field', 'source', 'cast_type'],
  at_time_zone: ['expr', 'time_zone'],
  function: ['name', 'args', 'over'],
  aggr_func: ['name', 'args', 'over'],
  aggr_func_clauses: ['name', 'args', 'over'],
  '<aggregate arguments>': ['distinct', 'expr', 'orderby', 'separator', 'consider_nulls', 'having', 'limit'],
  '<having>': ['prefix', 'expr'],
  '<separator>': ['symbol', 'delimiter'],
  any_value: ['args', 'over'],
  expr_list: ['value'],
  grouping_spec: ['kind', 'items'],
  struct: ['definition', 'expr_list', 'keyword', 'order_by', 'limit'],
  array: ['definition', 'array_path', 'expr_list', 'keyword'],
  origin: ['value'],
  default: ['value'],
  backticks_quote_string: ['value'],
};

/** Kinds the grammar makes that the reader refuses whole, with the name the refusal gives. */
export const REFUSED_KINDS: Readonly<Record<string, string>> = {
  pivot_operator: 'PIVOT',
  unpivot_operator: 'UNPIVOT',
  collate: 'COLLATE',
  var: 'variable',
  'on update': 'ON UPDATE',
  rows: 'ROWS',
  column_format: 'column format',
};

function meaningful(value: unknown): boolean {
  return !(value === null || value === undefined || value === false || value === '' || (Array.isArray(value) && value.length === 0));
}

/**
 * The first key of `node` whose value means something and that the reader does not read for
 * `kind`; undefined when it reads them all.
 */
export function unreadKey(node: AstNode, kind: string): string | undefined {
  const read = READ_KEYS[kind] ?? [];
  return Object.keys(node).find((key) => !SYNTAX_KEYS.has(key) && !read.includes(key) && meaningful(node[key]));
}
