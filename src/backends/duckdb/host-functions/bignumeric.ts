/**
 * BIGNUMERIC's exact arithmetic on DuckDB, over BigInt: `*`, `/`, DIV, MOD, ROUND, TRUNC, CEIL,
 * FLOOR and CAST from FLOAT64. A BIGNUMERIC is held as a BIGNUM of units of 10^-38
 * (sql/dialects/duckdb/bignumeric.ts), whose `*` and `/` DuckDB computes as DOUBLEs; these take
 * and give the units' text. Each result is rounded half away from zero at 38 places, as BigQuery
 * rounds (ZetaSQL's BigNumericValue), and fails with BigQuery's words past the range or for a zero
 * divisor. The operands are at most 78 digits each: the work of a row is a few BigInt operations.
 */
import { bignumericText } from '../../../sql/dialects/duckdb/bignumeric.js';
import { BIGNUMERIC_MAX_UNITS, BIGNUMERIC_MIN_UNITS, BIGNUMERIC_OVERFLOW, BIGNUMERIC_SCALE } from '../../../sql/dialects/duckdb/sql-macros.js';
import { HostFunctionError } from './errors.js';
import { exactDouble } from './exact-double.js';

/** One, in units. */
const ONE = 10n ** BigInt(BIGNUMERIC_SCALE);

/** `numerator / denominator` (denominator not 0), rounded half away from zero. */
function roundedQuotient(numerator: bigint, denominator: bigint): bigint {
  const negative = numerator < 0n !== denominator < 0n;
  const n = numerator < 0n ? -numerator : numerator;
  const d = denominator < 0n ? -denominator : denominator;
  const quotient = n / d;
  const rounded = (n % d) * 2n >= d ? quotient + 1n : quotient;
  return negative ? -rounded : rounded;
}

function inRange(units: bigint, what: () => string): string {
  if (units > BIGNUMERIC_MAX_UNITS || units < BIGNUMERIC_MIN_UNITS) throw new HostFunctionError(`${BIGNUMERIC_OVERFLOW}: ${what()}`);
  return units.toString();
}

const text = (units: string) => bignumericText(BigInt(units));

export function bignumericMultiply(a: string, b: string): string {
  return inRange(roundedQuotient(BigInt(a) * BigInt(b), ONE), () => `${text(a)} * ${text(b)}`);
}

export function bignumericDivide(a: string, b: string): string {
  const divisor = BigInt(b);
  if (divisor === 0n) throw new HostFunctionError(`division by zero: ${text(a)} / ${text(b)}`);
  return inRange(roundedQuotient(BigInt(a) * ONE, divisor), () => `${text(a)} / ${text(b)}`);
}

/** DIV: the quotient's integer part (BigInt's `/` truncates toward zero), as a BIGNUMERIC. */
export function bignumericDiv(a: string, b: string): string {
  const divisor = BigInt(b);
  if (divisor === 0n) throw new HostFunctionError(`division by zero: DIV(${text(a)}, ${text(b)})`);
  return inRange((BigInt(a) / divisor) * ONE, () => `DIV(${text(a)}, ${text(b)})`);
}

/** MOD: the remainder with the dividend's sign, as BigInt's `%` gives it; never past the range. */
export function bignumericMod(a: string, b: string): string {
  const divisor = BigInt(b);
  if (divisor === 0n) throw new HostFunctionError(`division by zero: MOD(${text(a)}, ${text(b)})`);
  return (BigInt(a) % divisor).toString();
}

/** How ROUND, TRUNC, CEIL and FLOOR take the digits they drop. */
export type BignumericRounding = 'half_away' | 'half_even' | 'trunc' | 'ceil' | 'floor';

const ROUNDINGS: ReadonlySet<string> = new Set<BignumericRounding>(['half_away', 'half_even', 'trunc', 'ceil', 'floor']);

/**
 * The value rounded to `places` decimal places (negative: to tens, hundreds...), as `mode` says;
 * past the range, BigQuery's overflow error (ROUND of the largest value to -1 places, CEIL of it).
 */
export function bignumericRound(units: string, places: bigint, mode: string): string {
  if (!ROUNDINGS.has(mode)) throw new Error(`no BIGNUMERIC rounding ${mode}`);
  const value = BigInt(units);
  // Past 38 places nothing is dropped; past 80 to the left everything is (|value| < 10^77 units).
  const drop = BigInt(BIGNUMERIC_SCALE) - (places > 200n ? 200n : places < -200n ? -200n : places);
  if (drop <= 0n) return units;
  const step = 10n ** (drop > 80n ? 80n : drop);
  const magnitude = value < 0n ? -value : value;
  let kept = magnitude / step;
  const rest = magnitude % step;
  const up =
    mode === 'half_away' ? rest * 2n >= step
    : mode === 'half_even' ? rest * 2n > step || (rest * 2n === step && kept % 2n === 1n)
    : mode === 'ceil' ? rest > 0n && value > 0n
    : mode === 'floor' ? rest > 0n && value < 0n
    : false;
  if (up) kept += 1n;
  const result = value < 0n ? -(kept * step) : kept * step;
  // TRUNC never grows a value; ROUND, CEIL and FLOOR are named as BigQuery names them.
  return inRange(result, () => (mode === 'ceil' || mode === 'floor' ? `${mode.toUpperCase()}(${text(units)})` : `ROUND(${text(units)}, ${places})`));
}

/** CAST of a FLOAT64 to BIGNUMERIC: the double's exact value, rounded half away from zero at 38 places. */
export function bignumericOfDouble(value: number): string {
  if (!Number.isFinite(value)) throw new HostFunctionError(`Illegal conversion of non-finite floating point number to BIGNUMERIC: ${Number.isNaN(value) ? 'nan' : value > 0 ? 'inf' : '-inf'}`);
  // Below 10^-39 it rounds to 0: a subnormal's exact value has a thousand digits.
  if (Math.abs(value) < 1e-39) return '0';
  const { magnitude, scale } = exactDouble(value);
  const units = scale <= BIGNUMERIC_SCALE ? magnitude * 10n ** BigInt(BIGNUMERIC_SCALE - scale) : roundedQuotient(magnitude, 10n ** BigInt(scale - BIGNUMERIC_SCALE));
  const signed = value < 0 ? -units : units;
  if (signed > BIGNUMERIC_MAX_UNITS || signed < BIGNUMERIC_MIN_UNITS) throw new HostFunctionError(`BIGNUMERIC out of range: ${value}`);
  return signed.toString();
}
