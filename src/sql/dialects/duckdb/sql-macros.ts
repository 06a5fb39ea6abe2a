/**
 * SQL macros the DuckDB backend defines on every connection that runs a query (backends/duckdb/
 * sql-macros.ts), for what must depend on an operand's type where the query does not say it (a
 * column): DuckDB picks a macro's overload by its arguments' types when it binds the query, so a
 * NUMERIC (DECIMAL(38,9)) quotient stays a NUMERIC, at BigQuery's scale, and an INT64 or FLOAT64
 * one is DuckDB's `/` as before. A CASE on `typeof()` could not: its branches share one type, and
 * DuckDB's common type of DECIMAL and DOUBLE is DOUBLE.
 *
 * NUMERIC on DuckDB: its `/` of two DECIMALs is a DOUBLE (`0.999999999 / 2` is 0.4999999995, where
 * BigQuery's is 0.5) and AVG of DECIMALs a DOUBLE. Here a quotient is computed exactly over the
 * values' units of 10^-9 (HUGEINT: NUMERIC's 38 digits fit its 127 bits), rounded half away from
 * zero to 9 decimal places, an error past NUMERIC's range (±(10^29 - 10^-9)).
 */
import { quoteString } from './quote.js';

const PREFIX = 'cannery_sql_';

/** The SQL name of a macro, named apart from DuckDB's functions and from the host functions (their gate matches theirs). */
export function sqlMacroName(name: SqlMacroName): string {
  return `${PREFIX}${name}`;
}

/** BigQuery's offset form of a time zone, `[UTC]{+|-}H[H][:M[M]]`: groups 2 sign, 3 hours, 5 minutes (time-zones.ts). */
export const ZONE_OFFSET_PATTERN = '^(UTC)?([+-])([0-9]{1,2})(:?([0-9]{2}))?$';

/** What a time zone offset with minutes fails with (time-zones.ts). */
export const ZONE_MINUTES_REFUSED = 'a time zone offset with minutes (such as +05:30) is not supported on the embedded engine: name the zone (Asia/Kolkata)';

/** What NUMERIC arithmetic past its range fails with, as BigQuery's message starts. */
export const NUMERIC_OVERFLOW = 'numeric overflow';

/** A failing cast, as semantics.ts `raise` writes (a macro cannot import it: the quoting is the same). */
function raise(message: string, duckType: string): string {
  return `CAST(CAST(${quoteString(message)} AS BIGINT) AS ${duckType})`;
}

const E9 = '1000000000';
const E29 = "CAST('100000000000000000000000000000' AS HUGEINT)";
const E38 = "CAST('100000000000000000000000000000000000000' AS HUGEINT)";

/** x's units of 10^-9, exactly: its integer part (DECIMAL(38,0)) and its fraction, scaled apart so nothing overflows. */
const UNITS = `CAST(trunc(x) AS HUGEINT) * ${E9} + CAST((x - trunc(x)) * ${E9} AS HUGEINT)`;

/** The NUMERIC of n units: an overflow error past NUMERIC's range. */
const FROM_UNITS = `(CASE WHEN abs(n) >= ${E38} THEN ${raise(NUMERIC_OVERFLOW, 'DECIMAL(38, 9)')} ELSE CAST(n // ${E9} AS DECIMAL(38, 9)) + CAST(n % ${E9} AS DECIMAL(18, 0)) * CAST('0.000000001' AS DECIMAL(10, 9)) END)`;

/**
 * a / b in units (a and b HUGEINT, b not 0), rounded half away from zero: the integer quotient,
 * then the remainder's 9 decimal places from |r| * 10^9, which fits while |r| < 10^29. A larger
 * remainder (a divisor of 10^20 or more, with a remainder as large) would need 256 bits: refused
 * when it runs, by name, rather than rounded otherwise.
 */
