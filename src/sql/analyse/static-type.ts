/**
 * The BigQuery type of an expression where the query text alone says it: literals, casts, the
 * results of functions whose type the language table declares, arithmetic and comparisons of
 * those. Columns and parameters are not known here; a rendering that depends on their type lets
 * DuckDB choose at run time (dialects/duckdb/semantics.ts `byType`).
 */
import type { Call, Case, ColumnRef, Expr } from '../parse/tree.js';

export type StaticType = 'int64' | 'float64' | 'numeric' | 'bignumeric' | 'string' | 'bytes' | 'bool' | 'date' | 'datetime' | 'timestamp' | 'time' | 'interval' | 'json';

/**
 * A function's result type: fixed, or the type of one of its arguments (`COALESCE`, `MIN`), an
 * INT64 argument perhaps giving another (`CEIL` of an INT64 is a FLOAT64), as may a STRING or DATE
 * argument read as another type (DATETIME_TRUNC of either is a DATETIME).
 */
export type ResultType = StaticType | { sameAs: number; int64?: StaticType; string?: StaticType; date?: StaticType };

export interface TypeLookup {
  /** The declared result type of a function call, if any. */
  result(call: Call): ResultType | undefined;
  /** The type a CAST target names, if known (`INT64` -> int64). */
  cast(type: string): StaticType | undefined;
  /** The type of a column where the caller knows it (its definition's type in the query); else unknown. */
  column?(ref: ColumnRef): StaticType | undefined;
}

const LITERAL_TYPES: Readonly<Partial<Record<string, StaticType>>> = {
  string: 'string',
  bytes: 'bytes',
  int64: 'int64',
  float64: 'float64',
  numeric: 'numeric',
  bignumeric: 'bignumeric',
  bool: 'bool',
  date: 'date',
  datetime: 'datetime',
  timestamp: 'timestamp',
  time: 'time',
  json: 'json',
};

const ARITHMETIC: ReadonlySet<string> = new Set(['+', '-', '*', '/']);

const BITWISE_OPERATORS: ReadonlySet<string> = new Set(['&', '|', '^', '<<', '>>']);

const BOOLEAN_OPERATORS: ReadonlySet<string> = new Set(['AND', 'OR', '=', '!=', '<>', '<', '>', '<=', '>=', 'LIKE', 'NOT LIKE', 'IS', 'IS NOT', 'IS DISTINCT FROM', 'IS NOT DISTINCT FROM']);

function isNumeric(type: StaticType | undefined): boolean {
  return type === 'int64' || type === 'float64' || type === 'numeric' || type === 'bignumeric';
}

/**
 * Date and time arithmetic (GoogleSQL's operators): DATE +/- INT64 is a DATE; a DATE, DATETIME or
 * TIMESTAMP +/- an INTERVAL keeps its type, a DATE becoming a DATETIME; the difference of two
 * values of one of those types is an INTERVAL, as are INTERVALs added, subtracted and scaled.
 */
function timeArithmetic(operator: string, left: StaticType | undefined, right: StaticType | undefined): StaticType | undefined {
  const additive = operator === '+' || operator === '-';
  if (left === 'date' && right === 'int64' && additive) return 'date';
  if (left === 'int64' && right === 'date' && operator === '+') return 'date';
  if (right === 'interval' && additive && (left === 'date' || left === 'datetime' || left === 'timestamp')) return left === 'date' ? 'datetime' : left;
  if (left === 'interval' && operator === '+' && (right === 'date' || right === 'datetime' || right === 'timestamp')) return right === 'date' ? 'datetime' : right;
  if (operator === '-' && left === right && (left === 'date' || left === 'datetime' || left === 'timestamp')) return 'interval';
  if (left === 'interval' && right === 'interval' && additive) return 'interval';
  if (left === 'interval' && right === 'int64' && (operator === '*' || operator === '/')) return 'interval';
  if (left === 'int64' && right === 'interval' && operator === '*') return 'interval';
  return undefined;
}

function arithmetic(operator: string, left: StaticType | undefined, right: StaticType | undefined): StaticType | undefined {
  // A BIGNUMERIC beside a value of a type the text does not say (a column): the DuckDB dialect
  // takes it as an INT64 or NUMERIC, coerced, or fails when the query runs (dialects/duckdb/bignumeric.ts).
  if ((left === 'bignumeric' && right === undefined) || (left === undefined && right === 'bignumeric')) return ARITHMETIC.has(operator) ? 'bignumeric' : undefined;
  if (!isNumeric(left) || !isNumeric(right)) return timeArithmetic(operator, left, right);
  if (left === 'float64' || right === 'float64') return 'float64';
  // An INT64 or NUMERIC is coerced to BIGNUMERIC beside one (GoogleSQL's supertypes).
  if (left === 'bignumeric' || right === 'bignumeric') return 'bignumeric';
  if (left === 'numeric' || right === 'numeric') return 'numeric';
  // INT64 / INT64 is FLOAT64 in BigQuery.
  return operator === '/' ? 'float64' : 'int64';
}

/**
 * A CASE's type where its results say it: BIGNUMERIC where one is and the others are INT64,
 * NUMERIC, BIGNUMERIC or NULL (GoogleSQL's supertype; a FLOAT64 among them would make it FLOAT64).
 * Any other is left unknown, as it was: the DuckDB dialect writes a BIGNUMERIC CASE itself.
 */
function caseType(expr: Case, lookup: TypeLookup): StaticType | undefined {
  const results = [...expr.whens.map((branch) => branch.then), ...(expr.else ? [expr.else] : [])];
  const types = results.filter((result) => !(result.kind === 'literal' && result.type === 'null')).map((result) => staticType(result, lookup));
  if (!types.includes('bignumeric')) return undefined;
  return types.every((type) => type === 'bignumeric' || type === 'int64' || type === 'numeric') ? 'bignumeric' : undefined;
}

export function staticType(expr: Expr, lookup: TypeLookup): StaticType | undefined {
  switch (expr.kind) {
    case 'literal':
      return LITERAL_TYPES[expr.type];
    case 'param':
      // A caller's parameter is not known here; a value the engine derives is of its kind's type.
      if (expr.derived === undefined) return undefined;
      return expr.derived.kind === 'required_literal' ? 'string' : 'bool';
    case 'cast':
      // ARRAY<...> and STRUCT<...> targets have no scalar type here.
      return expr.type.element || expr.type.fields ? undefined : lookup.cast(expr.type.name);
    case 'unary':
      return expr.operator === 'NOT' ? 'bool' : staticType(expr.operand, lookup);
    case 'binary':
      if (BOOLEAN_OPERATORS.has(expr.operator)) return 'bool';
      if (expr.operator === '||') return 'string';
      if (BITWISE_OPERATORS.has(expr.operator)) return 'int64';
      return arithmetic(expr.operator, staticType(expr.left, lookup), staticType(expr.right, lookup));
    case 'between':
    case 'in_list':
    case 'in_query':
    case 'in_unnest':
    case 'quantified_like':
    case 'exists':
      return 'bool';
    case 'interval':
      return 'interval';
    case 'extract':
      return expr.part === 'date' ? 'date' : 'int64';
    case 'call': {
      const result = lookup.result(expr);
      if (typeof result === 'object') {
        const arg = expr.args[result.sameAs];
        const type = arg === undefined ? undefined : staticType(arg, lookup);
        const retyped = type === 'int64' || type === 'string' || type === 'date' ? result[type] : undefined;
        return retyped ?? type;
      }
      return result;
    }
    case 'column':
      return lookup.column?.(expr);
    case 'case':
      return caseType(expr, lookup);
    default:
      return undefined;
  }
}
