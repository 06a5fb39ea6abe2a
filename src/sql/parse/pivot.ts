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

export interface UnpivotParts {
  /** `INCLUDE NULLS`: keep the rows whose value is NULL (EXCLUDE NULLS, the default, drops them). */
  includeNulls: boolean;
  valueColumn: string;
  nameColumn: string;
  columns: { expr: Expr; name: Expr | undefined }[];
  alias: string | undefined;
}

/**
 * UNPIVOT (grammar patch 30) read as the query it stands for: one UNION ALL member per unpivoted
 * column, each the input's other columns (in its order), that column's value under the values
 * column's name and its name (or the row value alias) under the name column's, without the rows
 * whose value is NULL unless INCLUDE NULLS says so. The input's columns must be listed, as for PIVOT.
 */
export function unpivotTable(input: FromItem, parts: UnpivotParts, ctes: ReadonlyMap<string, Query>): DerivedTable | string {
  if (input.kind !== 'derived' && input.kind !== 'table') return `UNPIVOT over ${input.kind === 'unnest' ? 'UNNEST' : 'a parenthesised join'} (unpivot a subquery of it)`;
  const columns = inputColumns(input, ctes);
  if (typeof columns === 'string') return columns.replace(/^PIVOT/, 'UNPIVOT').replace('pivot a', 'unpivot a');
  const unpivoted: string[] = [];
  for (const { expr, name } of parts.columns) {
    if (expr.kind !== 'column' || expr.table !== undefined || expr.fields.length > 0) return 'UNPIVOT of a qualified name or an expression (GoogleSQL takes column names)';
    const column = columns.find((known) => known.toLowerCase() === expr.name.toLowerCase());
    if (column === undefined) return `UNPIVOT of ${expr.name}, which its input does not have`;
    if (name !== undefined && (name.kind !== 'literal' || name.type !== 'string')) return 'UNPIVOT row value alias other than a string';
    unpivoted.push(column.toLowerCase());
  }
  const kept = columns.filter((name) => !unpivoted.includes(name.toLowerCase()));
  const loc = input.loc;
  const members: QueryBody[] = parts.columns.map(({ expr, name }) => {
    const value = expr as ColumnRef;
    const label: Expr = name ?? { kind: 'literal', type: 'string', value: value.name, loc };
    return {
      kind: 'select',
      distinct: false,
      items: [
        ...kept.map((column): SelectItem => ({ kind: 'item', expr: { kind: 'column', name: column, fields: [], loc }, loc })),
        { kind: 'item', expr: value, alias: parts.valueColumn, loc },
        { kind: 'item', expr: label, alias: parts.nameColumn, loc },
      ],
      // Each member reads the input afresh; a copy, since later passes may rewrite a member's tree.
      from: [structuredClone(input)],
      where: parts.includeNulls ? undefined : { kind: 'binary', operator: 'IS NOT', left: value, right: { kind: 'literal', type: 'null', value: null, loc }, loc },
      groupBy: [],
      windows: [],
      loc,
    };
  });
  const body: QueryBody = members.length === 1 ? members[0]! : { kind: 'set', members, operators: members.slice(1).map(() => 'UNION ALL'), loc };
  return { kind: 'derived', query: { kind: 'query', with: [], body, orderBy: [], loc }, alias: parts.alias, loc };
}
