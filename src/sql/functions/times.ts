/**
 * Date, time and bucket functions beyond the common ones: LAST_DAY, the Unix day count, the TIME
 * type's functions (TIME is DuckDB's TIME; arithmetic wraps around midnight as BigQuery's does),
 * STRING of a TIMESTAMP with its zone's offset, and the bucket functions over BigQuery's default
 * origin (1950-01-01 00:00:00).
 */
import { duckZone } from '../dialects/duckdb/time-zones.js';
import { computedOnce, repeatable, secondFraction, unless } from '../dialects/duckdb/semantics.js';
import { intervalFieldsInRange } from './overflow.js';
import { coerced, civilOnly, failWhen } from './arguments.js';
import { scalar, type CallContext, type FunctionSpec, type Render } from './call.js';
import { jsonString } from './json.js';
import { MICROS, TIME_PARTS, truncateAnyType, weekStart, WEEKDAY_WEEK } from './time-parts.js';

const LAST_DAY_PARTS: readonly string[] = ['week', WEEKDAY_WEEK, 'isoweek', 'month', 'quarter', 'year', 'isoyear'];

/** LAST_DAY: the last day of the DATE's (or DATETIME's) month, or of another part. */
function lastDay(given: CallContext): string {
  const call = civilOnly(given, [0]);
  const date = `CAST(${coerced(call, 0, 'DATE')} AS DATE)`;
  const part = call.parts[1] ?? 'month';
  if (part === 'month') return `last_day(${date})`;
  if (weekStart(part) !== undefined) return `CAST(${truncateAnyType(date, part)} + INTERVAL 6 DAY AS DATE)`;
  if (part === 'isoyear') {
    // The Sunday before the next ISO year's first Monday (the one of the week holding January 4).
    const last = repeatable(`(CAST(date_trunc('isoyear', make_date(isoyear(${date}) + 1, 1, 4)) AS DATE) - 1)`, call.refuse);
    return failWhen(call, `${last} > DATE '9999-12-31'`, 'LAST_DAY is past 9999-12-31', last, 'DATE');
  }
  const length = part === 'quarter' ? '3 MONTH' : '1 YEAR';
  return `CAST(${truncateAnyType(date, part)} + INTERVAL ${length} - INTERVAL 1 DAY AS DATE)`;
}

/** A TIME as microseconds since midnight. */
function timeMicros(time: string): string {
  return `epoch_us(DATE '1970-01-01' + ${time})`;
}

/** TIME_ADD and TIME_SUB: an INTERVAL of hours or less, wrapping around midnight. */
function timeShift(operator: '+' | '-'): Render {
  return (call) => {
    const interval = call.argNodes[1];
    if (interval?.kind !== 'interval' || !(TIME_PARTS as readonly string[]).includes(interval.unit)) return call.invalid(`${call.name.toUpperCase()} takes an INTERVAL of HOUR or less`);
    return `(${coerced(call, 0, 'TIME')} ${operator} ${call.args[1]})`;
  };
}

/** TIME_DIFF: whole parts from the second TIME to the first. */
function timeDiff(call: CallContext): string {
  const unit = MICROS[call.parts[2]!]!;
  return `((${timeMicros(coerced(call, 0, 'TIME'))} - ${timeMicros(coerced(call, 1, 'TIME'))}) // ${unit})`;
}

function timeTrunc(call: CallContext): string {
  const unit = MICROS[call.parts[1]!]!;
  const micros = repeatable(timeMicros(coerced(call, 0, 'TIME')), call.refuse);
  return `CAST(make_timestamp(${micros} - ${micros} % ${unit}) AS TIME)`;
}

/** TIME(hour, minute, second), TIME(timestamp[, zone]) or TIME(datetime). */
function time(call: CallContext): string {
  if (call.args.length === 3) return `make_time(${call.args[0]}, ${call.args[1]}, ${call.args[2]})`;
  const zone = call.args[1];
  if (zone !== undefined) return `CAST(timezone(${duckZone(zone)}, ${coerced(call, 0, 'TIMESTAMPTZ')}) AS TIME)`;
  // A TIMESTAMP's time of day in UTC (DuckDB casts TIMESTAMPTZ to TIME only through TIMETZ).
  return `CAST(CAST(${call.args[0]} AS TIMETZ) AS TIME)`;
}

