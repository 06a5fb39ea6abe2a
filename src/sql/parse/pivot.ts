/**
 * PIVOT (grammar patch 28) read as the query it stands for, so that every later pass (names,
 * sandbox, redaction, both generators) sees only constructs it knows:
 *
 *   FROM input PIVOT(SUM(v) AS s, COUNT(*) AS n FOR k IN ('a', 'b' AS bee)) AS p
 *   -> FROM (SELECT g..., SUM(IF(k IS NOT DISTINCT FROM 'a', v, NULL)) AS s_a,
 *                         COUNTIF(k IS NOT DISTINCT FROM 'a') AS n_a, ... _bee
 *            FROM input GROUP BY g...) AS p
 *
 * where g... are the input's columns that neither an aggregate nor `k` reads, in the input's order
 * (GoogleSQL's implicit grouping). The rewrite is exact by GoogleSQL's own rules for PIVOT: an
 * aggregate takes one argument and ignores NULL inputs (COUNT(*) aside), so the rows of another
 * value, given as NULL, change nothing; a NULL pivot value takes the rows whose `k` is NULL, as
 * IS NOT DISTINCT FROM does. What cannot be made exact this way is refused by name: an input whose
 * columns the query does not list, an aggregate that keeps NULLs or takes clauses the rows of
 * another value would change (HAVING MAX, LIMIT), and a value whose column name is not known.
 */
import { InvalidQuery, type SqlLocation } from './errors.js';
import type { Call, ColumnRef, DerivedTable, Expr, FromItem, Query, QueryBody, SelectItem, TableRef } from './tree.js';
import { walkTree } from './walk.js';

export interface PivotParts {
  aggregates: { expr: Expr; alias: string | undefined }[];
  column: Expr;
  values: { expr: Expr; alias: string | undefined }[];
  alias: string | undefined;
}

/**
 * GoogleSQL's PIVOT aggregates that ignore NULL inputs and take one argument (COUNT also `*`).
 * ARRAY_AGG keeps NULLs and STRING_AGG's delimiter is a second argument: GoogleSQL refuses both.
 */
const NULL_IGNORING_AGGREGATES = new Set(['SUM', 'AVG', 'MIN', 'MAX', 'COUNT', 'COUNTIF', 'LOGICAL_AND', 'LOGICAL_OR', 'BIT_AND', 'BIT_OR', 'BIT_XOR', 'ANY_VALUE', 'STRING_AGG']);

/** The pivot as a derived table, or why it is refused (a construct's name for the refusal). */
export function pivotTable(input: FromItem, parts: PivotParts, ctes: ReadonlyMap<string, Query>): DerivedTable | string {
  if (input.kind !== 'derived' && input.kind !== 'table') return `PIVOT over ${input.kind === 'unnest' ? 'UNNEST' : 'a parenthesised join'} (pivot a subquery of it)`;
  const columns = inputColumns(input, ctes);
  if (typeof columns === 'string') return columns;
  const names = parts.values.map((value) => (value.alias === undefined ? valueName(value.expr) : { alone: value.alias, after: value.alias }));
  if (names.includes(undefined)) return 'PIVOT value without an alias whose column name is not an integer, string, DATE or NULL literal (name it with AS)';
  if (parts.aggregates.some((aggregate) => aggregate.alias !== undefined) && names.some((name) => name?.after === undefined)) return 'PIVOT value of type DATE without an alias beside an aggregate alias (name it with AS)';
  if (parts.values.some((value) => !constant(value.expr))) return 'PIVOT value other than a constant';
  if (parts.aggregates.length > 1 && parts.aggregates.some((aggregate) => aggregate.alias === undefined)) return 'PIVOT with several aggregates, one without an alias';
  for (const { expr } of parts.aggregates) {
    const refused = aggregateRefusal(expr);
    if (refused !== undefined) return refused;
  }
  if (!plain(parts.column)) return 'PIVOT FOR a column inside a subquery';

  const inputAlias = input.alias ?? (input.kind === 'table' ? input.name : undefined);
  const read = new Set<string>();
  for (const expr of [parts.column, ...parts.aggregates.map((aggregate) => aggregate.expr)]) {
    walkTree(expr, (node) => {
      if ('kind' in node && node.kind === 'column') read.add(columnRead(node, inputAlias).toLowerCase());
    });
  }
  const grouping: ColumnRef[] = columns.filter((name) => !read.has(name.toLowerCase())).map((name) => ({ kind: 'column', name, fields: [], loc: input.loc }));
  const loc = parts.column.loc;
  const pivoted: SelectItem[] = parts.values.flatMap((value, index) => {
    const matches: Expr = { kind: 'binary', operator: 'IS NOT DISTINCT FROM', left: parts.column, right: value.expr, loc };
    return parts.aggregates.map(({ expr, alias }): SelectItem => ({
      kind: 'item',
      expr: onlyMatching(expr as Call, matches),
      alias: alias === undefined ? names[index]!.alone : `${alias}_${names[index]!.after!}`,
      loc: expr.loc,
    }));
  });
  const body: QueryBody = {
    kind: 'select',
    distinct: false,
    items: [...grouping.map((column): SelectItem => ({ kind: 'item', expr: column, loc: column.loc })), ...pivoted],
    from: [input],
    groupBy: grouping,
    windows: [],
    loc: input.loc,
  };
  return { kind: 'derived', query: { kind: 'query', with: [], body, orderBy: [], loc: input.loc }, alias: parts.alias, loc: input.loc };
}

