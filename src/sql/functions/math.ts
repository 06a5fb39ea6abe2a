/**
 * Mathematical functions as BigQuery computes them. An INT64 argument of a FLOAT64 function is
 * converted first (CEIL(2) is the FLOAT64 2.0); infinities and NaN give what BigQuery's tables
 * give (DuckDB raises errors for some, returns other values for others); a finite argument outside
 * the function's domain, a zero BigQuery divides by and an overflow are errors (NULL in `SAFE.`).
 * NUMERIC arguments keep their exact type where DuckDB computes exactly (ABS, SIGN, ROUND, CEIL,
 * FLOOR, TRUNC, MOD, DIV); the transcendental functions of a NUMERIC, whose NUMERIC result has
 * more digits than a double, are refused.
 */
import { raise, repeatable, trying } from '../dialects/duckdb/semantics.js';
import { sqlMacroName } from '../dialects/duckdb/sql-macros.js';
import type { Expr } from '../parse/tree.js';
import { fail, literalString, nonZero, notNumeric } from './arguments.js';
import { FIRST, same, scalar, type CallContext, type FunctionSpec, type Render } from './call.js';

/** DuckDB's names of the types an INT64 or a FLOAT64 may be held in, and of NULL. */
const INTEGER_OR_FLOAT = `'BIGINT', 'INTEGER', 'SMALLINT', 'TINYINT', 'HUGEINT', 'UBIGINT', 'UINTEGER', 'USMALLINT', 'UTINYINT', 'DOUBLE', 'FLOAT', '"NULL"'`;

/** The static type of argument `index`, where the query says it. */
function typeAt(call: CallContext, index: number) {
  const node = call.argNodes[index];
  return node === undefined ? undefined : call.typeOf(node);
}

/**
 * Argument `index` as a DOUBLE. Where the query does not say its type, a value DuckDB holds in a
 * type other than an integer's or a double's (a NUMERIC, a STRING) is an error when it runs, named.
 */
function double(call: CallContext, index: number): string {
  const sql = call.args[index]!;
  const type = typeAt(call, index);
  if (type === 'float64') return sql;
  if (type === 'int64') return `CAST(${sql} AS DOUBLE)`;
  if (type === 'numeric') return call.refuse(`${call.name.toUpperCase()} of a NUMERIC value (its NUMERIC result has more digits than the embedded engine computes; CAST it to FLOAT64)`);
  if (type !== undefined) return call.invalid(`No matching signature for function ${call.name.toUpperCase()} for argument type ${type.toUpperCase()}`);
  const value = repeatable(sql, call.refuse);
  const refused = `CAST(('${call.name.toUpperCase()} takes an INT64 or FLOAT64 value on the embedded engine, not ' || typeof(${value})) AS BIGINT)`;
  return `CAST((CASE WHEN typeof(${value}) NOT IN (${INTEGER_OR_FLOAT}) THEN ${refused} ELSE ${value} END) AS DOUBLE)`;
}

/** What a FLOAT64 function gives where DuckDB's does not (its infinities) and where BigQuery raises errors. */
interface FloatRule {
  /** DuckDB's function of a finite DOUBLE. */
  finite: (x: string) => string;
  /** The results for +inf and -inf (NaN gives NaN); `error` where BigQuery raises one. */
  infinities: readonly [string, string];
  /** The finite arguments outside the domain (SQL over x): an error. */
  domain?: (x: string) => string;
  /** A finite argument whose result overflows to infinity: an error. */
  overflows?: boolean;
}

const ERROR = 'error';

function floatFunction(rule: FloatRule): Render {
  return (call) => {
    const x = repeatable(double(call, 0), call.refuse);
    const message = `${call.name.toUpperCase()} of a value outside its domain`;
    const special = (result: string) => (result === ERROR ? fail(call, message, 'DOUBLE') : result);
    const branches = [`WHEN isnan(${x}) THEN ${x}`, `WHEN isinf(${x}) THEN (CASE WHEN ${x} > 0 THEN ${special(rule.infinities[0])} ELSE ${special(rule.infinities[1])} END)`];
    if (rule.domain) branches.push(`WHEN ${rule.domain(x)} THEN ${fail(call, message, 'DOUBLE')}`);
    if (rule.overflows) branches.push(`WHEN isinf(${rule.finite(x)}) THEN ${fail(call, `${call.name.toUpperCase()} overflows`, 'DOUBLE')}`);
    return `(CASE ${branches.join(' ')} ELSE ${rule.finite(x)} END)`;
  };
}

