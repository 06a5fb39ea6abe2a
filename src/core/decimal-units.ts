/**
 * A decimal's digits as a count of units of 10^-places, the one reading of decimal text that
 * NUMERIC and BIGNUMERIC share: BIGNUMERIC literals and casts (sql/dialects/duckdb/bignumeric.ts),
 * PARSE_NUMERIC and PARSE_BIGNUMERIC (backends/duckdb/host-functions/numeric.ts). Each caller
 * matches its own text's shape (PARSE_ allows commas and a trailing sign, a literal does not) and
 * applies the sign and its type's range.
 */

/**
 * The magnitude `whole.fraction * 10^exponent` in units of 10^-places, rounded half away from
 * zero, as BigQuery rounds a literal, a cast or a parse; undefined past 10^100 (past any type's
 * range). `whole` and `fraction` are digits only, either may be empty.
 */
export function decimalUnits(whole: string, fraction: string, exponent: string, places: number): bigint | undefined {
  const significant = (whole + fraction).replace(/^0+/, '');
  if (significant === '') return 0n;
  // The value is digits * 10^-scale: below 10^-(places + 1) it rounds to 0, past 10^100 it is past
  // any range, so no huge power of ten is ever built (`1e-999999999`).
  const scale = fraction.length - Number(exponent);
  if (scale - significant.length > places + 1) return 0n;
  if (significant.length - scale > 100) return undefined;
  const digits = BigInt(significant);
  const shift = places - scale;
  if (shift >= 0) return digits * 10n ** BigInt(shift);
  const divisor = 10n ** BigInt(-shift);
  const units = digits / divisor;
  return (digits % divisor) * 2n >= divisor ? units + 1n : units;
}
