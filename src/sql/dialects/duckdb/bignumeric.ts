/**
 * BIGNUMERIC on DuckDB. BigQuery's BIGNUMERIC is a 256-bit two's complement count of units of
 * 10^-38 (precision 76.76, scale 38); DuckDB's DECIMAL stops at 38 digits, so it is held as DuckDB's
 * arbitrary-precision integer, BIGNUM, counting the same units. BIGNUM adds, subtracts, negates,
 * compares, orders, groups, SUMs, MINs and MAXes exactly; its `*`, `/`, `//`, `%` and ABS are
 * DOUBLEs, so those are host functions over BigInt (backends/duckdb/host-functions/bignumeric.ts),
 * and a BIGNUM beside an INT64 is read as that many units, not as that many ones. So a
 * BIGNUMERIC is answered only where the query's text says it is one and where this file writes what
 * is done with it (`bignumericContexts` refuses the rest by name, before anything is written):
 *
 * - literals, and CAST to BIGNUMERIC of an INT64, a NUMERIC, a FLOAT64, a BIGNUMERIC or a STRING literal;
 * - CAST of a BIGNUMERIC to STRING, NUMERIC, INT64 (both rounded half away from zero, an error past
 *   their range) and FLOAT64 (the nearest double to the exact decimal);
 * - `+`, `-`, `*`, `/` and unary minus (an INT64 or NUMERIC operand coerced), with BigQuery's
 *   overflow and division by zero errors; the comparisons; ABS, SIGN, ROUND (with its places and
 *   rounding mode), TRUNC, CEIL, FLOOR, DIV and MOD; SUM, AVG, MIN and MAX; a partner of a type the
 *   text does not say (a column) coerced by its type when the query runs, or an error then;
 * - IN, BETWEEN, CASE, IF, COALESCE, IFNULL, NULLIF, GREATEST and LEAST among BIGNUMERIC, INT64,
 *   NUMERIC and NULL values, the others coerced;
 * - a SELECT item of the outermost query (on the wire as a decimal, backends/duckdb/values.ts), its
 *   ORDER BY and GROUP BY keys;
 * - a named item of a CTE or FROM subquery, whose column the outer query reads whole only.
 *
 * A BIGNUMERIC column of a subquery or CTE is not typed by the query's text where it is read, so
 * it is answered only where its units need no type; one of a set operation or a subquery
 * expression is refused where it is made rather than read as units where it is used.
 */
import { decimalUnits } from '../../../core/decimal-units.js';
import { staticType, type StaticType } from '../../analyse/static-type.js';
import type { Rewrite } from '../../generator/dialect.js';
import { UnsupportedConstruct } from '../../generator/unsupported.js';
import { TYPE_LOOKUP } from '../../language.js';
import { InvalidQuery } from '../../parse/errors.js';
import type { Between, Binary, Call, Case, Cast, ColumnRef, Cte, Expr, InList, Literal, Query, Unary } from '../../parse/tree.js';
import type { Printer } from '../../generator/dialect.js';
import { hostCall, type HostFunctionName } from './host-functions.js';
import { byType, computedOnce, raise, repeatable, trying } from './semantics.js';
import { BIGNUMERIC_MAX_UNITS, BIGNUMERIC_MIN_UNITS, BIGNUMERIC_SCALE, sqlMacroName, ZERO_UNITS } from './sql-macros.js';