const NAN = `CAST('NaN' AS DOUBLE)`;
const INF = `CAST('Infinity' AS DOUBLE)`;
const MINUS_INF = `CAST('-Infinity' AS DOUBLE)`;

function trigonometric(summary: string, rule: FloatRule): FunctionSpec {
  return scalar(summary, [1, 1], floatFunction(rule), { returns: 'float64' });
}

/** A function of a NUMERIC (exact in DuckDB) or of a FLOAT64 (an INT64 read as FLOAT64): the result keeps NUMERIC, else FLOAT64. */
function numericOrFloat(render: (x: string, rest: string[]) => string): Render {
  return (call) => {
    const rest = call.args.slice(1);
    if (typeAt(call, 0) === 'numeric') return render(call.args[0]!, rest);
    return render(double(call, 0), rest);
  };
}

/** ROUND's rounding mode, a string literal naming one of BigQuery's two (for a NUMERIC only). */
function rounding(call: CallContext): string {
  if (call.args.length < 3) return call.args.length === 1 ? `round(${numericOrFloatArgument(call)})` : `round(${numericOrFloatArgument(call)}, ${call.args[1]})`;
  const mode = literalString(call, 2, 'a rounding mode');
  if (typeAt(call, 0) !== 'numeric') return call.invalid('ROUND takes a rounding mode only for a NUMERIC or BIGNUMERIC value');
  if (mode === 'ROUND_HALF_AWAY_FROM_ZERO') return `round(${call.args[0]}, ${call.args[1]})`;
  if (mode === 'ROUND_HALF_EVEN') return `CAST(round_even(${call.args[0]}, ${call.args[1]}) AS DECIMAL(38, 9))`;
  return call.invalid(`ROUND's rounding mode must be ROUND_HALF_AWAY_FROM_ZERO or ROUND_HALF_EVEN, got ${mode}`);
}

function numericOrFloatArgument(call: CallContext): string {
  return typeAt(call, 0) === 'numeric' ? call.args[0]! : double(call, 0);
}

/** POW: C's pow, but a negative base with a fractional exponent, 0 to a negative power and an overflow are errors. */
function power(call: CallContext): string {
  const x = repeatable(double(call, 0), call.refuse);
  const y = repeatable(double(call, 1), call.refuse);
  const result = `pow(${x}, ${y})`;
  return `(CASE WHEN isfinite(${x}) AND ${x} < 0 AND isfinite(${y}) AND ${y} <> floor(${y}) THEN ${fail(call, 'POW of a negative number to a fractional power', 'DOUBLE')} WHEN ${x} = 0 AND isfinite(${y}) AND ${y} < 0 THEN ${fail(call, 'POW of zero to a negative power', 'DOUBLE')} WHEN isfinite(${x}) AND isfinite(${y}) AND isinf(${result}) THEN ${fail(call, 'POW overflows', 'DOUBLE')} ELSE ${result} END)`;
}

/** LOG(X, Y): the logarithm of X to base Y, with BigQuery's table of infinities and errors. */
function logarithm(call: CallContext): string {
  if (call.args.length === 1) return NATURAL_LOG(call);
  const x = repeatable(double(call, 0), call.refuse);
  const y = repeatable(double(call, 1), call.refuse);
  return `(CASE WHEN isnan(${x}) OR isnan(${y}) OR ${x} = ${MINUS_INF} OR ${y} = ${INF} THEN ${NAN} WHEN ${x} <= 0 OR ${y} <= 0 OR ${y} = 1 THEN ${fail(call, 'LOG of a value outside its domain', 'DOUBLE')} ELSE ln(${x}) / ln(${y}) END)`;
}

