/**
 * cannery's query tree: the one typed form of a BigQuery query that every stage reads. The parser's
 * AST is read into it once (to-tree.ts); static analysis, the sandbox rules, the rewrites each backend
 * needs and the one SQL generator all work on it, so none of them depends on how node-sql-parser
 * happens to shape a node in a given context.
 *
 * A construct cannery does not know is kept as an `unknown` node naming it: the generator refuses
 * it, in one place, for the backend it writes for.
 */
import type { SqlLocation } from './errors.js';
import type { ColumnType } from '../../core/types.js';

interface Node {
  /** Where the construct starts in the SQL text, when the parser said. */
  loc?: SqlLocation | undefined;
}

// ---------------------------------------------------------------------------------------------
// Queries

export interface Query extends Node {
  kind: 'query';
  with: Cte[];
  body: QueryBody;
  orderBy: OrderItem[];
  limit?: Limit | undefined;
  /** Set by a dialect's rewrite on the outermost query: its columns to write back as rows are converted, by name. */
  writeBack?: Record<string, WriteBack> | undefined;
}

/**
 * A value the backend stores otherwise than BigQuery types it, written back into BigQuery's type
 * as rows are converted (dialects/duckdb/rewrites/stored-records.ts): `list`, a record stored as its one STRUCT
 * becomes a one-element list; `fields`, its fields that hold such records. NULL stays NULL.
 */
export interface WriteBack {
  list: boolean;
  fields: Record<string, WriteBack>;
  /**
   * Set on a column the SQL hands over as DuckDB's JSON text of it (`to_json`), its type as stored:
   * the backend reads the text with JSON.parse and finishes the wire value from this type (an
   * INT64 past 2^53 as its digits, a NULL array as `[]`; backends/duckdb/json-column.ts).
   */
  json?: ColumnType | undefined;
}

/** A SELECT, a set operation of them, or a parenthesised query with its own ORDER BY / LIMIT. */
export type QueryBody = Select | SetOperation | Query;

export interface Cte extends Node {
  name: string;
  query: Query;
  /**
   * Set on an endpoint's own CTEs where a caller's sandbox query joins them (sql/sandbox/rules.ts):
   * generated sealed, the query reads a source table only in the body of such a CTE.
   */
  endpoint?: true | undefined;
}

/** `a UNION ALL b UNION DISTINCT c`: members in order, `operators[i]` between members i and i+1. */
export interface SetOperation extends Node {
  kind: 'set';
  members: QueryBody[];
  operators: SetOperator[];
  /** Columns matched by name rather than by place (`BY NAME`, `CORRESPONDING`): the same for every operator. */
  byName?: SetByName | undefined;
}

/**
 * How a set operation matches columns by name (GoogleSQL's `BY NAME` and `CORRESPONDING`):
 * `strict`, every input has the same names (`BY NAME`, `STRICT CORRESPONDING`); `inner`, the names
 * every input has (`INNER ... BY NAME`, `CORRESPONDING`); `full`, every name, NULL where an input
 * lacks it; `left`, the first input's names. `columns` (`ON (...)`, `BY (...)`) names the result's
 * columns and their order.
 */
export interface SetByName {
  mode: 'strict' | 'inner' | 'full' | 'left';
  columns?: string[] | undefined;
}

export type SetOperator = 'UNION ALL' | 'UNION DISTINCT' | 'INTERSECT ALL' | 'INTERSECT DISTINCT' | 'EXCEPT ALL' | 'EXCEPT DISTINCT';

export interface Limit {
  count: Expr;
  offset?: Expr | undefined;
}

export interface Select extends Node {
  kind: 'select';
  distinct: boolean;
  /** `SELECT AS STRUCT` (each row one STRUCT of the items) or `SELECT AS VALUE` (each row its one item's value). */
  as?: 'struct' | 'value' | undefined;
  items: SelectItem[];
  /** FROM items in order; each after the first says how it joins the ones before. */
  from: FromItem[];
  where?: Expr | undefined;
  groupBy: Expr[];
  /** `GROUP BY ROLLUP (...)`, `CUBE (...)` or `GROUPING SETS (...)`: its sets over `groupBy`'s expressions. */
  grouping?: GroupingSpec | undefined;
  having?: Expr | undefined;
  qualify?: Expr | undefined;
  /** `WINDOW w AS (...)`. */
  windows: NamedWindow[];
}