const TEXT = /^\s*([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?\s*$/;

/**
 * A decimal's text (`1.5`, `-.25`, `1e-40`) as BIGNUMERIC units, rounded half away from zero to 38
 * places as BigQuery rounds a literal or a cast; undefined where it is no number or past the range.
 */
export function bignumericUnits(text: string): bigint | undefined {
  const match = TEXT.exec(text);
  if (!match) return undefined;
  const [, sign = '', whole = '', fraction = '', exponent = '0'] = match;
  if (whole === '' && fraction === '') return undefined;
  const units = decimalUnits(whole, fraction, exponent, BIGNUMERIC_SCALE);
  if (units === undefined) return undefined;
  const signed = sign === '-' ? -units : units;
  return signed > BIGNUMERIC_MAX_UNITS || signed < BIGNUMERIC_MIN_UNITS ? undefined : signed;
}

/** BIGNUMERIC units as BigQuery writes the value (`1.5`, `-0.001`, `10`): no trailing zeros. */
export function bignumericText(units: bigint): string {
  const digits = (units < 0n ? -units : units).toString().padStart(BIGNUMERIC_SCALE + 1, '0');
  const whole = digits.slice(0, -BIGNUMERIC_SCALE);
  const fraction = digits.slice(-BIGNUMERIC_SCALE).replace(/0+$/, '');
  return (units < 0n ? '-' : '') + whole + (fraction ? `.${fraction}` : '');
}

/** One, in units. */
const BIGNUMERIC_ONE = 10n ** BigInt(BIGNUMERIC_SCALE);

function unitsSql(units: bigint): string {
  return `CAST('${units}' AS BIGNUM)`;
}

function typeOf(expr: Expr): StaticType | undefined {
  return staticType(expr, TYPE_LOOKUP);
}

/** The types a BIGNUMERIC operand's partner may have: GoogleSQL coerces them to BIGNUMERIC. */
const COERCED: ReadonlySet<StaticType | undefined> = new Set(['bignumeric', 'int64', 'numeric']);

/** A value of a type COERCED holds, as BIGNUMERIC units. */
function asUnits(sql: string, type: StaticType | undefined): string {
  if (type === 'int64') return `${sqlMacroName('bignumeric_of_int64')}(${sql})`;
  if (type === 'numeric') return `${sqlMacroName('bignumeric_of_numeric')}(${sql})`;
  return sql;
}

/**
 * A BIGNUMERIC's partner in arithmetic, a comparison, DIV or MOD, as units: an INT64 or NUMERIC
 * coerced, NULL a BIGNUM's; of a type the query's text does not say (a column), coerced by the type
 * DuckDB gives it when the query runs, any other type then an error rather than a guess.
 */
function partnerUnits(node: Expr, { expr, refuse }: Printer): string {
  if (isNull(node)) return 'CAST(NULL AS BIGNUM)';
  const type = typeOf(node);
  if (type !== undefined) return asUnits(expr(node), type);
  const other = raise('a BIGNUMERIC beside a value other than an INT64, a NUMERIC or a BIGNUMERIC is not supported on the embedded engine', 'BIGNUM');
  return byType(expr(node), undefined, { int64: (v) => asUnits(v, 'int64'), numeric: (v) => asUnits(v, 'numeric'), otherwise: () => other }, (what) => refuse(what, node));
}

/** A BIGNUMERIC's units, or BigQuery's overflow error where they are past its range. */
function checked(sql: string): string {
  return `${sqlMacroName('bignumeric_checked')}(${sql})`;
}

/** A BIGNUMERIC literal's units; past the range, BigQuery's error when the query is compiled. */
export function bignumericLiteral(node: Literal): string {
  const units = bignumericUnits(String(node.value));
  if (units === undefined) throw new InvalidQuery(`Invalid BIGNUMERIC literal: ${String(node.value)}`, node.loc);
  return unitsSql(units);
}

/** A host function over BigInt (backends/duckdb/host-functions/bignumeric.ts) of BIGNUMs, by their text: a BIGNUM. */
function hosted(name: HostFunctionName, ...units: string[]): string {
  return `CAST(${hostCall(name, ...units.map((value) => `CAST(${value} AS VARCHAR)`))} AS BIGNUM)`;
}

/** `+` and `-` are BIGNUM's own, exact; `*` and `/` are the host's (BIGNUM's are DOUBLEs). */
const ARITHMETIC: ReadonlySet<string> = new Set(['+', '-', '*', '/']);
const COMPARISONS: ReadonlySet<string> = new Set(['=', '!=', '<>', '<', '>', '<=', '>=']);

/** `a + b`, `a - b` or a comparison where one side is a BIGNUMERIC; undefined where neither is. */
export function bignumericBinary(node: Binary, printer: Printer): string | undefined {
  const left = typeOf(node.left);
  const right = typeOf(node.right);
  // IS [NOT] NULL is DuckDB's own.
  if ((left !== 'bignumeric' && right !== 'bignumeric') || !(ARITHMETIC.has(node.operator) || COMPARISONS.has(node.operator))) return undefined;
  const a = partnerUnits(node.left, printer);
  const b = partnerUnits(node.right, printer);
  if (node.operator === '*') return hosted('bignumeric_multiply', a, b);
  if (node.operator === '/') return hosted('bignumeric_divide', a, b);
  if (ARITHMETIC.has(node.operator)) return checked(`(${a} ${node.operator} ${b})`);
  return `(${a} ${node.operator} ${b})`;
}

/** Unary minus of a BIGNUMERIC: the smallest value's negation is past the range. */
export function bignumericNegation(node: Unary, { expr }: Printer): string | undefined {
  if (node.operator !== '-' || typeOf(node.operand) !== 'bignumeric') return undefined;
  return checked(`(${ZERO_UNITS} - ${expr(node.operand)})`);
}

const AGGREGATES: ReadonlySet<string> = new Set(['sum', 'min', 'max', 'avg']);

/** The functions of one BIGNUMERIC written here, and how ROUND's kin round (host-functions/bignumeric.ts). */
const ROUNDINGS: Readonly<Record<string, string>> = { ceil: 'ceil', ceiling: 'ceil', floor: 'floor', trunc: 'trunc', round: 'half_away' };
const SCALAR: ReadonlySet<string> = new Set(['abs', 'sign', ...Object.keys(ROUNDINGS)]);
/** DIV and MOD of a BIGNUMERIC and a value coerced to one. */
const DIVISIONS: Readonly<Record<string, HostFunctionName>> = { div: 'bignumeric_div', mod: 'bignumeric_mod' };
/** ROUND's rounding modes, as ROUND's third argument names them. */
const ROUNDING_MODES: Readonly<Record<string, string>> = { ROUND_HALF_AWAY_FROM_ZERO: 'half_away', ROUND_HALF_EVEN: 'half_even' };

/** Where a value stands beside a BIGNUMERIC it is compared with or chosen from: an INT64 or NUMERIC coerced, NULL a BIGNUM's. */
function coerced(node: Expr, expr: (node: Expr) => string): string {
  return isNull(node) ? 'CAST(NULL AS BIGNUM)' : asUnits(expr(node), typeOf(node));
}

/** Whether values compared or chosen together hold a BIGNUMERIC and nothing GoogleSQL would not coerce to one. */
function togetherBignumeric(nodes: readonly Expr[]): boolean {
  return nodes.some((node) => typeOf(node) === 'bignumeric') && nodes.every((node) => COERCED.has(typeOf(node)) || isNull(node));
}

/** The functions that choose one of their arguments, each of the BIGNUMERIC type where the call is. */
const CHOOSERS: ReadonlySet<string> = new Set(['coalesce', 'ifnull', 'if', 'nullif', 'greatest', 'least']);

/** The arguments a chooser's result is one of, or is compared with (NULLIF's second); IF's condition is none. */
function chosenFrom(call: Call): readonly Expr[] {
  return call.name === 'if' ? call.args.slice(1) : call.args;
}

/** COALESCE, IFNULL, IF, NULLIF, GREATEST and LEAST of BIGNUMERICs, the other arguments coerced. */
function bignumericChoice(node: Call, { expr, refuse }: Printer): string {
  const args = chosenFrom(node).map((arg) => coerced(arg, expr));
  switch (node.name) {
    case 'if':
      return `(CASE WHEN ${expr(node.args[0]!)} THEN ${args[0]} ELSE ${args[1]} END)`;
    case 'greatest':
    case 'least': {
      // GoogleSQL's GREATEST and LEAST are NULL where any argument is; DuckDB's skip NULLs.
      const values = args.map((arg) => repeatable(arg, (what) => refuse(what, node)));
      return `(CASE WHEN ${values.map((value) => `${value} IS NULL`).join(' OR ')} THEN NULL ELSE ${node.name}(${values.join(', ')}) END)`;
    }
    default:
      return `${node.name === 'ifnull' ? 'coalesce' : node.name}(${args.join(', ')})`;
  }
}

/** `x [NOT] IN (...)` and `x [NOT] BETWEEN a AND b` where the values compared hold a BIGNUMERIC; undefined where none does. */
export function bignumericIn(node: InList, { expr }: Printer): string | undefined {
  if (!togetherBignumeric([node.operand, ...node.list])) return undefined;
  return `(${coerced(node.operand, expr)} ${node.not ? 'NOT IN' : 'IN'} (${node.list.map((item) => coerced(item, expr)).join(', ')}))`;
}

export function bignumericBetween(node: Between, { expr }: Printer): string | undefined {
  if (!togetherBignumeric([node.operand, node.low, node.high])) return undefined;
  return `(${coerced(node.operand, expr)} ${node.not ? 'NOT BETWEEN' : 'BETWEEN'} ${coerced(node.low, expr)} AND ${coerced(node.high, expr)})`;
}

/** A CASE whose results, or whose subject and WHEN values, hold a BIGNUMERIC: those coerced; undefined where neither does. */
export function bignumericCase(node: Case, { expr }: Printer): string | undefined {
  const results = [...node.whens.map((branch) => branch.then), ...(node.else ? [node.else] : [])];
  const chosen = togetherBignumeric(results);
  const compared = node.subject !== undefined && togetherBignumeric([node.subject, ...node.whens.map((branch) => branch.when)]);
  if (!chosen && !compared) return undefined;
  const result = (value: Expr) => (chosen ? coerced(value, expr) : expr(value));
  const key = (value: Expr) => (compared ? coerced(value, expr) : expr(value));
  const branches = node.whens.map((branch) => `WHEN ${key(branch.when)} THEN ${result(branch.then)}`);
  if (node.else) branches.push(`ELSE ${result(node.else)}`);
  return `(CASE${node.subject ? ` ${key(node.subject)}` : ''} ${branches.join(' ')} END)`;
}

/** SUM, MIN, MAX, AVG, ABS, SIGN, ROUND, TRUNC, CEIL, FLOOR, DIV and MOD of a BIGNUMERIC, and the choosers of one; undefined for any other call. */
export function bignumericCall(node: Call, printer: Printer): string | undefined {
  const { expr } = printer;
  if (CHOOSERS.has(node.name) && typeOf(node) === 'bignumeric' && togetherBignumeric(chosenFrom(node))) return bignumericChoice(node, printer);
  const [arg] = node.args;
  if (arg === undefined || typeOf(arg) !== 'bignumeric') return undefined;
  const value = expr(arg);
  const division = DIVISIONS[node.name];
  if (division !== undefined && node.args[1] !== undefined) return hosted(division, value, partnerUnits(node.args[1], printer));
  if (node.name === 'abs') return checked(computedOnce(value, (v) => `(CASE WHEN ${v} < 0 THEN ${ZERO_UNITS} - ${v} ELSE ${v} END)`));
  // SIGN of a BIGNUMERIC is a BIGNUMERIC; NULL stays NULL (no ELSE).
  if (node.name === 'sign') return computedOnce(value, (v) => `(CASE WHEN ${v} > 0 THEN ${unitsSql(BIGNUMERIC_ONE)} WHEN ${v} < 0 THEN ${unitsSql(-BIGNUMERIC_ONE)} WHEN ${v} = 0 THEN ${ZERO_UNITS} END)`);
  const rounding = ROUNDINGS[node.name];
  if (rounding !== undefined) {
    const places = node.args[1] === undefined ? '0' : `CAST(${expr(node.args[1])} AS BIGINT)`;
    const mode = node.args[2] === undefined ? rounding : roundingMode(node.args[2]);
    return `CAST(${hostCall('bignumeric_round', `CAST(${value} AS VARCHAR)`, places, `'${mode}'`)} AS BIGNUM)`;
  }
  if (!AGGREGATES.has(node.name)) return undefined;
  const distinct = node.distinct ? 'DISTINCT ' : '';
  // AVG: the exact sum over the count, rounded half away from zero at 38 places (an empty group's NULL sum is NULL).
  if (node.name === 'avg') return hosted('bignumeric_divide', `sum(${distinct}${value})`, asUnits(`count(${distinct}${value})`, 'int64'));
  const aggregate = `${node.name}(${distinct}${value})`;
  return node.name === 'sum' ? checked(aggregate) : aggregate;
}

/** ROUND's third argument: a string literal naming one of BigQuery's two modes. */
function roundingMode(arg: Expr): string {
  const mode = arg.kind === 'literal' && arg.type === 'string' ? ROUNDING_MODES[String(arg.value)] : undefined;
  if (mode === undefined) throw new InvalidQuery(`ROUND's rounding mode must be ROUND_HALF_AWAY_FROM_ZERO or ROUND_HALF_EVEN`, arg.loc);
  return mode;
}

const TO_BIGNUMERIC: ReadonlySet<string> = new Set(['BIGNUMERIC', 'BIGDECIMAL']);

/** Where CAST's operand may be a BIGNUMERIC, what it may be cast to. */
const FROM_BIGNUMERIC: ReadonlySet<string> = new Set([
  'BIGNUMERIC', 'BIGDECIMAL', 'STRING', 'NUMERIC', 'DECIMAL', 'FLOAT64',
  'INT64', 'INTEGER', 'INT', 'BIGINT', 'SMALLINT', 'TINYINT', 'BYTEINT',
]);

/** CAST to or from BIGNUMERIC; undefined for any other. */
export function bignumericCast(node: Cast, { expr, refuse }: Printer): string | undefined {
  if (node.format || node.type.element || node.type.fields || node.type.params) return undefined;
  const target = node.type.name.toUpperCase();
  const from = typeOf(node.operand);
  const keyword = node.safe ? 'TRY_CAST' : 'CAST';
  if (TO_BIGNUMERIC.has(target)) {
    if (from === 'bignumeric') return expr(node.operand);
    if (isNull(node.operand)) return 'CAST(NULL AS BIGNUM)';
    if (from === 'int64' || from === 'numeric') return asUnits(expr(node.operand), from);
    // A FLOAT64's exact binary value, rounded half away from zero at 38 places; NaN, the
    // infinities and a value past the range are errors (NULL with SAFE_CAST, its operand's own errors still raised).
    const ofDouble = (v: string) => {
      const call = `CAST(${hostCall('bignumeric_of_double', `CAST(${v} AS DOUBLE)`)} AS BIGNUM)`;
      return node.safe ? trying(call, [v], [node.operand], (what) => refuse(what, node)) : call;
    };
    if (from === 'float64') return ofDouble(expr(node.operand));
    // A column's type is known when the query runs: an INT64, a NUMERIC or a FLOAT64 is cast, anything else an error, never a guess.
    if (from === undefined) {
      const other = raise('CAST to BIGNUMERIC of a value other than an INT64, a NUMERIC, a FLOAT64 or a STRING literal is not supported on the embedded engine', 'BIGNUM');
      return byType(expr(node.operand), undefined, { int64: (v) => asUnits(v, 'int64'), numeric: (v) => asUnits(v, 'numeric'), float64: ofDouble, otherwise: () => other }, (what) => refuse(what, node));
    }
    const text = node.operand.kind === 'literal' && node.operand.type === 'string' ? String(node.operand.value) : undefined;
    if (text === undefined) return refuse(`CAST to BIGNUMERIC of a ${from.toUpperCase()} (the embedded engine casts an INT64, a NUMERIC, a FLOAT64 or a STRING literal)`, node);
    const units = bignumericUnits(text);
    if (units !== undefined) return unitsSql(units);
    return node.safe ? 'CAST(NULL AS BIGNUM)' : raise(`Bad bignumeric value: ${text}`, 'BIGNUM');
  }
  if (from !== 'bignumeric') return undefined;
  const text = `${sqlMacroName('bignumeric_text')}(${expr(node.operand)})`;
  switch (CAST_TARGET[target]) {
    case 'string':
      return text;
    // DuckDB reads a decimal's text into a DECIMAL rounded half away from zero, as BigQuery rounds,
    // and fails past the type's digits; a double is the nearest to the text's exact value.
    case 'numeric':
      return `${keyword}(${text} AS DECIMAL(38, 9))`;
    case 'int64':
      return `${keyword}(${keyword}(${text} AS DECIMAL(38, 0)) AS BIGINT)`;
    case 'float64':
      return `${keyword}(${text} AS DOUBLE)`;
    default:
      return undefined;
  }
}

const CAST_TARGET: Readonly<Record<string, 'string' | 'numeric' | 'int64' | 'float64'>> = {
  STRING: 'string',
  NUMERIC: 'numeric',
  DECIMAL: 'numeric',
  FLOAT64: 'float64',
  INT64: 'int64',
  INTEGER: 'int64',
  INT: 'int64',
  BIGINT: 'int64',
  SMALLINT: 'int64',
  TINYINT: 'int64',
  BYTEINT: 'int64',
};

// ---------------------------------------------------------------------------------------------
// Where a BIGNUMERIC may stand

type Parent = { readonly node: object; readonly key: string };

/** Why a BIGNUMERIC may not stand here; undefined where one of the renderings above writes it. */
function misplaced(child: Expr, parent: Parent | undefined, allowed: ReadonlySet<object>, carriers: ReadonlySet<object>): string | undefined {
  if (parent === undefined) return 'here';
  const node = parent.node as { kind?: string };
  // An outermost SELECT item or ORDER BY item (the parent), or a GROUP BY key (the value itself).
  if (allowed.has(parent.node) || allowed.has(child)) return undefined;
  switch (node.kind) {
    case 'binary': {
      const binary = node as Binary;
      const other = binary.left === child ? binary.right : binary.left;
      // A partner of a type the text does not say is coerced when the query runs, or fails then.
      if ((ARITHMETIC.has(binary.operator) || COMPARISONS.has(binary.operator)) && (COERCED.has(typeOf(other)) || typeOf(other) === undefined)) return undefined;
      if ((binary.operator === 'IS' || binary.operator === 'IS NOT') && binary.right.kind === 'literal' && binary.right.type === 'null') return undefined;
      return `the operator ${binary.operator} with a ${typeOf(other)?.toUpperCase() ?? 'value of a type the query does not say'}`;
    }
    case 'unary':
      return (node as Unary).operator === '-' ? undefined : `the operator ${(node as Unary).operator}`;
    case 'in_list': {
      const list = node as InList;
      return togetherBignumeric([list.operand, ...list.list]) ? undefined : 'IN with a value of another type than INT64, NUMERIC or BIGNUMERIC';
    }
    case 'between': {
      const between = node as Between;
      return togetherBignumeric([between.operand, between.low, between.high]) ? undefined : 'BETWEEN with a value of another type than INT64, NUMERIC or BIGNUMERIC';
    }
    case 'case': {
      const branching = node as Case;
      if (parent.key === 'then' || parent.key === 'else') {
        return typeOf(branching) === 'bignumeric' ? undefined : 'a CASE result beside a value of another type than INT64, NUMERIC or BIGNUMERIC';
      }
      const subject = branching.subject;
      // CASE x WHEN y: x and every y are compared; a WHEN of a CASE without a subject is a condition.
      return subject !== undefined && togetherBignumeric([subject, ...branching.whens.map((branch) => branch.when)]) ? undefined : 'a CASE comparison with a value of another type than INT64, NUMERIC or BIGNUMERIC';
    }
    case 'cast': {
      const cast = node as Cast;
      return !cast.format && !cast.type.element && !cast.type.fields && !cast.type.params && FROM_BIGNUMERIC.has(cast.type.name.toUpperCase()) ? undefined : `CAST to ${cast.type.name}${cast.format ? ' with FORMAT' : ''}`;
    }
    case 'call': {
      const call = node as Call;
      const plain = !call.over && !call.having && !call.orderBy && call.limit === undefined;
      // A chooser typed as the BIGNUMERIC it chooses (the language table types it by an argument).
      if (plain && CHOOSERS.has(call.name) && typeOf(call) === 'bignumeric' && togetherBignumeric(chosenFrom(call)) && chosenFrom(call).includes(child)) return undefined;
      if (CHOOSERS.has(call.name)) return `${call.name.toUpperCase()} whose ${call.name === 'if' ? 'second' : 'first'} argument is no BIGNUMERIC, or beside a value of another type than INT64, NUMERIC or BIGNUMERIC (the embedded engine types the call by that argument)`;
      if (plain && call.args.length === 1 && (AGGREGATES.has(call.name) || (SCALAR.has(call.name) && !call.distinct))) return undefined;
      // DIV and MOD of a BIGNUMERIC first: the language table types them as their first argument.
      if (plain && !call.distinct && call.name in DIVISIONS && call.args.length === 2 && typeOf(call.args[0]!) === 'bignumeric' && (COERCED.has(typeOf(call.args[1]!)) || typeOf(call.args[1]!) === undefined)) return undefined;
      // ROUND(x, places [, mode]) and TRUNC(x, places): the BIGNUMERIC first, the places an INT64 the query's text types (or NULL).
      const places = call.args[1];
      const rounded = (call.name === 'round' && call.args.length <= 3) || (call.name === 'trunc' && call.args.length === 2);
      if (plain && !call.distinct && rounded && call.args[0] === child && places !== undefined && (typeOf(places) === 'int64' || isNull(places))) return undefined;
      return `${call.name.toUpperCase()}${call.over ? ' over a window' : ''}`;
    }
    case 'item':
      // A named item of a CTE or FROM subquery is carried out as its units, and read whole only (carriedRead).
      if (carriers.has(parent.node)) return undefined;
      return 'a SELECT item of a set operation, a subquery expression, or an unnamed one of a CTE or FROM subquery (its column would not be known as a BIGNUMERIC where it is read)';
    default:
      return node.kind === undefined ? 'an ORDER BY of a subquery or window' : node.kind.replace(/_/g, ' ');
  }
}

function isNull(expr: Expr): boolean {
  return expr.kind === 'literal' && expr.type === 'null';
}

/** Where a BIGNUMERIC comes from: every other BIGNUMERIC (a sum, a SUM) is made of one of these. */
function isOrigin(node: { kind?: unknown; type?: unknown; name?: unknown }): boolean {
  if (node.kind === 'literal') return node.type === 'bignumeric';
  if (node.kind === 'cast') return TO_BIGNUMERIC.has(String((node.type as { name?: unknown } | undefined)?.name).toUpperCase());
  return node.kind === 'call' && node.name === 'parse_bignumeric';
}

function holdsBignumeric(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(holdsBignumeric);
  if (value === null || typeof value !== 'object') return false;
  if (isOrigin(value as { kind?: unknown })) return true;
  return Object.entries(value).some(([key, child]) => key !== 'loc' && holdsBignumeric(child));
}

/**
 * The named items of a CTE's or a FROM subquery's SELECT (not of a set operation, whose members
 * DuckDB would coerce to one type, nor of a subquery expression, whose value an operator would
 * read): a BIGNUMERIC there leaves as its BIGNUM of units, which DuckDB carries through unchanged.
 */
function carrierItems(query: Query): Set<object> {
  const items = new Set<object>();
  const relation = (inner: Query) => {
    if (inner.body.kind !== 'select') return;
    // Its `*` too, which passes a carried column on whole.
    for (const item of inner.body.items) if (item.kind === 'star' || item.alias !== undefined) items.add(item);
  };
  const walk = (value: unknown): void => {
    if (Array.isArray(value)) return value.forEach(walk);
    if (value === null || typeof value !== 'object') return;
    const node = value as { kind?: unknown; with?: unknown; query?: unknown };
    if (Array.isArray(node.with)) for (const cte of node.with as Cte[]) relation(cte.query);
    if (node.kind === 'derived') relation(node.query as Query);
    for (const [key, child] of Object.entries(value)) if (key !== 'loc') walk(child);
  };
  walk(query);
  return items;
}

/**
 * The names a relation's whole row may be read by (`TO_JSON_STRING(t)`, `SELECT t`): every CTE
 * name, FROM alias and table name of the query. Where a BIGNUMERIC is carried, a row read by any of
 * them is refused, which relation's row holds its units (through `*` too) not being resolved here.
 */
function rowNames(query: Query): Set<string> {
  const names = new Set<string>();
  const walk = (value: unknown): void => {
    if (Array.isArray(value)) return value.forEach(walk);
    if (value === null || typeof value !== 'object') return;
    const node = value as { kind?: unknown; with?: unknown; name?: unknown; alias?: unknown };
    if (Array.isArray(node.with)) for (const cte of node.with as Cte[]) names.add(cte.name.toLowerCase());
    if (node.kind === 'table' && typeof node.name === 'string') names.add(node.name.toLowerCase());
    if ((node.kind === 'table' || node.kind === 'derived') && typeof node.alias === 'string') names.add(node.alias.toLowerCase());
    for (const [key, child] of Object.entries(value)) if (key !== 'loc') walk(child);
  };
  walk(query);
  return names;
}

/**
 * Whether a column read by a carried BIGNUMERIC's name reads it whole, where its units need no
 * type: an outermost SELECT item or ORDER BY key (the wire writes a BIGNUM as a BIGNUMERIC), a
 * GROUP BY key, or IS [NOT] NULL. Anywhere else DuckDB would read the units as ones (`x + 1`).
 */
function carriedRead(column: Expr, parent: Parent | undefined, allowed: ReadonlySet<object>, keys: ReadonlySet<object>): boolean {
  if (keys.has(column) || (parent !== undefined && allowed.has(parent.node) && (parent.key === 'expr'))) return true;
  const binary = parent?.node as Binary | undefined;
  return binary?.kind === 'binary' && (binary.operator === 'IS' || binary.operator === 'IS NOT') && binary.left === column && isNull(binary.right);
}

/** The names of the outermost SELECT's BIGNUMERIC items. */
function bignumericAliases(query: Query): Set<string> {
  const body = query.body;
  const names = new Set<string>();
  if (body.kind !== 'select') return names;
  for (const item of body.items) if (item.kind === 'item' && item.alias !== undefined && typeOf(item.expr) === 'bignumeric') names.add(item.alias.toLowerCase());
  return names;
}

/**
 * Refuses, by name, a query that holds a BIGNUMERIC anywhere the renderings above do not write
 * one; among those, a name of the outermost SELECT's BIGNUMERIC item read anywhere but as a whole
 * ORDER BY or GROUP BY key (`HAVING s > 1` would compare its units).
 */
export const bignumericContexts: Rewrite = (query) => {
  // Most queries hold none: one walk without types, and the tree as it was.
  if (!holdsBignumeric(query)) return query;
  const body = query.body;
  const allowed = new Set<object>();
  const keys = new Set<object>();
  if (body.kind === 'select') {
    for (const item of body.items) allowed.add(item);
    for (const key of body.groupBy) {
      keys.add(key);
      allowed.add(key);
    }
  }
  for (const item of query.orderBy) {
    allowed.add(item);
    keys.add(item.expr);
  }
  const aliases = bignumericAliases(query);
  const carriers = carrierItems(query);
  // A carried BIGNUMERIC's name, wherever read (a same-named column of another relation too, the
  // reads not being resolved here: refused, never guessed), must read it whole.
  const carried = new Set<string>();
  for (const item of carriers) {
    const { kind, expr, alias } = item as { kind: string; expr: Expr; alias: string };
    if (kind === 'item' && typeOf(expr) === 'bignumeric') carried.add(alias.toLowerCase());
  }
  const rows = carried.size > 0 ? rowNames(query) : new Set<string>();
  const visit = (value: unknown, parent: Parent | undefined): void => {
    if (Array.isArray(value)) {
      for (const element of value) visit(element, parent);
      return;
    }
    if (value === null || typeof value !== 'object') return;
    const node = value as { kind?: unknown; name?: unknown; table?: unknown; fields?: unknown };
    if (typeof node.kind === 'string' && typeOf(value as Expr) === 'bignumeric') {
      const why = misplaced(value as Expr, parent, allowed, carriers);
      if (why !== undefined) throw new UnsupportedConstruct(`a BIGNUMERIC value in ${why} (the embedded engine answers BIGNUMERIC in the outermost SELECT's items, their ORDER BY and GROUP BY, CAST, + - * / and comparisons, IN, BETWEEN, CASE, COALESCE, IFNULL, IF, NULLIF, GREATEST and LEAST with INT64, NUMERIC or BIGNUMERIC, ABS, SIGN, ROUND, TRUNC, CEIL, FLOOR, DIV and MOD of a BIGNUMERIC, SUM, AVG, MIN and MAX)`, 'duckdb', (value as Expr).loc);
    }
    if (node.kind === 'column' && node.table === undefined && Array.isArray(node.fields) && node.fields.length === 0 && typeof node.name === 'string' && aliases.has(node.name.toLowerCase()) && !keys.has(value)) {
      throw new UnsupportedConstruct(`the BIGNUMERIC item ${node.name} read in an expression (the embedded engine reads it as a whole ORDER BY or GROUP BY key only)`, 'duckdb', (value as Expr).loc);
    }
    if (carried.size > 0 && node.kind === 'column') {
      const ref = value as ColumnRef;
      const name = [ref.name, ...ref.fields].find((part) => carried.has(part.toLowerCase()));
      if (ref.table === undefined && ref.fields.length === 0 && rows.has(ref.name.toLowerCase())) {
        throw new UnsupportedConstruct(`the row ${ref.name} read whole in a query carrying a BIGNUMERIC column out of a CTE or subquery (it may hold its units)`, 'duckdb', ref.loc);
      }
      if (name !== undefined && !carriedRead(ref, parent, allowed, keys)) {
        throw new UnsupportedConstruct(`the column ${name}, a BIGNUMERIC of a CTE or subquery, read in an expression (the embedded engine reads it whole only: as an outermost SELECT item, ORDER BY or GROUP BY key, or IS NULL)`, 'duckdb', ref.loc);
      }
    }
    // A `*` anywhere else (a set operation's, a subquery expression's) would pass its units to an operator.
    if (carried.size > 0 && node.kind === 'star' && !allowed.has(value) && !carriers.has(value)) {
      throw new UnsupportedConstruct('a * of a set operation or subquery expression in a query carrying a BIGNUMERIC column out of a CTE or subquery (it may pass its units on)', 'duckdb', (value as { loc?: Expr['loc'] }).loc);
    }
    const using = (value as { using?: unknown }).using;
    if (carried.size > 0 && Array.isArray(using) && using.some((name) => typeof name === 'string' && carried.has(name.toLowerCase()))) {
      throw new UnsupportedConstruct('a join USING a BIGNUMERIC column of a CTE or subquery (it would be compared as its units)', 'duckdb', (value as { loc?: Expr['loc'] }).loc);
    }
    for (const [key, child] of Object.entries(value)) {
      if (key === 'loc') continue;
      // A CASE's branches are plain pairs: each WHEN and THEN is the CASE's own child.
      if (node.kind === 'case' && key === 'whens') {
        for (const branch of (value as Case).whens) {
          visit(branch.when, { node: value, key: 'when' });
          visit(branch.then, { node: value, key: 'then' });
        }
      } else visit(child, { node: value, key });
    }
  };
  visit(query, undefined);
  // Nothing refused: the same tree, so the passes after this one see what they always saw.
  return query;
};