const NATURAL_LOG = floatFunction({ finite: (x) => `ln(${x})`, infinities: [INF, NAN], domain: (x) => `${x} <= 0` });

/** The INT64 arguments of SAFE_ADD and its kind, widened as BigQuery's INT64 (DuckDB types a small literal INTEGER). */
function widened(call: CallContext, index: number): string {
  const sql = call.args[index]!;
  const type = typeAt(call, index);
  return type === 'int64' ? `CAST(${sql} AS BIGINT)` : sql;
}

/** SAFE_ADD and its kind: NULL where the operator would overflow (DuckDB's BIGINT arithmetic raises; a double's becomes infinite). */
/**
 * SAFE_DIVIDE: NULL for a zero divisor, and for finite values whose quotient is past FLOAT64
 * (1e300 / 1e-300), the overflow error of `/` that SAFE_ turns into NULL; DuckDB's double is an
 * infinity there (ZetaSQL's arithmetic_functions_14_safe_divide).
 */
function safeDivide(call: CallContext): string {
  const x = repeatable(notNumeric(call, 0, call.args[0]!, 'CAST it to FLOAT64, or use / and TRUNC'), call.refuse);
  const y = repeatable(call.args[1]!, call.refuse);
  const quotient = `${x} / ${notNumeric(call, 1, y, 'CAST it to FLOAT64, or use / and TRUNC')}`;
  return `(CASE WHEN ${y} = 0 THEN NULL WHEN isinf(${quotient}) AND isfinite(${x}) THEN NULL ELSE ${quotient} END)`;
}


function safeArithmetic(operator: '+' | '-' | '*'): Render {
  return (call) => {
    // A NUMERIC times an INT64 is exact (DECIMAL(38, 9)); two NUMERICs keep 18 places.
    const other = typeAt(call, 1);
    if (operator === '*' && (other === undefined || other === 'numeric')) call = { ...call, args: [notNumeric(call, 0, call.args[0]!, 'CAST it to FLOAT64, or use / and TRUNC'), call.args[1]!] };
    const x = repeatable(widened(call, 0), call.refuse);
    const y = repeatable(widened(call, 1), call.refuse);
    const result = trying(`${x} ${operator} ${y}`, [x, y], call.argNodes, call.refuse);
    return `(CASE WHEN isinf(${result}) AND isfinite(${x}) AND isfinite(${y}) THEN NULL ELSE ${result} END)`;
  };
}

/** RANGE_BUCKET: how many boundaries are at most the point; the boundaries must be sorted and hold no NULL or NaN. */
function rangeBucket(call: CallContext): string {
  const point = repeatable(call.args[0]!, call.refuse);
  const boundaries = repeatable(call.args[1]!, call.refuse);
  const bad = `list_bool_or(list_transform(${boundaries}, __b -> __b IS NULL OR __b <> __b OR (typeof(__b) IN ('DOUBLE', 'FLOAT') AND isnan(TRY_CAST(__b AS DOUBLE)))))`;
  return `(CASE WHEN ${point} IS NULL OR (typeof(${point}) IN ('DOUBLE', 'FLOAT') AND isnan(TRY_CAST(${point} AS DOUBLE))) OR ${boundaries} IS NULL THEN NULL WHEN coalesce(${bad}, false) THEN ${fail(call, 'RANGE_BUCKET boundaries hold a NULL or NaN')} WHEN list_sort(${boundaries}) <> ${boundaries} THEN ${fail(call, 'RANGE_BUCKET boundaries are not sorted')} ELSE CAST(len(list_filter(${boundaries}, __b -> __b <= ${point})) AS BIGINT) END)`;
}

/**
 * COSINE_DISTANCE and EUCLIDEAN_DISTANCE of two dense vectors (ARRAY<FLOAT64>), or of two sparse
 * ones (ARRAY<STRUCT<key, value>>, absent keys 0): different lengths, NULL elements, a repeated
 * key and (for the cosine) a zero vector are errors.
 */
