/**
 * Aggregate functions beyond the common ones: bitwise aggregates, MAX_BY and MIN_BY (the value at
 * the row of the largest or smallest key, NULL keys skipped, a NULL value kept), ARRAY_CONCAT_AGG,
 * APPROX_TOP_SUM (exact here), and the statistical aggregates, which BigQuery makes NaN where an
 * input is infinite or NaN (DuckDB's raise an error there) and computes in FLOAT64.
 */
import { raise, repeatable } from '../dialects/duckdb/semantics.js';
import { INT64_OVERFLOW } from './overflow.js';
import { fail, literalCount } from './arguments.js';
import { aggregate, FIRST, same, type CallContext, type FunctionSpec, type Render } from './call.js';

/** An aggregate call with the window it is computed over, if any (`OVER (...)`, written by the generator). */
function over(call: CallContext): string {
  return call.over ?? '';
}

/** 2^-53: the most a value's conversion to the nearest FLOAT64 moves it, relative to its size. */
const DOUBLE_ROUNDING = '1.1102230246251565e-16';

/**
 * Where a NUMERIC argument's values are too close together for FLOAT64 at their size: BigQuery
 * computes the statistical aggregates of NUMERICs over the exact values, DuckDB over doubles, so
 * STDDEV_POP of 1000000000000000000000000.1 and .2 would be 0 instead of 0.05. Refused when the
 * values' rounding to doubles could move the answer by more than 1e-9 of the spread (the largest
 * value's rounding against the doubles' standard deviation), unless every value is the same.
 * Arguments the query types as another type need no check; for one it does not type, DuckDB's
 * `typeof()` decides (inside an aggregate, as the CASE is computed over the group).
 */
function numericSpreadLost(call: CallContext, doubles: readonly string[]): string | undefined {
  const checks = call.args.flatMap((arg, index) => {
    const type = call.typeOf(call.argNodes[index]!);
    if (type !== undefined && type !== 'numeric') return [];
    const value = repeatable(arg, call.refuse);
    // Of a column it does not type, only NUMERICs are measured: a FLOAT64 near 1e308 would
    // overflow DuckDB's standard deviation, and needs no check.
    const numeric = `typeof(${value}) = 'DECIMAL(38,9)'`;
    const isNumeric = type === 'numeric' ? '' : `bool_or(${numeric})${over(call)} AND `;
    const only = type === 'numeric' ? '' : ` FILTER (WHERE ${numeric})`;
    const double = doubles[index]!;
    return [`(${isNumeric}min(${value})${over(call)} <> max(${value})${over(call)} AND max(abs(${double}))${only}${over(call)} * ${DOUBLE_ROUNDING} > 1e-9 * stddev_pop(${double})${only}${over(call)})`];
  });
  return checks.length === 0 ? undefined : checks.join(' OR ');
}

/**
 * A statistical aggregate of FLOAT64 values: NaN when a value (of a pair with no NULL) is NaN or
 * infinite, else DuckDB's over the finite values; refused when NUMERICs lose their spread as doubles.
 */
function statistical(duckName: string): Render {
  return (call) => {
    const values = call.args.map((arg) => repeatable(`CAST(${arg} AS DOUBLE)`, call.refuse));
    const finite = values.map((value) => `isfinite(${value})`).join(' AND ');
    const distinct = call.distinct ? 'DISTINCT ' : '';
    // BigQuery's CORR of fewer than two pairs is NULL; DuckDB's of one pair divides 0 by 0 (NaN).
    const tooFew = duckName === 'corr' ? ` WHEN count(*) FILTER (WHERE ${finite})${over(call)} < 2 THEN NULL` : '';
    const lost = numericSpreadLost(call, values);
    const refused = lost === undefined ? '' : ` WHEN ${lost} THEN ${raise(`${call.name.toUpperCase()} of NUMERIC values this close together for their size is not supported on the embedded engine, which computes it over FLOAT64 where BigQuery uses the exact values (subtract a value near them first, or CAST them to FLOAT64)`, 'DOUBLE')}`;
    return `(CASE WHEN bool_or(NOT (${finite}))${over(call)} THEN CAST('NaN' AS DOUBLE)${tooFew}${refused} ELSE ${duckName}(${distinct}${values.join(', ')}) FILTER (WHERE ${finite})${over(call)} END)`;
  };
}

function statisticalAggregate(summary: string, arity: number, duckName: string): FunctionSpec {
  return { ...aggregate(summary, [arity, arity], statistical(duckName), 'float64'), placesOver: true };
}

/** ARRAY_CONCAT_AGG: the arrays joined (NULL arrays skipped; ORDER BY and LIMIT choose them); NULL for none. */
function arrayConcatAgg(call: CallContext): string {
  const array = call.args[0]!;
  const arrays = `array_agg(${array}${call.orderBy ?? ''}) FILTER (WHERE ${array} IS NOT NULL)`;
  return `flatten(${call.limit === undefined ? arrays : `list_slice(${arrays}, 1, ${call.limit})`})`;
}