const QUOTIENT_UNITS = `(CASE WHEN abs(a // b) >= ${E29} THEN ${raise(NUMERIC_OVERFLOW, 'HUGEINT')} ` +
  `WHEN abs(a % b) >= ${E29} THEN ${raise('NUMERIC division with a divisor of 10^20 or more is not supported on the embedded engine', 'HUGEINT')} ` +
  `ELSE (a // b) * ${E9} + sign(a) * sign(b) * ((abs(a % b) * ${E9}) // abs(b) + ` +
  `(CASE WHEN (abs(a % b) * ${E9}) % abs(b) >= abs(b) - (abs(a % b) * ${E9}) % abs(b) THEN 1 ELSE 0 END)) END)`;

function havingRows(extreme: string): string {
  const nan = "list_bool_or(list_transform(__l, __q -> typeof(__q.k) IN ('DOUBLE', 'FLOAT') AND isnan(TRY_CAST(__q.k AS DOUBLE))))";
  const keep = '__e.k = __s.m AND NOT __s.nan';
  // `entries` is named once, as a lambda's one element: DuckDB's binder loses the field names of a
  // struct_pack in an aggregate that a macro names more than once inside a subquery. A struct
  // literal, not struct_pack: a macro's body reads `name := value` as its own named parameter.
  return `list_transform([entries], __l -> list_transform([{'m': ${extreme}(list_transform(__l, __q -> __q.k)), 'nan': ${nan}}], __s -> list_filter(__l, __e -> ${keep}))[1])[1]`;
}

const ZERO_CHECKED = `(CASE WHEN b = 0 THEN ${raise('division by zero', 'BIGINT')} ELSE b END)`;

/**
 * The INTERVAL `i` divided by the BIGINT `n` (not 0) as GoogleSQL divides it (ZetaSQL's
 * IntervalValue::Divide): the months, truncated, their remainder carried into the days at 30 a
 * month, the days the same, their remainder carried into the microseconds, which are truncated
 * toward zero (DuckDB's own division rounds them, and spreads a month otherwise: `INTERVAL
 * '0.000008' SECOND / 3` is 2 microseconds, not 3). `i` and `n` are written several times.
 */
export function intervalQuotient(i: string, n: string): string {
  const months = `(datepart('year', ${i}) * 12 + datepart('month', ${i}))`;
  const days = `(datepart('day', ${i}) + (${months} % ${n}) * 30)`;
  const micros = `(CAST(datepart('hour', ${i}) AS HUGEINT) * 3600000000 + datepart('minute', ${i}) * 60000000 + datepart('microseconds', ${i}) + (${days} % ${n}) * 86400000000)`;
  return `(to_months(${months} // ${n}) + to_days(${days} // ${n}) + to_microseconds(CAST(${micros} // ${n} AS BIGINT)))`;
}

/** BIGNUMERIC's scale: a value is held as its count of units of 10^-38, a BIGNUM (dialects/duckdb/bignumeric.ts). */
export const BIGNUMERIC_SCALE = 38;
/** BIGNUMERIC's range in units: 256 bits, two's complement. */
export const BIGNUMERIC_MAX_UNITS = 2n ** 255n - 1n;
export const BIGNUMERIC_MIN_UNITS = -(2n ** 255n);
/** What BIGNUMERIC arithmetic past its range fails with, as BigQuery's message starts. */
export const BIGNUMERIC_OVERFLOW = 'BIGNUMERIC overflow';

/**
 * Zero units, to negate a BIGNUM by subtraction: DuckDB 1.5's unary minus of a BIGNUM makes a value
 * its comparisons misread (`-x < y` was TRUE for x = 2, y = -10^76), where its `-` of two is exact.
 */
export const ZERO_UNITS = "CAST('0' AS BIGNUM)";

/** The units' digits without sign, at least 39 of them: the point goes before the last 38. */
const BIGNUMERIC_DIGITS = `list_transform([CAST((CASE WHEN u < 0 THEN ${ZERO_UNITS} - u ELSE u END) AS VARCHAR)], t -> repeat('0', greatest(0, ${BIGNUMERIC_SCALE + 1} - length(t))) || t)[1]`;