function distance(kind: 'cosine' | 'euclidean'): Render {
  return (call) => {
    const [a, b] = call.args.map((arg) => repeatable(arg, call.refuse)) as [string, string];
    const sparse = call.argNodes.some((node) => node.kind === 'array' && node.elements[0]?.kind === 'struct');
    const dense = (left: string, right: string) =>
      kind === 'cosine'
        ? `(CASE WHEN list_dot_product(${left}, ${left}) = 0 OR list_dot_product(${right}, ${right}) = 0 THEN ${fail(call, 'COSINE_DISTANCE of a zero vector', 'DOUBLE')} ELSE list_cosine_distance(${left}, ${right}) END)`
        : `list_distance(${left}, ${right})`;
    if (!sparse) return dense(`CAST(${a} AS DOUBLE[])`, `CAST(${b} AS DOUBLE[])`);
    // Sparse: each vector as a map (a repeated key is an error there), then dense over the keys of both.
    const [left, right] = [a, b].map((vector) => `map_from_entries(list_transform(${vector}, __e -> (struct_extract_at(__e, 1), CAST(struct_extract_at(__e, 2) AS DOUBLE))))`) as [string, string];
    const keys = `list_distinct(list_concat(map_keys(${left}), map_keys(${right})))`;
    const values = (vector: string) => `list_transform(${keys}, __k -> coalesce(${vector}[__k], 0e0))`;
    return `(SELECT ${dense(values(left), values(right))})`;
  };
}

function isKind(test: 'isinf' | 'isnan'): Render {
  return (call) => `${test}(${double(call, 0)})`;
}

/** TRUNC: toward zero, to N decimal places (N < 0 left of the point). */
function truncation(call: CallContext): string {
  const x = numericOrFloatArgument(call);
  return call.args[1] === undefined ? `trunc(${x})` : `trunc(${x}, ${call.args[1]})`;
}

/** SIGN keeps the argument's type (a FLOAT64 gives a FLOAT64, NaN gives NaN); DuckDB's sign is a TINYINT. */
function sign(call: CallContext): string {
  const x = repeatable(call.args[0]!, call.refuse);
  return `(CASE WHEN isnan(${x}) THEN ${x} ELSE sign(${x}) END)`;
}

function divisorChecked(divisor: Expr | undefined, call: CallContext): string {
  return nonZero(call.args[1]!, divisor, call.refuse, call.safe);
}

/**
 * DIV: of INT64s DuckDB's `//`; where an operand is a NUMERIC, or may be (a column), the macro
 * that picks by the operands' types when DuckDB binds them (sql-macros.ts `integer_divide`), since
 * DuckDB's `//` of DECIMALs is a DOUBLE's (DIV(7.5, 2) was 3.75).
 */
function integerDivision(call: CallContext): string {
  if (typeAt(call, 0) === 'int64' && typeAt(call, 1) === 'int64') return `(${call.args[0]} // ${divisorChecked(call.argNodes[1], call)})`;
  return `${sqlMacroName('integer_divide')}(${call.args[0]}, ${call.args[1]})`;
}

/**
 * Each RAND() of the query's text is a draw of its own, but DuckDB computes identical aggregates
 * once, random() in them too (`SUM(RAND()) = SUM(RAND())` was true): each is written apart by where
 * it stands, in a list DuckDB does not fold. Copies of one RAND() (a PIVOT's values) stay one.
 */
function rand(call: CallContext): string {
  return call.loc === undefined ? 'random()' : `[random(), ${call.loc.line * 1_000_000 + call.loc.column}][1]`;
}

const FLOAT_BY_INPUT = { sameAs: 0, int64: 'float64' } as const;