/** The input's column names in order: a subquery's or a CTE's items, each named. */
function inputColumns(input: TableRef | DerivedTable, ctes: ReadonlyMap<string, Query>): string[] | string {
  let query: Query | undefined;
  if (input.kind === 'derived') query = input.query;
  else if (input.kind === 'table' && !input.qualified) query = ctes.get(input.name.toLowerCase());
  if (query === undefined) return 'PIVOT over a table whose columns the query does not list (pivot a subquery that names them)';
  let body: QueryBody = query.body;
  // A set operation's columns are its first member's.
  while (body.kind !== 'select') body = body.kind === 'set' ? body.members[0]! : body.body;
  const names: string[] = [];
  for (const item of body.items) {
    if (item.kind === 'star') return 'PIVOT over a subquery that selects * (name its columns)';
    const name = item.alias ?? (item.expr.kind === 'column' ? (item.expr.fields.at(-1) ?? item.expr.name) : undefined);
    if (name === undefined) return 'PIVOT over a subquery with an unnamed column';
    if (names.some((known) => known.toLowerCase() === name.toLowerCase())) return 'PIVOT over a subquery with two columns of one name';
    names.push(name);
  }
  return names;
}

/**
 * The input column a reference reads: `s.x` (s the input's alias) reads x, `x.f` reads x (a field
 * of it), `x` reads x. A name the input lacks is an outer query's and groups nothing.
 */
function columnRead(ref: ColumnRef, inputAlias: string | undefined): string {
  if (ref.table === undefined) return ref.name;
  return inputAlias !== undefined && ref.table.toLowerCase() === inputAlias.toLowerCase() ? ref.name : ref.table;
}

/** No subquery below: the columns it reads would be its own, which the grouping must not count. */
function plain(expr: Expr): boolean {
  let found = false;
  walkTree(expr, (node) => {
    if ('kind' in node && node.kind === 'query') found = true;
  });
  return !found;
}

function constant(expr: Expr): boolean {
  let found = false;
  walkTree(expr, (node) => {
    if ('kind' in node && (node.kind === 'column' || node.kind === 'param' || node.kind === 'query')) found = true;
  });
  return !found;
}

function aggregateRefusal(expr: Expr): string | undefined {
  if (expr.kind !== 'call' || !NULL_IGNORING_AGGREGATES.has(expr.name.toUpperCase())) {
    return `PIVOT aggregate ${expr.kind === 'call' ? expr.name.toUpperCase() : 'other than a call'} (GoogleSQL takes aggregates of one argument that ignore NULLs)`;
  }
  const name = expr.name.toUpperCase();
  if (expr.args.length !== 1 || (expr.named?.length ?? 0) > 0) return `PIVOT aggregate ${name} of other than one argument`;
  if (expr.over !== undefined) return `PIVOT aggregate ${name} with OVER`;
  if (expr.having !== undefined) return `PIVOT aggregate ${name} with HAVING ${expr.having.extreme}`;
  if (expr.limit !== undefined || expr.ignoreNulls !== undefined) return `PIVOT aggregate ${name} with LIMIT or IGNORE | RESPECT NULLS`;
  if (expr.orderBy !== undefined && expr.orderBy.length > 0 && name !== 'STRING_AGG') return `PIVOT aggregate ${name} with ORDER BY`;
  if (expr.args[0]!.kind === 'star_argument' && name !== 'COUNT') return `PIVOT aggregate ${name}(*)`;
  if (!plain(expr)) return `PIVOT aggregate ${name} over a subquery`;
  return undefined;
}