/**
 * ROLLUP, CUBE or GROUPING SETS. Each item is a list of indexes into the SELECT's `groupBy` (one
 * expression, a parenthesised list of them, or `()`, the empty set), or, in GROUPING SETS, a ROLLUP
 * or CUBE. The expressions stay in `groupBy` so that every pass over a GROUP BY reads them.
 */
export interface GroupingSpec {
  kind: 'rollup' | 'cube' | 'grouping sets';
  items: (number[] | GroupingSpec)[];
}

export interface NamedWindow {
  name: string;
  spec: WindowSpec;
}

export type SelectItem = ExprItem | StarItem;

export interface ExprItem extends Node {
  kind: 'item';
  expr: Expr;
  alias?: string | undefined;
}

/** `*`, `t.*`, with BigQuery's `EXCEPT (...)` and `REPLACE (... AS name)`. */
export interface StarItem extends Node {
  kind: 'star';
  table?: string | undefined;
  except: string[];
  replace: { expr: Expr; alias: string }[];
}

export type JoinType = ',' | 'JOIN' | 'INNER JOIN' | 'LEFT JOIN' | 'LEFT OUTER JOIN' | 'RIGHT JOIN' | 'RIGHT OUTER JOIN' | 'FULL JOIN' | 'FULL OUTER JOIN' | 'CROSS JOIN';

export interface Join {
  type: JoinType;
  on?: Expr | undefined;
  using?: string[] | undefined;
}

/** An `unknown` stands for a FROM item the tree does not keep (a table function). */
export type FromItem = TableRef | DerivedTable | UnnestRef | JoinGroup | Unknown;

interface FromNode extends Node {
  alias?: string | undefined;
  /** Absent on the first item. */
  join?: Join | undefined;
}

/** A named relation: a source (`cloudflare.logs.prod`) or a CTE. */
export interface TableRef extends FromNode {
  kind: 'table';
  /** The name as written, parts joined by dots. */
  name: string;
  /** Whether the name was written with a dataset/project qualifier (`db.table`): then it is never a CTE. */
  qualified: boolean;
}

export interface DerivedTable extends FromNode {
  kind: 'derived';
  query: Query;
  /**
   * An UNPIVOT's query (pivot.ts): how many values columns each member selects before its label,
   * whose types must agree place by place, as analyse/unpivot-types.ts checks once they are known.
   */
  unpivotValues?: number | undefined;
}

/** `(a CROSS JOIN UNNEST(a.m) AS m)`: joined FROM items in parentheses, joined as one; no alias. */
export interface JoinGroup extends FromNode {
  kind: 'join_group';
  items: FromItem[];
}

export interface UnnestRef extends FromNode {
  kind: 'unnest';
  array: Expr;
  /** `WITH OFFSET [AS name]`: the name, `offset` when none is given. */
  offsetAlias?: string | undefined;
  /**
   * The element column's own name, for dialects whose UNNEST is a relation with a column
   * (`UNNEST(x) AS u(element)`). Only rewrites set it; BigQuery has no such form.
   */
  columnAlias?: string | undefined;
}

// ---------------------------------------------------------------------------------------------
// Expressions

export type Expr =
  | ColumnRef
  | Param
  | Literal
  | Unary
  | Binary
  | Between
  | InList
  | InQuery
  | InUnnest
  | QuantifiedLike
  | Exists
  | ScalarSubquery
  | Case
  | Cast
  | Interval
  | Extract
  | Call
  | DatePart
  | StarArgument
  | Subscript
  | FieldAccess
  | ArrayLiteral
  | ArrayQuery
  | StructLiteral
  | NativeCall
  | Unknown;

/**
 * A name, as the parser split it: `t.a.b` is table `t`, column `a`, field `b`; `a` alone is a
 * column, a field of an UNNEST element, or an UNNEST alias, which name resolution decides.
 */
export interface ColumnRef extends Node {
  kind: 'column';
  table?: string | undefined;
  name: string;
  fields: string[];
}

export interface Param extends Node {
  kind: 'param';
  name: string;
  /**
   * Set on parameters a dialect's rewrite adds, whose values the engine works out from a caller's
   * parameter on each request (derived-parameters.ts). Never produced by reading SQL.
   */
  derived?: DerivedParameter | undefined;
}

/**
 * A value worked out from parameter `of`, a regular expression: the `index`-th literal it requires
 * (regex-literals.ts), or whether those literals are all it matches.
 */
