/**
 * Date parts as BigQuery's date and time functions take them (`WEEK(MONDAY)`, `ISOWEEK`), and
 * truncation to them in DuckDB's terms: weeks that start on any day, parts of fixed length by
 * their microseconds.
 */

export const WEEKDAYS: readonly string[] = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];
/** `WEEK(<weekday>)` in a list of allowed parts. */
export const WEEKDAY_WEEK = 'week(weekday)';
export const TIME_PARTS = ['microsecond', 'millisecond', 'second', 'minute', 'hour'] as const;
const WEEK_PARTS = ['week', WEEKDAY_WEEK, 'isoweek'] as const;
export const TRUNCATION_PARTS: readonly string[] = [...TIME_PARTS, 'day', ...WEEK_PARTS, 'month', 'quarter', 'year', 'isoyear'];
export const DATE_TRUNCATION_PARTS: readonly string[] = TRUNCATION_PARTS;
export const TIMESTAMP_DIFF_PARTS: readonly string[] = [...TIME_PARTS, 'day'];
export const DIFF_PARTS: readonly string[] = [...TIME_PARTS, 'day', ...WEEK_PARTS, 'month', 'quarter', 'year', 'isoyear'];

/** Whether `part` (`hour`, `week(monday)`) is one of `allowed`. */
export function allowsPart(allowed: readonly string[], part: string, weekday: string | undefined): boolean {
  if (weekday === undefined) return allowed.includes(part);
  return part === 'week' && allowed.includes(WEEKDAY_WEEK) && WEEKDAYS.includes(weekday);
}

/** The day a week starts on (0 is Sunday) for a week part, undefined for any other part. */
export function weekStart(part: string): number | undefined {
  if (part === 'week') return 0;
  if (part === 'isoweek') return 1;
  const weekday = /^week\((\w+)\)$/.exec(part)?.[1];
  return weekday === undefined ? undefined : WEEKDAYS.indexOf(weekday);
}

export const MICROS: Readonly<Record<string, bigint>> = {
  microsecond: 1n,
  millisecond: 1000n,
  second: 1_000_000n,
  minute: 60_000_000n,
  hour: 3_600_000_000n,
  day: 86_400_000_000n,
};

/**
 * A DATETIME (`zoned` false) or TIMESTAMP truncated to a part. Parts of fixed length floor the
 * epoch microseconds: about a tenth of date_trunc's cost on a TIMESTAMPTZ, whose zone-aware
 * truncation is what usage.api-counts' buckets spent most on (the double modulo floors instants
 * before 1970 too). Weeks shift date_trunc's, which start on Monday.
 */
export function truncateTime(value: string, part: string, zoned: boolean): string {
  const unit = MICROS[part];
  if (unit !== undefined && part !== 'microsecond') {
    const micros = `epoch_us(${value})`;
    return `${zoned ? 'make_timestamptz' : 'make_timestamp'}(${micros} - (((${micros} % ${unit}) + ${unit}) % ${unit}))`;
  }
  const start = weekStart(part);
  if (start === undefined) return `date_trunc('${part}', ${value})`;
  // Shifting by s days first makes DuckDB's Monday weeks start s days earlier.
  const shift = (1 - start + 7) % 7;
  return shift === 0 ? `date_trunc('week', ${value})` : `(date_trunc('week', ${value} + INTERVAL ${shift} DAY) - INTERVAL ${shift} DAY)`;
}

/**
 * A DATETIME or TIMESTAMP truncated to a part in UTC, of the type it has, where the query does not
 * say which: an INTERVAL subtracted and date_trunc both keep DuckDB's type (the service runs with
 * TimeZone=UTC), where make_timestamp and make_timestamptz choose one. `value` is read more than once.
 */
export function truncateKeepingType(value: string, part: string): string {
  const unit = MICROS[part];
  if (unit === undefined || part === 'microsecond') return truncateTime(value, part, true);
  const micros = `epoch_us(${value})`;
  return `(${value} - to_microseconds(((${micros} % ${unit}) + ${unit}) % ${unit}))`;
}

/**
 * A DATE, DATETIME or TIMESTAMP truncated to a part, keeping its type (time_bucket does; date_trunc
 * makes a DATE a TIMESTAMP). An ISO year is no fixed width from a fixed origin, so only date_trunc
 * finds its first Monday: the caller says whether the value is a DATE, to cast it back.
 */
export function truncateAnyType(value: string, part: string, isDate = true): string {
  if (part === 'isoyear') return isDate ? `CAST(date_trunc('isoyear', ${value}) AS DATE)` : `date_trunc('isoyear', ${value})`;
  const start = weekStart(part);
  // 2000-01-02 is a Sunday: buckets of 7 days from there start on Sundays.
  if (start !== undefined) return `time_bucket(INTERVAL 7 DAY, ${value}, DATE '2000-01-0${2 + start}')`;
  const width = part === 'quarter' ? '3 MONTH' : `1 ${part.toUpperCase()}`;
  return `time_bucket(INTERVAL ${width}, ${value})`;
}