export const MATH_FUNCTIONS: ReadonlyMap<string, FunctionSpec> = new Map<string, FunctionSpec>([
  ['abs', scalar('absolute value (of the INT64 minimum an overflow error)', [1, 1], same('abs'), { returns: FIRST })],
  ['sign', scalar('-1, 0 or 1 by the sign of the value, of its type (NaN for NaN)', [1, 1], sign, { returns: FIRST })],
  ['round', scalar('rounded half away from zero, to 0 or n decimal places (a NUMERIC or BIGNUMERIC also half to even: ROUND_HALF_EVEN)', [1, 3], rounding, { returns: FLOAT_BY_INPUT })],
  ['floor', scalar('largest integral value not greater', [1, 1], numericOrFloat((x) => `floor(${x})`), { returns: FLOAT_BY_INPUT })],
  ['ceil', scalar('smallest integral value not less', [1, 1], numericOrFloat((x) => `ceil(${x})`), { returns: FLOAT_BY_INPUT })],
  ['ceiling', scalar('same as CEIL', [1, 1], numericOrFloat((x) => `ceil(${x})`), { returns: FLOAT_BY_INPUT })],
  ['trunc', scalar('rounded toward zero, to 0 or n decimal places', [1, 2], truncation, { returns: FLOAT_BY_INPUT })],
  ['mod', scalar('remainder of integer division, with the sign of the dividend; an error for a zero divisor', [2, 2], (call) => `mod(${call.args[0]}, ${divisorChecked(call.argNodes[1], call)})`, { returns: FIRST })],
  ['div', scalar('integer division rounded toward zero (of a NUMERIC or BIGNUMERIC one of its type); an error for a zero divisor', [2, 2], integerDivision, { returns: { sameAs: 0 } })],
  ['ieee_divide', scalar('x / y as IEEE 754 does it: infinity or NaN for a zero divisor, never an error', [2, 2], (call) => `(CAST(${call.args[0]} AS DOUBLE) / CAST(${call.args[1]} AS DOUBLE))`, { returns: 'float64' })],
  ['safe_divide', scalar('x / y, NULL when y is 0 or the quotient overflows', [2, 2], safeDivide, { returns: 'float64' })],
  ['safe_add', scalar('x + y, NULL where it overflows', [2, 2], safeArithmetic('+'))],
  ['safe_subtract', scalar('x - y, NULL where it overflows', [2, 2], safeArithmetic('-'))],
  ['safe_multiply', scalar('x * y, NULL where it overflows', [2, 2], safeArithmetic('*'))],
  ['safe_negate', scalar('-x, NULL where it overflows (the INT64 minimum)', [1, 1], (call) => trying(`- ${widened(call, 0)}`, [widened(call, 0)], call.argNodes, call.refuse), { returns: FIRST })],
  ['sqrt', scalar('square root (an error below 0)', [1, 1], floatFunction({ finite: (x) => `sqrt(${x})`, infinities: [INF, ERROR], domain: (x) => `${x} < 0` }), { returns: 'float64' })],
  ['cbrt', scalar('cube root', [1, 1], (call) => `cbrt(${double(call, 0)})`, { returns: 'float64' })],
  ['pow', scalar('x to the power y (an error for a negative x to a fractional y, 0 to a negative y, an overflow)', [2, 2], power, { returns: 'float64' })],
  ['power', scalar('same as POW', [2, 2], power, { returns: 'float64' })],
  ['exp', scalar('e to the power x (an overflow is an error)', [1, 1], floatFunction({ finite: (x) => `exp(${x})`, infinities: [INF, '0e0'], overflows: true }), { returns: 'float64' })],
  ['ln', scalar('natural logarithm (an error at or below 0)', [1, 1], NATURAL_LOG, { returns: 'float64' })],
  ['log', scalar('natural logarithm, or the logarithm to base y (an error for x <= 0, y <= 0, y = 1)', [1, 2], logarithm, { returns: 'float64' })],
  ['log10', scalar('base-10 logarithm (an error at or below 0)', [1, 1], floatFunction({ finite: (x) => `log10(${x})`, infinities: [INF, NAN], domain: (x) => `${x} <= 0` }), { returns: 'float64' })],
  ['is_inf', scalar('whether the value is +inf or -inf', [1, 1], isKind('isinf'), { returns: 'bool' })],
  ['is_nan', scalar('whether the value is NaN', [1, 1], isKind('isnan'), { returns: 'bool' })],
  ['rand', scalar('a random FLOAT64 in [0, 1)', [0, 0], rand, { returns: 'float64' })],
  ['range_bucket', scalar('the number of sorted boundaries at or below the point (an error for unsorted boundaries, NULL or NaN among them)', [2, 2], rangeBucket, { returns: 'int64' })],
  ['cosine_distance', scalar('1 - the cosine of the angle between two vectors (dense, or sparse as key/value pairs)', [2, 2], distance('cosine'), { returns: 'float64' })],
  ['euclidean_distance', scalar('the Euclidean distance between two vectors (dense, or sparse as key/value pairs)', [2, 2], distance('euclidean'), { returns: 'float64' })],
  ['sin', trigonometric('sine', { finite: (x) => `sin(${x})`, infinities: [NAN, NAN] })],
  ['cos', trigonometric('cosine', { finite: (x) => `cos(${x})`, infinities: [NAN, NAN] })],
  ['tan', trigonometric('tangent', { finite: (x) => `tan(${x})`, infinities: [NAN, NAN] })],
  ['cot', trigonometric('cotangent (an error at 0)', { finite: (x) => `(1 / tan(${x}))`, infinities: [NAN, NAN], domain: (x) => `${x} = 0` })],
  ['sec', trigonometric('secant', { finite: (x) => `(1 / cos(${x}))`, infinities: [NAN, NAN] })],
  ['csc', trigonometric('cosecant (an error at 0)', { finite: (x) => `(1 / sin(${x}))`, infinities: [NAN, NAN], domain: (x) => `${x} = 0` })],
  ['asin', trigonometric('arcsine (an error outside [-1, 1])', { finite: (x) => `asin(${x})`, infinities: [NAN, NAN], domain: (x) => `abs(${x}) > 1` })],
  ['acos', trigonometric('arccosine (an error outside [-1, 1])', { finite: (x) => `acos(${x})`, infinities: [NAN, NAN], domain: (x) => `abs(${x}) > 1` })],
  ['atan', trigonometric('arctangent', { finite: (x) => `atan(${x})`, infinities: ['(pi() / 2)', '(- pi() / 2)'] })],
  ['atan2', scalar('the arctangent of x / y, in the quadrant of (y, x)', [2, 2], (call) => `atan2(${double(call, 0)}, ${double(call, 1)})`, { returns: 'float64' })],
  ['sinh', trigonometric('hyperbolic sine (an overflow is an error)', { finite: (x) => `sinh(${x})`, infinities: [INF, MINUS_INF], overflows: true })],
  ['cosh', trigonometric('hyperbolic cosine (an overflow is an error)', { finite: (x) => `cosh(${x})`, infinities: [INF, INF], overflows: true })],
  ['tanh', trigonometric('hyperbolic tangent', { finite: (x) => `tanh(${x})`, infinities: ['1e0', '-1e0'] })],
  ['coth', trigonometric('hyperbolic cotangent (an error at 0)', { finite: (x) => `(1 / tanh(${x}))`, infinities: ['1e0', '-1e0'], domain: (x) => `${x} = 0` })],
  ['sech', trigonometric('hyperbolic secant', { finite: (x) => `(1 / cosh(${x}))`, infinities: ['0e0', '0e0'] })],
  ['csch', trigonometric('hyperbolic cosecant (an error at 0)', { finite: (x) => `(1 / sinh(${x}))`, infinities: ['0e0', '0e0'], domain: (x) => `${x} = 0` })],
  ['asinh', trigonometric('inverse hyperbolic sine', { finite: (x) => `asinh(${x})`, infinities: [INF, MINUS_INF] })],
  ['acosh', trigonometric('inverse hyperbolic cosine (an error below 1)', { finite: (x) => `acosh(${x})`, infinities: [INF, NAN], domain: (x) => `${x} < 1` })],
  ['atanh', trigonometric('inverse hyperbolic tangent (an error outside (-1, 1))', { finite: (x) => `atanh(${x})`, infinities: [NAN, NAN], domain: (x) => `abs(${x}) >= 1` })],
]);