/**
 * APPROX_TOP_SUM (exact on the embedded engine): the n values (NULL one of them) with the largest
 * sums of their weights, largest first, a value whose weights are all NULL last; a negative or NaN
 * weight is an error, and so is a sum past INT64.
 */
function approxTopSum(call: CallContext): string {
  const top = literalCount(call, 2, 'the number of values');
  const value = repeatable(call.args[0]!, call.refuse);
  const weight = repeatable(call.args[1]!, call.refuse);
  const entries = `list(struct_pack(v := ${value}, w := ${weight}))`;
  // Each value wrapped in a list, so that list_distinct keeps NULL as a value.
  const values = `list_distinct(list_transform(${entries}, __e -> [__e.v]))`;
  // A value whose weights are all NULL has a NULL sum and ranks last: DuckDB orders a struct's NULL
  // field above every value, so the sort key says first whether the sum is there.
  // INT64 weights sum into DuckDB's HUGEINT: a sum past INT64 is BigQuery's overflow error
  // (ZetaSQL's approx_top_sum_top_weight_overflow), where it answered the wider value.
  const int64Sum = `(CASE WHEN typeof(__t) = 'HUGEINT' AND (__t > 9223372036854775807 OR __t < -9223372036854775808) THEN ${raise(`${INT64_OVERFLOW}: an APPROX_TOP_SUM of INT64 weights summing past the range of INT64`)} ELSE __t END)`;
  const sums = `list_transform(${values}, __k -> list_transform([list_sum(list_transform(list_filter(${entries}, __e -> __e.v IS NOT DISTINCT FROM __k[1]), __e -> __e.w))], __t -> struct_pack(known := __t IS NOT NULL, sum := ${int64Sum}, value := __k[1]))[1])`;
  const top_ = `list_transform(list_slice(list_sort(${sums}, 'DESC', 'NULLS LAST'), 1, ${top}), __s -> struct_pack(value := __s.value, sum := __s.sum))`;
  const bad = `bool_or(${weight} < 0 OR (typeof(${weight}) IN ('DOUBLE', 'FLOAT') AND isnan(TRY_CAST(${weight} AS DOUBLE))))`;
  // The error is typed as the answer (a slice of it), so the CASE keeps the answer's type.
  return `(CASE WHEN count(*) = 0 THEN NULL WHEN coalesce(${bad}, false) THEN list_slice(${top_}, 1, ${fail(call, 'APPROX_TOP_SUM of a negative or NaN weight')}) ELSE ${top_} END)`;
}

export const MORE_AGGREGATES: ReadonlyMap<string, FunctionSpec> = new Map<string, FunctionSpec>([
  ['bit_and', aggregate('bitwise AND of the non-NULL INT64 values', [1, 1], same('bit_and'), 'int64')],
  ['bit_or', aggregate('bitwise OR of the non-NULL INT64 values', [1, 1], same('bit_or'), 'int64')],
  ['bit_xor', aggregate('bitwise XOR of the non-NULL INT64 values', [1, 1], same('bit_xor'), 'int64')],
  ['max_by', aggregate('the value at the row with the largest key (NULL keys skipped)', [2, 2], same('arg_max_null'), FIRST)],
  ['min_by', aggregate('the value at the row with the smallest key (NULL keys skipped)', [2, 2], same('arg_min_null'), FIRST)],
  ['array_concat_agg', aggregate('the non-NULL arrays joined (ORDER BY, LIMIT)', [1, 1], arrayConcatAgg, undefined, { orderBy: true, limit: true })],
  ['approx_top_sum', aggregate('the n values with the largest sums of weights, with their sums (exact on the embedded engine)', [3, 3], approxTopSum)],
  ['corr', statisticalAggregate('Pearson correlation of the non-NULL pairs', 2, 'corr')],
  ['covar_pop', statisticalAggregate('population covariance of the non-NULL pairs', 2, 'covar_pop')],
  ['covar_samp', statisticalAggregate('sample covariance of the non-NULL pairs', 2, 'covar_samp')],
  ['stddev_pop', statisticalAggregate('population standard deviation', 1, 'stddev_pop')],
  ['stddev_samp', statisticalAggregate('sample standard deviation', 1, 'stddev_samp')],
  ['stddev', statisticalAggregate('same as STDDEV_SAMP', 1, 'stddev_samp')],
  ['var_pop', statisticalAggregate('population variance', 1, 'var_pop')],
  ['var_samp', statisticalAggregate('sample variance', 1, 'var_samp')],
  ['variance', statisticalAggregate('same as VAR_SAMP', 1, 'var_samp')],
]);