/** STRING(timestamp[, zone]): the civil time in the zone (UTC by default) and its offset (`+00`, `-08`, `+05:30`). */
function timestampString(call: CallContext): string {
  const instant = repeatable(coerced(call, 0, 'TIMESTAMPTZ'), call.refuse);
  const local = repeatable(`timezone(${duckZone(call.args[1] ?? `'UTC'`)}, ${instant})`, call.refuse);
  const minutes = repeatable(`CAST(round((epoch(${local}) - epoch(${instant})) / 60) AS BIGINT)`, call.refuse);
  const offset = `(CASE WHEN ${minutes} < 0 THEN '-' ELSE '+' END || lpad(CAST(abs(${minutes}) // 60 AS VARCHAR), 2, '0') || (CASE WHEN ${minutes} % 60 = 0 THEN '' ELSE ':' || lpad(CAST(abs(${minutes}) % 60 AS VARCHAR), 2, '0') END))`;
  return `(strftime(${local}, '%Y-%m-%d %H:%M:%S') || ${secondFraction(local, call.refuse)} || ${offset})`;
}

/** STRING of a JSON string value or of a TIMESTAMP; where the query does not say which, DuckDB picks. */
function string(call: CallContext): string {
  const type = call.argNodes[0] && call.typeOf(call.argNodes[0]);
  if (type === 'json') return jsonString(call);
  // ZetaSQL has STRING(DATE) and STRING(DATETIME); BigQuery's reference lists STRING of a TIMESTAMP
  // or JSON only, so what it answers for them is not known.
  if (type === 'date' || type === 'datetime') return call.refuse(`STRING of a ${type.toUpperCase()} (CAST it AS STRING)`);
  if (type !== undefined || call.args.length === 2) return timestampString(call);
  const value = repeatable(call.args[0]!, call.refuse);
  return `(CASE WHEN typeof(${value}) = 'JSON' THEN ${jsonString({ ...call, args: [value] })} ELSE ${timestampString({ ...call, args: [value] })} END)`;
}

const INTERVAL_PARTS = ['year', 'month', 'day', 'hour', 'minute', 'second'] as const;
const INTERVAL_BUILDERS: Readonly<Record<(typeof INTERVAL_PARTS)[number], (value: string) => string>> = {
  year: (value) => `to_years(CAST(${value} AS INTEGER))`,
  month: (value) => `to_months(CAST(${value} AS INTEGER))`,
  day: (value) => `to_days(CAST(${value} AS INTEGER))`,
  hour: (value) => `to_hours(CAST(${value} AS BIGINT))`,
  minute: (value) => `to_minutes(CAST(${value} AS BIGINT))`,
  second: (value) => `to_seconds(CAST(${value} AS DOUBLE))`,
};

/** MAKE_INTERVAL: an INTERVAL of years, months, days, hours, minutes and seconds, by position or by name, 0 where absent. */
function makeInterval(call: CallContext): string {
  const parts = INTERVAL_PARTS.map((part, index) => call.named[part]?.sql ?? call.args[index]);
  if (call.args.some((_, index) => call.named[INTERVAL_PARTS[index]!] !== undefined)) return call.invalid(`MAKE_INTERVAL is given a part by position and by name`);
  const terms = INTERVAL_PARTS.flatMap((part, index) => (parts[index] === undefined ? [] : [INTERVAL_BUILDERS[part](parts[index]!)]));
  return terms.length === 0 ? 'INTERVAL 0 SECOND' : intervalFieldsInRange(`(${terms.join(' + ')})`, call.refuse);
}

const DAY_MICROS = 86_400_000_000n;