export type DerivedParameter = { kind: 'required_literal'; of: string; index: number } | { kind: 'literals_exact'; of: string };

export type LiteralType = 'string' | 'bytes' | 'int64' | 'float64' | 'numeric' | 'bignumeric' | 'bool' | 'null' | 'date' | 'datetime' | 'timestamp' | 'time' | 'json';

export interface Literal extends Node {
  kind: 'literal';
  type: LiteralType;
  /**
   * Strings decoded; numbers as written; typed literals (`DATE '...'`) their text; bytes as their
   * hex digits (`b'AB'` -> `4142`); bool and null as such.
   */
  value: string | boolean | null;
}

export interface Unary extends Node {
  kind: 'unary';
  operator: 'NOT' | '-' | '+' | '~';
  operand: Expr;
}

export type BinaryOperator =
  | 'AND' | 'OR'
  | '=' | '!=' | '<>' | '<' | '>' | '<=' | '>='
  | '+' | '-' | '*' | '/' | '||' | '&' | '|' | '^' | '<<' | '>>'
  | 'LIKE' | 'NOT LIKE' | 'IS' | 'IS NOT' | 'IS DISTINCT FROM' | 'IS NOT DISTINCT FROM';

export interface Binary extends Node {
  kind: 'binary';
  operator: BinaryOperator;
  left: Expr;
  right: Expr;
}

export interface Between extends Node {
  kind: 'between';
  not: boolean;
  operand: Expr;
  low: Expr;
  high: Expr;
}

export interface InList extends Node {
  kind: 'in_list';
  not: boolean;
  operand: Expr;
  list: Expr[];
}

export interface InQuery extends Node {
  kind: 'in_query';
  not: boolean;
  operand: Expr;
  query: Query;
}

export interface InUnnest extends Node {
  kind: 'in_unnest';
  not: boolean;
  operand: Expr;
  array: Expr;
}

/**
 * `x [NOT] LIKE ANY | SOME | ALL (p1, p2)` or `... UNNEST(array)`: each pattern matched as LIKE
 * matches (NOT LIKE for `not`), the answers joined by OR (ANY, SOME) or AND (ALL). An UNNEST of
 * an empty or NULL array has no answers: FALSE for ANY, TRUE for ALL.
 */
export interface QuantifiedLike extends Node {
  kind: 'quantified_like';
  not: boolean;
  quantifier: 'ANY' | 'SOME' | 'ALL';
  operand: Expr;
  /** The patterns written in parentheses; empty for the UNNEST form. */
  list: Expr[];
  /** The array of the UNNEST form. */
  array?: Expr | undefined;
}

export interface Exists extends Node {
  kind: 'exists';
  not: boolean;
  query: Query;
}

export interface ScalarSubquery extends Node {
  kind: 'subquery';
  query: Query;
}

export interface Case extends Node {
  kind: 'case';
  subject?: Expr | undefined;
  whens: { when: Expr; then: Expr }[];
  else?: Expr | undefined;
}

/**
 * A type as written (`INT64`, `BIGINT`, `NUMERIC(10, 2)`, `ARRAY<STRING>`, `STRUCT<a INT64>`): the
 * name upper-case as written, which the language table maps to each dialect's type.
 */
export interface TypeName {
  name: string;
  /** `NUMERIC(10, 2)`, `STRING(3)`. */
  params?: number[] | undefined;
  /** ARRAY's element type. */
  element?: TypeName | undefined;
  /** STRUCT's fields. */
  fields?: { name?: string | undefined; type: TypeName }[] | undefined;
}

export interface Cast extends Node {
  kind: 'cast';
  safe: boolean;
  operand: Expr;
  type: TypeName;
  /** `CAST(x AS STRING FORMAT 'YYYY')`: the format model. */
  format?: Expr | undefined;
  /** `... FORMAT '...' AT TIME ZONE 'Asia/Tokyo'`. */
  timeZone?: Expr | undefined;
}

export interface Interval extends Node {
  kind: 'interval';
  value: Expr;
  /** Lower case: `minute`, `day`. */
  unit: string;
}

export interface Extract extends Node {
  kind: 'extract';
  /** Lower case: `hour`, `dayofweek`, `date`, `week`. */
  part: string;
  /** `WEEK(<weekday>)`, lower case. */
  weekday?: string | undefined;
  source: Expr;
  /** `EXTRACT(part FROM ts AT TIME ZONE tz)`. */
  timeZone?: Expr | undefined;
}

