/**
 * NaN as GoogleSQL defines it, where DuckDB's differs ("Floating point semantics" in the reference;
 * ZetaSQL's comparison_functions, analytic_min_max and orderby compliance tests):
 *
 * - a comparison (`=`, `!=`, `<`, `<=`, `>`, `>=`, BETWEEN, IN) with a NaN operand is FALSE, but
 *   `!=` / `<>` is TRUE, and NULL stays NULL; DuckDB holds NaN equal to NaN and above every number;
 * - ascending, NaN sorts after NULL and before -inf (descending, the other way round); DuckDB
 *   sorts it above +inf;
 * - MIN over a NaN is NaN, as MAX is (DuckDB's MIN passes it by).
 *
 * GROUP BY, DISTINCT and IS [NOT] DISTINCT FROM already agree (NaNs group together). Each
 * rendering applies where an operand is FLOAT64 by the query's text (static-type.ts: a float
 * literal, a CAST, IEEE_DIVIDE, `/`, a FLOAT64 function; a column the query computes as a FLOAT64
 * reaches here cast, rewrites/typed-columns.ts): comparisons of source columns and parameters,
 * what the shipped endpoints compare, are written as before. Stored data holds no NaN (JSON has
 * none); one only comes from an expression.
 */
import type { StaticType } from '../../analyse/static-type.js';
import type { Expr } from '../../parse/tree.js';
import { repeatable } from './semantics.js';

const COMPARISONS: ReadonlySet<string> = new Set(['=', '!=', '<>', '<', '<=', '>', '>=']);

type TypeOf = (expr: Expr) => StaticType | undefined;
type Refuse = (what: string) => never;

export function isComparison(operator: string): boolean {
  return COMPARISONS.has(operator);
}

/**
 * Whether a value can be NaN, and so needs checking: not a number literal, RAND(), or sums,
 * differences, products and negations of those (BigQuery raises an error where they would
 * overflow), nor a value of another type; a column or a parameter can, its type unknown here.
 */
function mayBeNaN(node: Expr, typeOf: TypeOf): boolean {
  const type = typeOf(node);
  if (type !== undefined && type !== 'float64') return false;
  switch (node.kind) {
    case 'literal':
      return false;
    case 'call':
      return node.name !== 'rand';
    case 'unary':
      return node.operator === '-' ? mayBeNaN(node.operand, typeOf) : true;
    case 'binary':
      return ['+', '-', '*'].includes(node.operator) ? mayBeNaN(node.left, typeOf) || mayBeNaN(node.right, typeOf) : true;
    default:
      return true;
  }
}

export interface Operand {
  sql: string;
  node: Expr;
}

/**
 * `left operator right` NaN-aware where an operand is FLOAT64 by the query's text; undefined (as
 * the generator writes it) otherwise. NULL first, as SQL's three values have it (`NULL < NaN` is
 * NULL), then NaN: FALSE, or TRUE for `!=`.
 */
export function nanComparison(operator: string, left: Operand, right: Operand, typeOf: TypeOf, refuse: Refuse): string | undefined {
  if (typeOf(left.node) !== 'float64' && typeOf(right.node) !== 'float64') return undefined;
  const leftNaN = mayBeNaN(left.node, typeOf);
  const rightNaN = mayBeNaN(right.node, typeOf);
  if (!leftNaN && !rightNaN) return undefined;
  // Values written again, not bound once as semantics.ts computedOnce binds them: BETWEEN and IN
  // write their operand in several of these, and nested bindings of its one name would shadow.
  const l = repeatable(left.sql, refuse);
  const r = repeatable(right.sql, refuse);
  const onNaN = operator === '!=' || operator === '<>' ? 'TRUE' : 'FALSE';
  const nans = [...(leftNaN ? [`isnan(${l})`] : []), ...(rightNaN ? [`isnan(${r})`] : [])].join(' OR ');
  return `(CASE WHEN ${l} IS NULL OR ${r} IS NULL THEN NULL WHEN ${nans} THEN ${onNaN} ELSE ${l} ${operator} ${r} END)`;
}

/** `x [NOT] BETWEEN low AND high`, as `x >= low AND x <= high` is, NaN-aware; undefined where no operand is FLOAT64 by the text. */
export function nanBetween(operand: Operand, low: Operand, high: Operand, not: boolean, typeOf: TypeOf, refuse: Refuse): string | undefined {
  if (![operand, low, high].some((item) => typeOf(item.node) === 'float64')) return undefined;
  const x = repeatable(operand.sql, refuse);
  const both = `(${nanComparison('>=', operand, low, typeOf, refuse) ?? `(${x} >= ${low.sql})`} AND ${nanComparison('<=', operand, high, typeOf, refuse) ?? `(${x} <= ${high.sql})`})`;
  return not ? `(NOT ${both})` : both;
}

/** `x [NOT] IN (a, b, ...)`, as `x = a OR x = b ...` is, NaN-aware; undefined where no operand is FLOAT64 by the text. */
export function nanIn(operand: Operand, list: readonly Operand[], not: boolean, typeOf: TypeOf, refuse: Refuse): string | undefined {
  if (![operand, ...list].some((item) => typeOf(item.node) === 'float64')) return undefined;
  const x = repeatable(operand.sql, refuse);
  const any = `(${list.map((item) => nanComparison('=', operand, item, typeOf, refuse) ?? `(${x} = ${item.sql})`).join(' OR ')})`;
  return not ? `(NOT ${any})` : any;
}

/**
 * An ORDER BY key's NaN placed as BigQuery places it, by a key before it: after NULL and before
 * -inf ascending, after -inf and before NULL descending, wherever NULLS FIRST|LAST puts NULL.
 * Undefined where the key is not FLOAT64 by the query's text.
 */
export function nanOrderKey(sql: string, node: Expr, typeOf: TypeOf, direction: 'ASC' | 'DESC' | undefined, nulls: 'FIRST' | 'LAST' | undefined, refuse: Refuse): string | undefined {
  if (node.kind === 'literal' || typeOf(node) !== 'float64') return undefined;
  const key = repeatable(sql, refuse);
  const descending = direction === 'DESC';
  // The key's own NULL placement (the service's default: first ascending, last descending).
  const nullPlace = nulls ?? (descending ? 'LAST' : 'FIRST');
  return `isnan(${key}) ${descending ? 'ASC' : 'DESC'} NULLS ${nullPlace}, ${key}${direction ? ` ${direction}` : ''}${nulls ? ` NULLS ${nulls}` : ''}`;
}