/**
 * JUSTIFY_DAYS, JUSTIFY_HOURS, JUSTIFY_INTERVAL: the parts named (days and months; time and days;
 * all three) taken as one total, a month 30 days and a day 24 hours, and split again with one
 * sign, as BigQuery does (`1-2 -35 0:0:0` justifies its days to `1-0 25 0:0:0`); BigQuery's error
 * where a part of the result is past its range. DuckDB's INTERVAL holds months, days and
 * microseconds as BigQuery's does; the totals are HUGEINT, as months in microseconds pass INT64.
 */
function justify(call: CallContext): string {
  const justified = computedOnce(repeatable(call.args[0]!, call.refuse), (v) => {
    const months = `(CAST(datepart('year', ${v}) AS HUGEINT) * 12 + datepart('month', ${v}))`;
    const days = `CAST(datepart('day', ${v}) AS HUGEINT)`;
    const micros = `(CAST(datepart('hour', ${v}) AS HUGEINT) * 3600000000 + datepart('minute', ${v}) * 60000000 + datepart('microseconds', ${v}))`;
    // A total split into units of `unit` and the rest, each with the total's sign.
    const split = (total: string, unit: string) => {
      const sign = `(CASE WHEN ${total} < 0 THEN -1 ELSE 1 END)`;
      return { whole: `(${sign} * (abs(${total}) // ${unit}))`, rest: `(${sign} * (abs(${total}) % ${unit}))` };
    };
    const interval = (m: string, d: string, us: string) => `(to_months(CAST(${m} AS INTEGER)) + to_days(CAST(${d} AS INTEGER)) + to_microseconds(CAST(${us} AS BIGINT)))`;
    switch (call.name) {
      case 'justify_days': {
        const { whole, rest } = split(`(${months} * 30 + ${days})`, '30');
        return interval(whole, rest, micros);
      }
      case 'justify_hours': {
        const { whole, rest } = split(`(${days} * ${DAY_MICROS} + ${micros})`, String(DAY_MICROS));
        return interval(months, whole, rest);
      }
      default: {
        const total = `((${months} * 30 + ${days}) * ${DAY_MICROS} + ${micros})`;
        const { whole, rest } = split(total, String(30n * DAY_MICROS));
        const time = split(rest, String(DAY_MICROS));
        return interval(whole, time.whole, time.rest);
      }
    }
  });
  return intervalFieldsInRange(justified, call.refuse);
}

const ORIGINS: Readonly<Record<string, string>> = {
  date_bucket: `DATE '1950-01-01'`,
  datetime_bucket: `TIMESTAMP '1950-01-01 00:00:00'`,
  timestamp_bucket: `TIMESTAMPTZ '1950-01-01 00:00:00+00'`,
};

const BUCKET_TYPES: Readonly<Record<string, string>> = { date_bucket: 'DATE', datetime_bucket: 'TIMESTAMP', timestamp_bucket: 'TIMESTAMPTZ' };

/** DATE_BUCKET and its kind: the start of the bucket of a width (an INTERVAL) that holds the value, buckets counted from an origin. */
function bucket(input: CallContext): string {
  let call = input.name === 'datetime_bucket' ? civilOnly(input, [0]) : input;
  if (call.argNodes[1]?.kind !== 'interval') return call.refuse(`${call.name.toUpperCase()} with a bucket width that is not an INTERVAL literal`);
  const type = BUCKET_TYPES[call.name]!;
  // ZetaSQL buckets a DATE or DATETIME in TIMESTAMP_BUCKET into the same type; BigQuery's reference
  // gives TIMESTAMP_BUCKET a TIMESTAMP only, so that answer is not known to be BigQuery's.
  const given = call.argNodes[0] && call.typeOf(call.argNodes[0]);
  if (call.name === 'timestamp_bucket' && (given === 'date' || given === 'datetime')) return call.refuse(`TIMESTAMP_BUCKET of a ${given.toUpperCase()} (use ${given.toUpperCase()}_BUCKET)`);
  if (call.name === 'timestamp_bucket' && given === undefined) {
    // A column the query does not type: DuckDB's constant typeof() tells a DATE or DATETIME apart.
    const value = repeatable(call.args[0]!, call.refuse);
    const checked = unless(`typeof(${value}) IN ('DATE', 'TIMESTAMP')`, 'TIMESTAMP_BUCKET of a DATE or DATETIME is not supported (use DATE_BUCKET or DATETIME_BUCKET)', value);
    call = { ...call, args: [checked, ...call.args.slice(1)] };
  }
  const origin = call.args[2] === undefined ? ORIGINS[call.name]! : coerced(call, 2, type);
  const width = repeatable(call.args[1]!, call.refuse);
  return failWhen(call, `${width} <= INTERVAL 0 SECOND`, `${call.name.toUpperCase()}'s bucket width must be positive`, `time_bucket(${width}, ${coerced(call, 0, type)}, ${origin})`, type);
}