/** A BIGNUMERIC's text as BigQuery writes it: `1.5`, `-0.001`, `10`, no trailing zeros. */
const BIGNUMERIC_TEXT =
  `list_transform([${PREFIX}bignumeric_digits(u)], d -> (CASE WHEN u < 0 THEN '-' ELSE '' END) || left(d, length(d) - ${BIGNUMERIC_SCALE}) || ` +
  `list_transform([rtrim(right(d, ${BIGNUMERIC_SCALE}), '0')], f -> (CASE WHEN f = '' THEN '' ELSE '.' || f END))[1])[1]`;

/**
 * Each macro's overloads, (parameters) AS body. An operand of a type no overload takes (a STRING)
 * fails to bind, as BigQuery refuses it.
 */
export const SQL_MACROS = {
  numeric_units: [`(x DECIMAL(38, 9)) AS ${UNITS}`],
  numeric_from_units: [`(n HUGEINT) AS ${FROM_UNITS}`],
  numeric_quotient_units: [`(a HUGEINT, b HUGEINT) AS ${QUOTIENT_UNITS}`],
  /**
   * BigQuery's `/`: NUMERIC when neither operand is FLOAT64 and one is NUMERIC (an INT64 is
   * coerced), else FLOAT64, as DuckDB's `/` of BIGINTs or DOUBLEs; INTERVAL / INT64 an INTERVAL,
   * divided as GoogleSQL divides it.
   */
  divide: [
    `(a DECIMAL(38, 9), b DECIMAL(38, 9)) AS (CASE WHEN b = 0 THEN ${raise('division by zero', 'DECIMAL(38, 9)')} ELSE ${PREFIX}numeric_from_units(${PREFIX}numeric_quotient_units(${PREFIX}numeric_units(a), ${PREFIX}numeric_units(b))) END)`,
    `(a BIGINT, b BIGINT) AS a / ${ZERO_CHECKED}`,
    `(a DOUBLE, b DOUBLE) AS a / ${ZERO_CHECKED}`,
    `(a INTERVAL, b BIGINT) AS ${intervalQuotient('a', ZERO_CHECKED)}`,
  ],
  /**
   * BigQuery's DIV, rounded toward zero: of NUMERICs (an INT64 coerced) a NUMERIC, the integer
   * quotient of their units (HUGEINT's `//` truncates), where DuckDB's `//` of DECIMALs is a
   * DOUBLE's; of INT64s DuckDB's `//`, which raises on the INT64 minimum divided by -1 as BigQuery does.
   */
  integer_divide: [
    `(a DECIMAL(38, 9), b DECIMAL(38, 9)) AS (CASE WHEN b = 0 THEN ${raise('division by zero', 'DECIMAL(38, 9)')} ` +
      `WHEN abs(${PREFIX}numeric_units(a) // ${PREFIX}numeric_units(b)) >= ${E29} THEN ${raise(NUMERIC_OVERFLOW, 'DECIMAL(38, 9)')} ` +
      `ELSE ${PREFIX}numeric_from_units((${PREFIX}numeric_units(a) // ${PREFIX}numeric_units(b)) * ${E9}) END)`,
    `(a BIGINT, b BIGINT) AS a // ${ZERO_CHECKED}`,
  ],
  /**
   * BigQuery's `*` of two NUMERICs: the integer part of a times b, a's fraction times b's integer
   * part (both exact at 9 places, DuckDB's overflow error past NUMERIC's range), and the product
   * of the fractions rounded half away from zero to 9 places. The three have one sign, so rounding
   * the last rounds the sum. Of other types DuckDB's `*`.
   */
  multiply: [
    '(a DECIMAL(38, 9), b DECIMAL(38, 9)) AS trunc(a) * b + (a - trunc(a)) * trunc(b) + CAST((a - trunc(a)) * (b - trunc(b)) AS DECIMAL(38, 9))',
    '(a BIGINT, b BIGINT) AS a * b',
    '(a DOUBLE, b DOUBLE) AS a * b',
    '(a INTERVAL, b BIGINT) AS a * b',
    '(a BIGINT, b INTERVAL) AS a * b',
  ],
  /** BigQuery's AVG: of NUMERICs a NUMERIC (their sum / their count, rounded), else FLOAT64 (INTERVAL: an INTERVAL). */
  average: [
    `(x DECIMAL(38, 9)) AS (CASE WHEN count(x) = 0 THEN NULL ELSE ${PREFIX}numeric_from_units(${PREFIX}numeric_quotient_units(${PREFIX}numeric_units(sum(x)), CAST(count(x) AS HUGEINT) * ${E9})) END)`,
    '(x BIGINT) AS avg(x)',
    '(x DOUBLE) AS avg(x)',
    '(x INTERVAL) AS avg(x)',
  ],
  /** A BIGNUMERIC's units, BigQuery's error past its range. */
  bignumeric_checked: [
    `(u) AS (CASE WHEN u > CAST('${BIGNUMERIC_MAX_UNITS}' AS BIGNUM) OR u < CAST('${BIGNUMERIC_MIN_UNITS}' AS BIGNUM) THEN ${raise(`${BIGNUMERIC_OVERFLOW}: a result past BIGNUMERIC's range`, 'BIGNUM')} ELSE u END)`,
  ],
  /** An INT64's units: its digits and 38 zeros (BIGNUM's `*` is a DOUBLE's). */
  bignumeric_of_int64: [`(x BIGINT) AS CAST(CAST(x AS VARCHAR) || '${'0'.repeat(BIGNUMERIC_SCALE)}' AS BIGNUM)`],
  /** A NUMERIC's units: its text always has 9 places (`-1.500000000`), so its digits and 29 zeros. */
  bignumeric_of_numeric: [`(x DECIMAL(38, 9)) AS CAST(replace(CAST(x AS VARCHAR), '.', '') || '${'0'.repeat(BIGNUMERIC_SCALE - 9)}' AS BIGNUM)`],
  bignumeric_digits: [`(u) AS ${BIGNUMERIC_DIGITS}`],
  bignumeric_text: [`(u) AS ${BIGNUMERIC_TEXT}`],
  /**
   * HAVING MAX | MIN k (dialects/duckdb/rewrites/having-extreme.ts): of a group's rows, a list of
   * STRUCTs with each row's key as `k`, those whose `k` equals the largest (smallest) `k` by SQL
   * equality, so NULL keys never and ties all. The extreme is computed once (the outer lambda's
   * one element). A NaN key keeps no row: BigQuery's MAX and MIN over one are NaN, which equals
   * nothing (ZetaSQL's compliance answers say so), where DuckDB's NaN equals NaN and its MIN skips it.
   */
  /**
   * A time zone as DuckDB reads it the way BigQuery does (time-zones.ts): an offset of whole hours
   * as its fixed zone, one with minutes an error, a name as it is.
   */
  time_zone: [
    `(z) AS (CASE WHEN NOT regexp_full_match(z, '${ZONE_OFFSET_PATTERN.slice(1, -1)}') THEN z ` +
      `WHEN regexp_extract(z, '${ZONE_OFFSET_PATTERN}', 5) NOT IN ('', '00') THEN ${raise(ZONE_MINUTES_REFUSED, 'VARCHAR')} ` +
      `WHEN CAST(regexp_extract(z, '${ZONE_OFFSET_PATTERN}', 3) AS INTEGER) = 0 THEN 'UTC' ` +
      `ELSE 'Etc/GMT' || (CASE WHEN regexp_extract(z, '${ZONE_OFFSET_PATTERN}', 2) = '+' THEN '-' ELSE '+' END) || CAST(CAST(regexp_extract(z, '${ZONE_OFFSET_PATTERN}', 3) AS INTEGER) AS VARCHAR) END)`,
  ],
  having_max: [`(entries) AS ${havingRows('list_max')}`],
  having_min: [`(entries) AS ${havingRows('list_min')}`],
} as const;

export type SqlMacroName = keyof typeof SQL_MACROS;

/** The statements that define every macro on a connection (TEMP: a read-only database file takes them too). */
export function sqlMacroStatements(): string[] {
  return (Object.entries(SQL_MACROS) as [SqlMacroName, readonly string[]][]).map(([name, overloads]) => `CREATE OR REPLACE TEMP MACRO ${sqlMacroName(name)}${overloads.join(', ')}`);
}