/** The aggregate over the rows `matches` keeps: its argument NULL elsewhere; COUNT(*) a COUNTIF. */
function onlyMatching(call: Call, matches: Expr): Call {
  const loc = call.loc;
  if (call.args[0]!.kind === 'star_argument') return { kind: 'call', name: 'countif', args: [matches], loc };
  const kept: Call = { kind: 'call', name: 'if', args: [matches, call.args[0]!, { kind: 'literal', type: 'null', value: null, loc }], loc };
  return { ...call, args: [kept] };
}

/**
 * GoogleSQL's column name for a pivot value without an alias, alone and after an aggregate's alias
 * and `_` (its compliance tests: `_100` alone, `pivot_sum_100` after): an integer `_1` / `minus_1`,
 * a DATE `_2013_11_25` (alone), a string itself, NULL `NULL`. Others (BOOL, whose case the reference and
 * its tests disagree on; NUMERIC, whose text GoogleSQL normalises) are left to an alias.
 */
function valueName(expr: Expr): { alone: string; after: string | undefined } | undefined {
  let negative = false;
  let value = expr;
  if (value.kind === 'unary' && value.operator === '-') (negative = true), (value = value.operand);
  if (value.kind !== 'literal') return undefined;
  if (value.type === 'int64' && typeof value.value === 'string' && /^-?\d+$/.test(value.value)) {
    const digits = BigInt(value.value);
    const signed = negative ? -digits : digits;
    return signed < 0n ? { alone: `minus_${(-signed).toString()}`, after: `minus_${(-signed).toString()}` } : { alone: `_${signed.toString()}`, after: signed.toString() };
  }
  if (negative) return undefined;
  if (value.type === 'string' && typeof value.value === 'string') return { alone: value.value, after: value.value };
  if (value.type === 'null') return { alone: 'NULL', after: 'NULL' };
  if (value.type === 'date' && typeof value.value === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(value.value)) {
    // After an alias, unseen in the reference and its tests: left to the value's alias.
    return { alone: `_${value.value.replace(/-/g, '_')}`, after: undefined };
  }
  return undefined;
}

export interface UnpivotSet {
  /** The input's columns turned into one row: one, or one per values column. */
  columns: Expr[];
  /** The row value alias (a string or an integer literal); absent, the columns' names joined by `_`. */
  label: Expr | undefined;
  loc: SqlLocation | undefined;
}

export interface UnpivotParts {
  /** `INCLUDE NULLS`: keep the rows whose values are all NULL (EXCLUDE NULLS, the default, drops them). */
  includeNulls: boolean;
  valueColumns: string[];
  nameColumn: string;
  sets: UnpivotSet[];
  alias: string | undefined;
  loc: SqlLocation | undefined;
}

/**
 * UNPIVOT (grammar patch 30) read as the query it stands for: one UNION ALL member per column set
 * (a set of one column where one values column is named), each the input's other columns (in its
 * order), the set's values under the values columns' names and its label under the name column's,
 * without the rows whose values are all NULL unless INCLUDE NULLS says so (GoogleSQL's rewrite
 * keeps a row where any value is not NULL). The input's columns must be listed, as for PIVOT.
 *
 * What GoogleSQL's resolver rejects is an error with its message (its unpivot.test): sets of
 * different sizes, or of another size than the values columns; a column named twice; labels of
 * two types. Its rule on the columns' types (each place of every set of the first set's type) is
 * checked once the query is read, by the types analyse/unpivot-types.ts works out; the derived
 * table says how many values columns its members select for it.
 */