export const TIME_FUNCTIONS: ReadonlyMap<string, FunctionSpec> = new Map<string, FunctionSpec>([
  ['justify_days', scalar('the INTERVAL with its days and months as one total, 30 days a month, split again with one sign', [1, 1], justify)],
  ['justify_hours', scalar('the INTERVAL with its time and days as one total, 24 hours a day, split again with one sign', [1, 1], justify)],
  ['justify_interval', scalar('the INTERVAL with its months, days and time as one total, split again with one sign', [1, 1], justify)],
  ['make_interval', scalar('an INTERVAL of years, months, days, hours, minutes and seconds (by position or name; 0 where absent)', [0, 6], makeInterval, { named: INTERVAL_PARTS })],
  ['last_day', scalar('the last day of the DATE\'s month, or of its week, quarter, year or ISO year', [1, 2], lastDay, { dateParts: [1], parts: LAST_DAY_PARTS, returns: 'date' })],
  ['unix_date', scalar('days since 1970-01-01', [1, 1], (call) => `date_diff('day', DATE '1970-01-01', ${coerced(call, 0, 'DATE')})`, { returns: 'int64' })],
  ['date_from_unix_date', scalar('the DATE a number of days after 1970-01-01', [1, 1], (call) => `CAST(DATE '1970-01-01' + CAST(${call.args[0]} AS INTEGER) AS DATE)`, { returns: 'date' })],
  ['time', scalar('a TIME from hour, minute and second, or the time of day of a TIMESTAMP (in a time zone) or DATETIME', [1, 3], time, { returns: 'time' })],
  ['time_add', scalar('a TIME plus an INTERVAL of hours or less, wrapping around midnight', [2, 2], timeShift('+'), { returns: 'time' })],
  ['time_sub', scalar('a TIME minus an INTERVAL of hours or less, wrapping around midnight', [2, 2], timeShift('-'), { returns: 'time' })],
  ['time_diff', scalar('whole parts from the second TIME to the first', [3, 3], timeDiff, { dateParts: [2], parts: TIME_PARTS, returns: 'int64' })],
  ['time_trunc', scalar('a TIME truncated to a part (HOUR or less)', [2, 2], timeTrunc, { dateParts: [1], parts: TIME_PARTS, returns: 'time' })],
  ['string', scalar('a TIMESTAMP as text in a time zone (UTC by default), with its offset; a JSON string value as STRING (an error for another JSON type)', [1, 2], string, { returns: 'string' })],
  ['date_bucket', scalar('the start of the bucket of an INTERVAL\'s width holding the DATE, from an origin (1950-01-01 by default)', [2, 3], bucket, { returns: 'date' })],
  ['datetime_bucket', scalar('the start of the bucket of an INTERVAL\'s width holding the DATETIME, from an origin (1950-01-01 00:00:00 by default)', [2, 3], bucket, { returns: 'datetime' })],
  ['timestamp_bucket', scalar('the start of the bucket of an INTERVAL\'s width holding the TIMESTAMP, from an origin (1950-01-01 00:00:00 UTC by default)', [2, 3], bucket, { returns: 'timestamp' })],
]);