export interface OrderItem {
  expr: Expr;
  direction?: 'ASC' | 'DESC' | undefined;
  nulls?: 'FIRST' | 'LAST' | undefined;
}

export interface WindowSpec {
  /** `OVER w` or `OVER (w ...)`: a named window this one starts from. */
  name?: string | undefined;
  partitionBy: Expr[];
  orderBy: OrderItem[];
  /** Set when the window has a frame clause (`ROWS BETWEEN ...`), which the tree does not model yet. */
  frame?: string | undefined;
}

/**
 * A function call, aggregates and analytic functions included. `name` is lower case with any
 * prefix (`safe.parse_json`, `net.host`); `COUNT(*)` has the single argument `star_argument`.
 * STRING_AGG's delimiter is its second argument.
 */
export interface Call extends Node {
  kind: 'call';
  name: string;
  args: Expr[];
  /** Named arguments after the positional ones (`MAKE_INTERVAL(1, day => 2)`), names lower case. */
  named?: NamedArgument[] | undefined;
  distinct?: boolean | undefined;
  /** Aggregate ORDER BY / LIMIT (`ARRAY_AGG(x ORDER BY y LIMIT 5)`). */
  orderBy?: OrderItem[] | undefined;
  limit?: Expr | undefined;
  /** `IGNORE NULLS` (true) or `RESPECT NULLS` (false). */
  ignoreNulls?: boolean | undefined;
  /** `HAVING MAX k` / `HAVING MIN k`: only the group's rows whose `k` equals its largest (smallest) `k`. */
  having?: { extreme: 'MAX' | 'MIN'; expr: Expr } | undefined;
  over?: WindowSpec | undefined;
}

export interface NamedArgument {
  name: string;
  value: Expr;
}

/** A date part written as a keyword argument (`TIMESTAMP_TRUNC(ts, HOUR)`, `WEEK(MONDAY)`). */
export interface DatePart extends Node {
  kind: 'date_part';
  /** Lower case. */
  part: string;
  /** `WEEK(<weekday>)`, lower case. */
  weekday?: string | undefined;
}

/** `*` as an argument (`COUNT(*)`). */
export interface StarArgument extends Node {
  kind: 'star_argument';
}

export type SubscriptMode = 'OFFSET' | 'SAFE_OFFSET' | 'ORDINAL' | 'SAFE_ORDINAL' | 'INDEX';

/** `a[OFFSET(i)]`; INDEX is the bare `a[i]` (zero-based, like OFFSET). */
export interface Subscript extends Node {
  kind: 'subscript';
  array: Expr;
  mode: SubscriptMode;
  index: Expr;
}

/** `(expr).name`: a field of a struct-valued expression that is not a plain name. */
export interface FieldAccess extends Node {
  kind: 'field';
  operand: Expr;
  name: string;
}

export interface ArrayLiteral extends Node {
  kind: 'array';
  elements: Expr[];
  /** `ARRAY<INT64>[...]`: the element type as written. */
  elementType?: TypeName | undefined;
}

export interface ArrayQuery extends Node {
  kind: 'array_query';
  query: Query;
}

/** `STRUCT(1 AS a, x)`, `STRUCT<a INT64, b STRING>(1, 'x')`, or the tuple `(a, b)`. */
export interface StructLiteral extends Node {
  kind: 'struct';
  fields: { expr: Expr; name?: string | undefined }[];
  /** `STRUCT<...>(...)`: the declared type, whose field names and types win. */
  type?: TypeName | undefined;
  /** Written as a tuple `(a, b)` rather than with the STRUCT keyword. */
  tuple?: boolean | undefined;
}

/**
 * A call a dialect's rewrite writes in that dialect's own terms (DuckDB's `unnest`, `len`): never
 * produced by reading SQL, so a caller can never name one, and printed as written.
 */
export interface NativeCall extends Node {
  kind: 'native';
  name: string;
  args: Expr[];
}

/** What the reader could not place in this tree; `what` names it for the message that refuses it. */
export interface Unknown extends Node {
  kind: 'unknown';
  what: string;
  /**
   * What the reader found BigQuery rejects (an UNPIVOT of columns of two types): `what` is
   * BigQuery's message, raised as an invalid query where the node is written, not as a refusal.
   */
  invalid?: true | undefined;
}