export function unpivotTable(input: FromItem, parts: UnpivotParts, ctes: ReadonlyMap<string, Query>): DerivedTable | string {
  if (input.kind !== 'derived' && input.kind !== 'table') return `UNPIVOT over ${input.kind === 'unnest' ? 'UNNEST' : 'a parenthesised join'} (unpivot a subquery of it)`;
  const columns = inputColumns(input, ctes);
  if (typeof columns === 'string') return columns.replace(/^PIVOT/, 'UNPIVOT').replace('pivot a', 'unpivot a');
  const width = parts.sets[0]!.columns.length;
  const seen = new Set<string>();
  let labelKind: 'string' | 'int64' | undefined;
  for (const set of parts.sets) {
    if (set.columns.length !== width) throw new InvalidQuery('All column groups in UNPIVOT IN clause must have the same number of columns', set.loc);
    for (const expr of set.columns) {
      if (expr.kind !== 'column' || expr.table !== undefined || expr.fields.length > 0) return 'UNPIVOT of a qualified name or an expression (GoogleSQL takes column names)';
      const index = columns.findIndex((known) => known.toLowerCase() === expr.name.toLowerCase());
      if (index < 0) return `UNPIVOT of ${expr.name}, which its input does not have`;
      if (seen.has(expr.name.toLowerCase())) throw new InvalidQuery('Column names in UNPIVOT IN clause cannot be repeated', expr.loc);
      seen.add(expr.name.toLowerCase());
    }
    const kind = labelKindOf(set);
    if (labelKind !== undefined && kind !== labelKind) {
      throw new InvalidQuery('All UNPIVOT labels must be the same type; when non-string labels are present then all labels must be explicitly provided', set.loc);
    }
    labelKind = kind;
  }
  if (parts.valueColumns.length !== width) {
    throw new InvalidQuery('The number of new columns introduced as value columns must be the same as the number of columns in the column groups of UNPIVOT IN clause', parts.loc);
  }
  if (input.kind === 'derived' && sameColumnTwice(input.query, columns, seen)) {
    return 'UNPIVOT of two columns of a subquery that select one column (BigQuery may hold them one column; select it once)';
  }
  const kept = columns.filter((name) => !seen.has(name.toLowerCase()));
  const output = [...kept, ...parts.valueColumns, parts.nameColumn].map((name) => name.toLowerCase());
  if (new Set(output).size < output.length) return 'UNPIVOT whose result has two columns of one name (rename the values or name column)';
  const loc = input.loc;
  const members: QueryBody[] = parts.sets.map((set): QueryBody => {
    const values = set.columns as ColumnRef[];
    const label: Expr = set.label ?? { kind: 'literal', type: 'string', value: values.map((value) => value.name).join('_'), loc: set.loc };
    const present = values
      .map((value): Expr => ({ kind: 'binary', operator: 'IS NOT', left: value, right: { kind: 'literal', type: 'null', value: null, loc }, loc }))
      .reduce((either, next): Expr => ({ kind: 'binary', operator: 'OR', left: either, right: next, loc }));
    return {
      kind: 'select',
      distinct: false,
      items: [
        ...kept.map((column): SelectItem => ({ kind: 'item', expr: { kind: 'column', name: column, fields: [], loc }, loc })),
        ...values.map((value, index): SelectItem => ({ kind: 'item', expr: value, alias: parts.valueColumns[index], loc })),
        { kind: 'item', expr: label, alias: parts.nameColumn, loc },
      ],
      // Each member reads the input afresh; a copy, since later passes may rewrite a member's tree.
      from: [structuredClone(input)],
      where: parts.includeNulls ? undefined : present,
      groupBy: [],
      windows: [],
      loc,
    };
  });
  const body: QueryBody = members.length === 1 ? members[0]! : { kind: 'set', members, operators: members.slice(1).map(() => 'UNION ALL'), loc };
  return { kind: 'derived', query: { kind: 'query', with: [], body, orderBy: [], loc }, alias: parts.alias, unpivotValues: width, loc };
}

/** A set's label type: its alias's (a string, or an integer within INT64), or a string of its columns' names. */
function labelKindOf(set: UnpivotSet): 'string' | 'int64' {
  const label = set.label;
  if (label === undefined) return 'string';
  if (label.kind === 'literal' && label.type === 'string') return 'string';
  if (label.kind === 'literal' && label.type === 'int64' && /^\d+$/.test(String(label.value)) && BigInt(String(label.value)) <= 9223372036854775807n) return 'int64';
  throw new InvalidQuery('Invalid integer label for UNPIVOT clause (a label is a string or an INT64 literal)', label.loc ?? set.loc);
}

/** Whether two unpivoted columns of a subquery are the one column it reads (`SELECT x AS a, x AS b`): GoogleSQL then sees a column named twice. */
function sameColumnTwice(query: Query, columns: readonly string[], unpivoted: ReadonlySet<string>): boolean {
  if (query.body.kind !== 'select') return false;
  const read = new Set<string>();
  for (const [index, item] of query.body.items.entries()) {
    if (item.kind !== 'item' || item.expr.kind !== 'column' || !unpivoted.has(columns[index]!.toLowerCase())) continue;
    const name = (item.expr.fields.at(-1) ?? item.expr.name).toLowerCase();
    if (read.has(name)) return true;
    read.add(name);
  }
  return false;
}
