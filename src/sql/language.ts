/**
 * The language cannery supports: every function, cast type, date part, operator and clause a query
 * may use, with BigQuery's meaning and each dialect's rendering. This one table is read by the
 * reader (which arguments are date parts), the sandbox (its allow-list is exactly these functions),
 * the generator (how each backend writes them), the docs (docs/sql.md's list is checked against it)
 * and the golden tests (every entry has a case).
 *
 * BigQuery is the contract: a rendering for DuckDB must give BigQuery's answer, NULLs, errors and
 * edge cases included (an error BigQuery raises is raised on DuckDB too, so `SAFE.` can turn it
 * into NULL). A rendering for BigQuery is only given where it is not `NAME(args)`.
 */
import { duckZone } from './dialects/duckdb/time-zones.js';
import { quoteString } from './dialects/duckdb/quote.js';
import { intervalQuotient, sqlMacroName } from './dialects/duckdb/sql-macros.js';
import { byType, computedOnce, float64Text, raise, repeatable, secondFraction, timeText, trying, unless } from './dialects/duckdb/semantics.js';
import type { StaticType, TypeLookup } from './analyse/static-type.js';
import { checkedTimeCast, formatSql, parseFormats, UnsupportedFormat, type FormatValue, type TimeKind } from './dialects/duckdb/time-formats.js';
import type { Expr } from './parse/tree.js';
import { mapExprChildren } from './parse/walk.js';
import { aggregate, analytic, FIRST, MANY, same, scalar, SECOND, type CallContext, type DialectName, type FunctionSpec, type Render } from './functions/call.js';
import { coerced, literalCount, literalString, literalValue, nonZero, civilOnly } from './functions/arguments.js';
import { MATH_FUNCTIONS } from './functions/math.js';
import { oneKindJoined, STRING_FUNCTIONS } from './functions/strings.js';
import { HASH_FUNCTIONS } from './functions/hashing.js';
export { allowsPart } from './functions/time-parts.js';
import { DATE_TRUNCATION_PARTS, DIFF_PARTS, MICROS, TIMESTAMP_DIFF_PARTS, TRUNCATION_PARTS, truncateAnyType, truncateKeepingType, truncateTime, WEEKDAYS, weekStart } from './functions/time-parts.js';
import { MORE_AGGREGATES } from './functions/aggregates.js';
import { WINDOW_FUNCTIONS } from './functions/windows.js';
import { ARRAY_FUNCTIONS } from './functions/arrays.js';
import { TIME_FUNCTIONS } from './functions/times.js';
import { JSON_FUNCTIONS } from './functions/json.js';
import { UTILITY_FUNCTIONS } from './functions/utility.js';
import { RANGE_FUNCTIONS } from './functions/ranges.js';
import { REFUSED } from './functions/refused.js';
import { arithmeticChecked, checkedSum, inTimeRange, operand, type ArithmeticOperands } from './functions/overflow.js';

export { CAST_FORMAT } from './functions/cast-format.js';

export type { CallContext, DialectName, FunctionKind, FunctionSpec, Render } from './functions/call.js';

/** Name of the hidden parameter that carries the query's execution time (BigQuery's CURRENT_TIMESTAMP). */
export const EXECUTION_TIME_PARAM = '__cannery_now';

/** INTERVAL units. */
export const INTERVAL_UNITS: readonly string[] = ['microsecond', 'millisecond', 'second', 'minute', 'hour', 'day', 'week', 'month', 'quarter', 'year'];

const TIME_KIND_TYPES: Readonly<Record<TimeKind, string>> = { date: 'DATE', datetime: 'TIMESTAMP', timestamp: 'TIMESTAMPTZ', time: 'TIME' };

function truncation(kind: TimeKind | 'any'): Render {
  return (call) => {
    const part = call.parts[1]!;
    const zone = call.args[2];
    if (kind === 'any') {
      const value = coerced(call, 0, 'DATE');
      const known = call.argNodes[0] && call.typeOf(call.argNodes[0]);
      // Only an ISO year's truncation depends on the type (see truncateAnyType).
      if (part === 'isoyear' && !(known === 'date' || known === 'string' || known === 'datetime' || known === 'timestamp')) return call.refuse('DATE_TRUNC to ISOYEAR of a value whose type the query does not say');
      if (zone === undefined) return truncateAnyType(value, part, known !== 'datetime' && known !== 'timestamp');
      return `timezone(${duckZone(zone)}, ${truncateAnyType(`timezone(${duckZone(zone)}, ${value})`, part, false)})`;
    }
    if (kind === 'datetime') {
      // DATETIME_TRUNC of a TIMESTAMP is TIMESTAMP_TRUNC's, in UTC or the zone given; the zone is
      // for a TIMESTAMP only. A value the query does not type is truncated keeping DuckDB's type
      // (a TIMESTAMP stays an instant, a DATETIME civil), or with a zone must be a TIMESTAMP.
      const known = call.argNodes[0] && call.typeOf(call.argNodes[0]);
      if (known === 'timestamp') return truncation('timestamp')(call);
      if (known === undefined) {
        if (zone === undefined) return truncateKeepingType(repeatable(call.args[0]!, call.refuse), part);
        const noZone = () => raise('No matching signature for function DATETIME_TRUNC: a time zone is for a TIMESTAMP only', 'TIMESTAMPTZ');
        return byType(call.args[0]!, undefined, { timestamp: (value) => truncation('timestamp')({ ...call, args: [value, ...call.args.slice(1)] }), otherwise: noZone }, call.refuse);
      }
      if (zone !== undefined) return call.invalid(`No matching signature for function DATETIME_TRUNC for argument types: ${known.toUpperCase()}, DATE_TIME_PART, STRING (a time zone is for a TIMESTAMP only)`);
    }
    const value = coerced(call, 0, TIME_KIND_TYPES[kind]);
    if (zone === undefined) return truncateTime(value, part, kind === 'timestamp');
    // In a time zone: the civil time there, truncated, as an instant again.
    return `timezone(${duckZone(zone)}, ${truncateTime(`timezone(${duckZone(zone)}, ${value})`, part, false)})`;
  };
}

/**
 * `X_DIFF(end, start, part)`. BigQuery counts whole parts between two TIMESTAMPs (a DAY is 24
 * hours) but part boundaries between DATEs and DATETIMEs (`WEEK` boundaries are Sundays); each
 * function follows the type of its arguments, which DuckDB tells where the query does not.
 */
function difference(kind: TimeKind): Render {
  return (given) => {
    const call = kind === 'datetime' ? civilOnly(given, [0, 1]) : given;
    const part = call.parts[2]!;
    const end = coerced(call, 0, TIME_KIND_TYPES[kind]);
    const start = coerced(call, 1, TIME_KIND_TYPES[kind]);
    const whole = () => {
      const micros = MICROS[part];
      return micros === undefined ? call.invalid(`${call.name.toUpperCase()} of TIMESTAMP values by ${part.toUpperCase()}`) : `((epoch_us(${end}) - epoch_us(${start})) // ${micros})`;
    };
    const boundaries = () => {
      const week = weekStart(part);
      if (week !== undefined) return `(date_diff('day', ${truncateAnyType(start, part)}, ${truncateAnyType(end, part)}) // 7)`;
      if (part === 'isoyear') return `(isoyear(${end}) - isoyear(${start}))`;
      return `date_diff('${part}', ${start}, ${end})`;
    };
    const known = call.argNodes[0] && call.typeOf(call.argNodes[0]);
    const type = known === 'string' ? kind : known;
    if (type === 'timestamp') return whole();
    if (type === 'date' || type === 'datetime' || !(part in MICROS)) return boundaries();
    const e = repeatable(end, call.refuse);
    const s = repeatable(start, call.refuse);
    return `(CASE WHEN typeof(${e}) = 'TIMESTAMP WITH TIME ZONE' THEN ((epoch_us(${e}) - epoch_us(${s})) // ${MICROS[part]}) ELSE date_diff('${part}', ${s}, ${e}) END)`;
  };
}

// ---------------------------------------------------------------------------------------------
// Renderings shared by several functions

/**
 * ARRAY_AGG with its modifiers: DuckDB has ORDER BY inside the call, not LIMIT (a slice of the
 * result) nor IGNORE NULLS (a FILTER).
 */
function arrayAgg(call: CallContext): string {
  const value = call.args[0]!;
  const filter = call.ignoreNulls ? ` FILTER (WHERE ${value} IS NOT NULL)` : '';
  const array = `array_agg(${call.distinct ? 'DISTINCT ' : ''}${value}${call.orderBy ?? ''})${filter}`;
  return call.limit === undefined ? array : `list_slice(${array}, 1, ${call.limit})`;
}

/**
 * STRING_AGG skips NULLs; with LIMIT, the first non-NULL values are joined, and none (LIMIT 0) is
 * NULL as for no rows, where DuckDB joins the empty slice into '' (ZetaSQL's
 * aggregation_order_by_limit_same_values).
 */
function stringAgg(call: CallContext): string {
  const [value, separator = `','`] = call.args;
  const delimiter = call.argNodes[1];
  if (delimiter?.kind === 'literal' && delimiter.type === 'null') return call.invalid('Argument 2 to STRING_AGG must be non-NULL');
  if (call.limit === undefined) return `string_agg(${call.distinct ? 'DISTINCT ' : ''}${value}, ${separator}${call.orderBy ?? ''})`;
  const values = `array_agg(${call.distinct ? 'DISTINCT ' : ''}${value}${call.orderBy ?? ''}) FILTER (WHERE ${value} IS NOT NULL)`;
  return `(CASE WHEN ${call.limit} = 0 THEN NULL ELSE array_to_string(list_slice(${values}, 1, ${call.limit}), ${separator}) END)`;
}

/** TIMESTAMP_ADD and its kind: the shifted value, an error past the type's range (DuckDB's is wider than BigQuery's). */
function shift(operator: '+' | '-', type: 'datetime' | 'timestamp'): Render {
  return (given) => {
    const call = type === 'datetime' ? civilOnly(given, [0]) : given;
    return inTimeRange(`(${call.args[0]} ${operator} ${call.args[1]})`, type, call, call.refuse);
  };
}

function dateShift(operator: '+' | '-'): Render {
  return (call) => {
    const interval = call.argNodes[1];
    if (interval?.kind !== 'interval' || !['day', 'week', 'month', 'quarter', 'year'].includes(interval.unit)) {
      return call.invalid(`${call.name.toUpperCase()} takes an INTERVAL of DAY, WEEK, MONTH, QUARTER or YEAR`);
    }
    return inTimeRange(`CAST((CAST(${call.args[0]} AS DATE) ${operator} ${call.args[1]}) AS DATE)`, 'date', call, call.refuse);
  };
}

/**
 * CONCAT: STRINGs (or BYTES) joined, NULL if any is NULL (DuckDB's concat skips NULLs; its `||`
 * does not). An argument of another type is cast to STRING as BigQuery casts it (`CONCAT(1)` is
 * `'1'`); one whose type the query does not say is joined by `||`, which casts the same way for
 * integers and strings, and makes a lone argument a string. BYTES joins only BYTES.
 */
function concat(call: CallContext): string {
  const args = call.args.map((sql, index) => {
    const node = call.argNodes[index]!;
    const type = call.typeOf(node);
    if (type === undefined || type === 'string' || type === 'bytes') return sql;
    return castToString({ operand: sql, node, safe: false, typeOf: call.typeOf, refuse: call.refuse });
  });
  return oneKindJoined(call, args.length === 1 && call.typeOf(call.argNodes[0]!) === undefined ? `(${args[0]} || '')` : `(${args.join(' || ')})`);
}

/**
 * MIN: NaN when a value is NaN, as MAX is (DuckDB's MIN passes a NaN by, which it orders above
 * every number; so its MAX is NaN then). Where the argument is FLOAT64 by the query's text.
 */
function minimum(call: CallContext): string {
  const distinct = call.distinct ? 'DISTINCT ' : '';
  const over = call.over ?? '';
  if (call.typeOf(call.argNodes[0]!) !== 'float64') return `min(${distinct}${call.args[0]})${over}`;
  const value = repeatable(call.args[0]!, call.refuse);
  return `(CASE WHEN isnan(max(${value})${over}) THEN CAST('NaN' AS DOUBLE) ELSE min(${distinct}${value})${over} END)`;
}

/**
 * GREATEST / LEAST: NULL when any argument is NULL, and NaN when any FLOAT64 argument is NaN
 * (DuckDB skips NULLs, and its LEAST passes a NaN by, which it orders above every number).
 */
function extreme(name: 'greatest' | 'least'): Render {
  return (call) => {
    const args = call.args.map((arg) => repeatable(arg, call.refuse));
    const value = `${name}(${args.join(', ')})`;
    const nan = name === 'least' && call.argNodes.some((node) => call.typeOf(node) === 'float64') ? ` WHEN isnan(greatest(${args.join(', ')})) THEN greatest(${args.join(', ')})` : '';
    return `(CASE WHEN ${args.map((arg) => `${arg} IS NULL`).join(' OR ')} THEN NULL${nan} ELSE ${value} END)`;
  };
}

/**
 * COUNTIF: rows where the condition is TRUE, 0 when none is. DuckDB's count_if counts the same rows
 * but is NULL over no rows or only NULL conditions, and a HUGEINT: hence the coalesce and the cast.
 * It takes about half the CPU of `count(CASE WHEN c THEN TRUE END)`, whose CASE builds a vector per
 * condition (usage.api-counts' four over 10M edge events, docs/benchmarks.md). DISTINCT counts
 * TRUE once: the CASE keeps that.
 */
function countIf(call: CallContext): string {
  const condition = repeatable(call.args[0]!, call.refuse);
  const over = call.over ?? '';
  if (call.distinct) return `count(DISTINCT CASE WHEN ${condition} THEN TRUE END)${over}`;
  return `CAST(coalesce(count_if(${condition})${over}, 0) AS BIGINT)`;
}

// ---------------------------------------------------------------------------------------------
// Formatting and parsing dates and times

function withFormat<T>(call: CallContext, work: () => T): T {
  try {
    return work();
  } catch (error) {
    if (error instanceof UnsupportedFormat) return call.refuse(`${call.name.toUpperCase()} with ${error.message}`);
    throw error;
  }
}

function format(kind: TimeKind): Render {
  return (given) => {
    const call = kind === 'datetime' ? civilOnly(given, [1]) : given;
    const formatText = literalString(call, 0, 'a format');
    const operand = coerced(call, 1, TIME_KIND_TYPES[kind]);
    // A TIME is written as the time of a day (DuckDB's strftime takes no TIME).
    const value: FormatValue = { local: kind === 'time' ? `(DATE '1970-01-01' + ${operand})` : operand, refuse: call.refuse };
    if (kind === 'timestamp') {
      const zoneNode = call.argNodes[2];
      const zoneSql = call.args[2] ?? `'UTC'`;
      value.instant = value.local;
      value.local = `timezone(${duckZone(zoneSql)}, ${value.local})`;
      value.zone = zoneNode === undefined ? 'UTC' : zoneNode.kind === 'literal' && typeof zoneNode.value === 'string' ? zoneNode.value : undefined;
    }
    return withFormat(call, () => formatSql(formatText, kind, value));
  };
}

function parse(kind: TimeKind): Render {
  return (call) => {
    const formatText = literalString(call, 0, 'a format');
    const { formats, zoned, prefix } = withFormat(call, () => parseFormats(formatText, kind));
    const list = formats.length === 1 ? quoteString(formats[0]!) : `[${formats.map(quoteString).join(', ')}]`;
    const text = `trim(${call.args[1]})`;
    const parsed = `strptime(${prefix === '' ? text : `${quoteString(prefix)} || ${text}`}, ${list})`;
    if (kind === 'date' || kind === 'time') return `CAST(${parsed} AS ${kind.toUpperCase()})`;
    if (kind === 'datetime' || zoned) return parsed;
    const zone = call.args[2];
    return zone === undefined ? `CAST(${parsed} AS TIMESTAMPTZ)` : `timezone(${duckZone(zone)}, ${parsed})`;
  };
}

// ---------------------------------------------------------------------------------------------
// Approximate aggregates (exact on the embedded engine: an exact answer is one BigQuery may give)

function approxQuantiles(call: CallContext): string {
  const buckets = literalCount(call, 1, 'the number of quantiles');
  return `quantile_disc(${call.args[0]}, list_transform(range(${buckets + 1}), __i -> __i / ${buckets}))`;
}

function approxTopCount(call: CallContext): string {
  const top = literalCount(call, 1, 'the number of values');
  const value = repeatable(call.args[0]!, call.refuse);
  // NULL is a value like any other here; histogram() skips it, so its count is added.
  const counted = `list_concat(coalesce(list_transform(map_entries(histogram(${value})), __e -> {'count': -CAST(__e.value AS BIGINT), 'value': __e.key}), []), (CASE WHEN count(*) > count(${value}) THEN [{'count': count(${value}) - count(*), 'value': NULL}] ELSE [] END))`;
  return `(CASE WHEN count(*) = 0 THEN NULL ELSE list_transform(list_slice(list_sort(${counted}), 1, ${top}), __e -> {'value': __e.value, 'count': -__e.count}) END)`;
}

// ---------------------------------------------------------------------------------------------
// Other functions

/** NET.HOST: the host of a URL, best effort (no scheme, `//host`, user info, port, IPv6 in brackets). */
function netHost(call: CallContext): string {
  return `nullif(regexp_extract(trim(${call.args[0]}), '^(?:[A-Za-z][A-Za-z0-9+.-]*://|//)?(?:[^/?#]*@)?(\\[[^\\]]*\\]|[^:/?#]*)', 1), '')`;
}

/** Whole milliseconds, rounded down: the microseconds less their remainder, which is never negative. */
function unixMillis(call: CallContext): string {
  const micros = `epoch_us(${repeatable(call.args[0]!, call.refuse)})`;
  return `((${micros} - ((${micros} % 1000) + 1000) % 1000) // 1000)`;
}

/** TIMESTAMP(x[, zone]): a DATE's or DATETIME's civil time (or a string's) read in the zone; a string with its own offset keeps it. */
function timestampOf(call: CallContext): string {
  const zone = call.args[1];
  // A STRING is read as BigQuery reads it (time-formats.ts `checkedTimeCast`).
  const text = call.typeOf(call.argNodes[0]!) === 'string';
  if (zone === undefined) return text ? checkedTimeCast('timestamp', call.args[0]!, 'TIMESTAMPTZ', false, call.refuse) : `CAST(${call.args[0]} AS TIMESTAMPTZ)`;
  const literal = literalValue(call, 0);
  if (typeof literal === 'string' && /(?:[+-]\d{1,2}(?::?\d{2})?|Z|UTC)\s*$/i.test(literal)) return call.invalid('TIMESTAMP of a string with a time zone takes no second time zone');
  return `timezone(${duckZone(zone)}, ${text ? checkedTimeCast('datetime', call.args[0]!, 'TIMESTAMP', false, call.refuse) : `CAST(${call.args[0]} AS TIMESTAMP)`})`;
}

/** DATETIME(year, month, day, hour, minute, second), DATETIME(date, time), DATETIME(timestamp[, zone]). */
function datetimeOf(call: CallContext): string {
  if (call.args.length === 6) return `make_timestamp(${call.args.join(', ')})`;
  if (call.args.length !== 1 && call.args.length !== 2) return call.invalid('DATETIME takes 1, 2 or 6 arguments');
  const second = call.argNodes[1];
  if (second !== undefined && call.typeOf(second) === 'time') return `(CAST(${call.args[0]} AS DATE) + ${call.args[1]})`;
  return `timezone(${duckZone(call.args[1] ?? `'UTC'`)}, CAST(${call.args[0]} AS TIMESTAMPTZ))`;
}

/** DATE(year, month, day), DATE(timestamp[, zone]), DATE(datetime), DATE(string). */
function dateOf(call: CallContext): string {
  if (call.args.length === 3) return `make_date(${call.args.join(', ')})`;
  if (call.args.length === 2) return `CAST(timezone(${duckZone(call.args[1]!)}, CAST(${call.args[0]} AS TIMESTAMPTZ)) AS DATE)`;
  if (call.typeOf(call.argNodes[0]!) === 'string') return checkedTimeCast('date', call.args[0]!, 'DATE', false, call.refuse);
  return `CAST(${call.args[0]} AS DATE)`;
}

function executionTime(call: CallContext): string {
  return `CAST(${call.parameter(EXECUTION_TIME_PARAM)} AS TIMESTAMPTZ)`;
}

export const FUNCTIONS: ReadonlyMap<string, FunctionSpec> = new Map<string, FunctionSpec>([
  // Conditionals
  ['coalesce', scalar('first non-NULL argument', [1, MANY], same('coalesce'), { returns: FIRST })],
  ['ifnull', scalar('the first argument, or the second when it is NULL', [2, 2], same('coalesce'), { returns: FIRST })],
  ['if', scalar('IF(cond, a, b): a when cond is TRUE, else b', [3, 3], (call) => `(CASE WHEN ${call.args[0]} THEN ${call.args[1]} ELSE ${call.args[2]} END)`, { returns: SECOND })],
  ['nullif', scalar('NULL when both arguments are equal, else the first', [2, 2], same('nullif'), { returns: FIRST })],
  ['greatest', scalar('largest argument; NULL if any is NULL, NaN if any is NaN', [1, MANY], extreme('greatest'), { returns: FIRST })],
  ['least', scalar('smallest argument; NULL if any is NULL, NaN if any is NaN', [1, MANY], extreme('least'), { returns: FIRST })],
  ['concat', scalar('the arguments joined, each cast to STRING unless it is a STRING or BYTES; NULL if any is NULL', [1, MANY], concat, { returns: 'string' })],
  ['bit_count', scalar('the number of bits set in the two\'s complement INT64', [1, 1], (call) => `CAST(bit_count(CAST(${call.args[0]} AS BIGINT)) AS BIGINT)`, { returns: 'int64' })],
  // Time: TIMESTAMP is DuckDB TIMESTAMPTZ in a UTC session; DATETIME is DuckDB TIMESTAMP.
  ['current_timestamp', scalar('the query\'s execution time, the same for the whole query', [0, 0], executionTime, { bigquery: () => 'CURRENT_TIMESTAMP()', returns: 'timestamp' })],
  ['current_date', scalar('the DATE of the execution time, in a time zone (UTC by default)', [0, 1], (call) => (call.args[0] === undefined ? `CAST(${executionTime(call)} AS DATE)` : `CAST(timezone(${duckZone(call.args[0])}, ${executionTime(call)}) AS DATE)`), { returns: 'date' })],
  ['current_datetime', scalar('the DATETIME of the execution time, in a time zone (UTC by default)', [0, 1], (call) => `timezone(${duckZone(call.args[0] ?? `'UTC'`)}, ${executionTime(call)})`, { returns: 'datetime' })],
  ['timestamp_trunc', scalar('a TIMESTAMP truncated to a date part, in UTC or a time zone (weeks start on Sunday)', [2, 3], truncation('timestamp'), { dateParts: [1], parts: TRUNCATION_PARTS, returns: 'timestamp' })],
  ['datetime_trunc', scalar('a DATETIME truncated to a date part (weeks start on Sunday); of a TIMESTAMP, a TIMESTAMP as TIMESTAMP_TRUNC\'s, in UTC or a time zone', [2, 3], truncation('datetime'), { dateParts: [1], parts: TRUNCATION_PARTS, returns: { sameAs: 0, string: 'datetime', date: 'datetime' } })],
  ['date_trunc', scalar('a DATE (or DATETIME, TIMESTAMP) truncated to a date part, of the same type', [2, 3], truncation('any'), { dateParts: [1], parts: DATE_TRUNCATION_PARTS, returns: FIRST })],
  ['timestamp_diff', scalar('whole date parts from the second TIMESTAMP to the first (a DAY is 24 hours)', [3, 3], difference('timestamp'), { dateParts: [2], parts: TIMESTAMP_DIFF_PARTS, returns: 'int64' })],
  ['datetime_diff', scalar('date-part boundaries from the second DATETIME to the first', [3, 3], difference('datetime'), { dateParts: [2], parts: DIFF_PARTS, returns: 'int64' })],
  ['date_diff', scalar('date-part boundaries from the second DATE to the first', [3, 3], difference('date'), { dateParts: [2], parts: DIFF_PARTS, returns: 'int64' })],
  ['timestamp_sub', scalar('a TIMESTAMP minus an INTERVAL', [2, 2], shift('-', 'timestamp'), { returns: 'timestamp' })],
  ['timestamp_add', scalar('a TIMESTAMP plus an INTERVAL', [2, 2], shift('+', 'timestamp'), { returns: 'timestamp' })],
  ['datetime_sub', scalar('a DATETIME minus an INTERVAL', [2, 2], shift('-', 'datetime'), { returns: 'datetime' })],
  ['datetime_add', scalar('a DATETIME plus an INTERVAL', [2, 2], shift('+', 'datetime'), { returns: 'datetime' })],
  ['date_add', scalar('a DATE plus an INTERVAL of days, weeks, months or years (the month\'s last day at most)', [2, 2], dateShift('+'), { returns: 'date' })],
  ['date_sub', scalar('a DATE minus an INTERVAL of days, weeks, months or years', [2, 2], dateShift('-'), { returns: 'date' })],
  ['timestamp', scalar('a TIMESTAMP from a string, DATE or DATETIME, read in a time zone (UTC by default)', [1, 2], timestampOf, { returns: 'timestamp' })],
  ['datetime', scalar('a DATETIME from its parts, from a DATE and a TIME, or of a TIMESTAMP in a time zone (UTC by default)', [1, 6], datetimeOf, { returns: 'datetime' })],
  ['date', scalar('a DATE from year, month and day, or of a TIMESTAMP in a time zone (UTC by default), DATETIME or string', [1, 3], dateOf, { returns: 'date' })],
  ['current_time', scalar('the TIME of the execution time, in a time zone (UTC by default)', [0, 1], (call) => `CAST(timezone(${duckZone(call.args[0] ?? `'UTC'`)}, ${executionTime(call)}) AS TIME)`, { returns: 'time' })],
  ['unix_micros', scalar('microseconds since the Unix epoch', [1, 1], same('epoch_us'), { returns: 'int64' })],
  // Rounded down, as BigQuery does before 1970 too (DuckDB's epoch_ms rounds toward zero).
  ['unix_millis', scalar('milliseconds since the Unix epoch, rounded down', [1, 1], unixMillis, { returns: 'int64' })],
  ['unix_seconds', scalar('whole seconds since the Unix epoch', [1, 1], (call) => `CAST(floor(epoch(${call.args[0]})) AS BIGINT)`, { returns: 'int64' })],
  ['timestamp_micros', scalar('the TIMESTAMP of microseconds since the epoch', [1, 1], (call) => `CAST(make_timestamp(CAST(${call.args[0]} AS BIGINT)) AS TIMESTAMPTZ)`, { returns: 'timestamp' })],
  ['timestamp_millis', scalar('the TIMESTAMP of milliseconds since the epoch', [1, 1], (call) => `CAST(make_timestamp(CAST(${call.args[0]} AS BIGINT) * 1000) AS TIMESTAMPTZ)`, { returns: 'timestamp' })],
  ['timestamp_seconds', scalar('the TIMESTAMP of seconds since the epoch', [1, 1], (call) => `CAST(make_timestamp(CAST(${call.args[0]} AS BIGINT) * 1000000) AS TIMESTAMPTZ)`, { returns: 'timestamp' })],
  ['format_timestamp', scalar('a TIMESTAMP written with a literal format string, in a time zone (UTC by default)', [2, 3], format('timestamp'), { returns: 'string' })],
  ['format_datetime', scalar('a DATETIME written with a literal format string', [2, 2], format('datetime'), { returns: 'string' })],
  ['format_date', scalar('a DATE written with a literal format string', [2, 2], format('date'), { returns: 'string' })],
  ['parse_timestamp', scalar('the TIMESTAMP a string holds in a literal format, in a time zone (UTC by default) unless it has an offset', [2, 3], parse('timestamp'), { returns: 'timestamp' })],
  ['parse_datetime', scalar('the DATETIME a string holds in a literal format', [2, 2], parse('datetime'), { returns: 'datetime' })],
  ['format_time', scalar('a TIME written with a literal format string', [2, 2], format('time'), { returns: 'string' })],
  ['parse_time', scalar('the TIME a string holds in a literal format', [2, 2], parse('time'), { returns: 'time' })],
  ['parse_date', scalar('the DATE a string holds in a literal format', [2, 2], parse('date'), { returns: 'date' })],
  // Net
  ['net.host', scalar('the host of a URL (best effort: with or without a scheme, user info, port)', [1, 1], netHost, { returns: 'string' })],
  // Aggregates
  ['count', aggregate('rows, or non-NULL values', [1, 1], same('count'), 'int64')],
  ['countif', { ...aggregate('rows where the condition is TRUE; 0 when it is for none', [1, 1], countIf, 'int64'), placesOver: true }],
  ['sum', { ...aggregate('sum of non-NULL values (past INT64, or to an infinity from finite FLOAT64 values, an error)', [1, 1], checkedSum, FIRST), placesOver: true }],
  ['avg', { ...aggregate('mean of non-NULL values (of NUMERICs a NUMERIC, rounded to 9 decimal places; of BIGNUMERICs a BIGNUMERIC, to 38)', [1, 1], average, { sameAs: 0, int64: 'float64' }), placesOver: true }],
  ['min', { ...aggregate('smallest non-NULL value; NaN if any is NaN', [1, 1], minimum, FIRST), placesOver: true }],
  ['max', aggregate('largest non-NULL value; NaN if any is NaN', [1, 1], same('max'), FIRST)],
  ['any_value', aggregate('a value of the group', [1, 1], same('any_value'), FIRST)],
  ['grouping', aggregate('1 where the row aggregates over its GROUP BY expression (a ROLLUP, CUBE or GROUPING SETS total), else 0', [1, 1], same('grouping'), 'int64')],
  ['array_agg', aggregate('the values as an array (IGNORE NULLS drops NULLs; ORDER BY, LIMIT)', [1, 1], arrayAgg, undefined, { orderBy: true, limit: true, nulls: true })],
  ['string_agg', aggregate('non-NULL strings joined (`,` by default; ORDER BY, LIMIT)', [1, 2], stringAgg, 'string', { orderBy: true, limit: true })],
  ['logical_and', aggregate('TRUE when every non-NULL value is TRUE', [1, 1], same('bool_and'), 'bool')],
  ['logical_or', aggregate('TRUE when any non-NULL value is TRUE', [1, 1], same('bool_or'), 'bool')],
  ['approx_count_distinct', aggregate('distinct non-NULL values (exact on the embedded engine)', [1, 1], (call) => `count(DISTINCT ${call.args[0]})`, 'int64')],
  ['approx_quantiles', aggregate('n + 1 quantile boundaries of the non-NULL values, minimum to maximum (exact on the embedded engine)', [2, 2], approxQuantiles)],
  ['approx_top_count', aggregate('the n most frequent values, NULL included, with their counts (exact on the embedded engine)', [2, 2], approxTopCount)],
  // Analytic functions (OVER required)
  ['row_number', analytic('1-based number of the row in its window', [0, 0], 'row_number')],
  ['rank', analytic('rank with gaps', [0, 0], 'rank')],
  ['dense_rank', analytic('rank without gaps', [0, 0], 'dense_rank')],
  ['lag', analytic('a value of a row before in the window', [1, 3], 'lag')],
  ['lead', analytic('a value of a row after in the window', [1, 3], 'lead')],
  ...MATH_FUNCTIONS,
  ...STRING_FUNCTIONS,
  ...HASH_FUNCTIONS,
  ...MORE_AGGREGATES,
  ...WINDOW_FUNCTIONS,
  ...ARRAY_FUNCTIONS,
  ...TIME_FUNCTIONS,
  ...JSON_FUNCTIONS,
  ...UTILITY_FUNCTIONS,
  ...RANGE_FUNCTIONS,
]);

/**
 * Functions refused with a reason rather than as unknown: BigQuery has them, but the embedded
 * engine cannot give BigQuery's answer.
 */
export const REFUSED_FUNCTIONS: Readonly<Record<string, string>> = REFUSED;

/** What a `SAFE.` call's rendering gets besides its text. */
export interface SafeCall {
  name: string;
  args: readonly string[];
  argNodes: readonly Expr[];
  refuse(what: string): never;
}

/**
 * A `SAFE.` call as each dialect writes it: DuckDB's TRY turns the errors BigQuery's SAFE. does
 * into NULL, its arguments' raised still (semantics.ts `trying`). ERROR's error is what it is called for:
 * SAFE. does not cover it (GoogleSQL: SAFE.ERROR raises).
 */
export const SAFE_CALLS: Readonly<Record<DialectName, (sql: string, call: SafeCall) => string>> = {
  bigquery: (sql) => `SAFE.${sql}`,
  duckdb: (sql, call) => (call.name === 'error' ? sql : trying(sql, call.args, call.argNodes, call.refuse)),
};

export interface ResolvedFunction {
  spec: FunctionSpec;
  /** The name without a `SAFE.` prefix. */
  name: string;
  /** Called with `SAFE.`: NULL instead of an error. */
  safe: boolean;
}

/** The table's entry for a called name, `SAFE.` prefix understood (BigQuery allows it on scalar functions). */
export function resolveFunction(name: string): ResolvedFunction | undefined {
  const safe = name.startsWith('safe.');
  const bare = safe ? name.slice('safe.'.length) : name;
  const spec = FUNCTIONS.get(bare);
  if (spec === undefined || (safe && spec.kind !== 'scalar')) return undefined;
  return { spec, name: bare, safe };
}

// ---------------------------------------------------------------------------------------------
// Casts

/** What a cast's rendering gets. */
export interface CastContext {
  /** The operand, written in the dialect. */
  operand: string;
  node: Expr;
  safe: boolean;
  typeOf(expr: Expr): StaticType | undefined;
  refuse(what: string): never;
}

export interface CastSpec {
  /** The type in each dialect. */
  bigquery: string;
  duckdb: string;
  type: StaticType;
  /** Renderings where a plain CAST would not give BigQuery's answer. */
  convert?: Partial<Record<DialectName, (cast: CastContext) => string>>;
}

const HEX_INTEGER = /^\s*([+-]?)0[xX]([0-9a-fA-F]+)\s*$/;
const DECIMAL_INTEGER = /^\s*[+-]?[0-9]+\s*$/;

/**
 * To INT64: a FLOAT64 rounds half away from zero (DuckDB's cast rounds half to even); a STRING
 * must be an integer, decimal or hex (DuckDB would round `'1.5'` and read `'1e3'`).
 */
function castToInt64(cast: CastContext): string {
  const keyword = cast.safe ? 'TRY_CAST' : 'CAST';
  const known = cast.typeOf(cast.node);
  if (known === 'string' && cast.node.kind === 'literal' && typeof cast.node.value === 'string') {
    const text = cast.node.value;
    if (DECIMAL_INTEGER.test(text)) return `${keyword}(${cast.operand} AS BIGINT)`;
    const hex = HEX_INTEGER.exec(text);
    if (hex) return `${keyword}(${quoteString(String(BigInt(`0x${hex[2]}`) * (hex[1] === '-' ? -1n : 1n)))} AS BIGINT)`;
    return cast.safe ? 'CAST(NULL AS BIGINT)' : raise(`Bad int64 value: ${text}`);
  }
  return byType(cast.operand, known, {
    float64: (v) => `${keyword}(round(${v}) AS BIGINT)`,
    string: (v) => {
      const s = repeatable(v, cast.refuse);
      const hex = `(CASE WHEN contains(${s}, '-') THEN -1 ELSE 1 END) * ${keyword}(regexp_extract(${s}, '0[xX][0-9a-fA-F]+') AS BIGINT)`;
      return `(CASE WHEN regexp_full_match(${s}, '${DECIMAL_INTEGER.source.slice(1, -1)}') THEN ${keyword}(${s} AS BIGINT) WHEN regexp_full_match(${s}, '\\s*[+-]?0[xX][0-9a-fA-F]+\\s*') THEN ${hex} ELSE ${keyword}('Bad int64 value: ' || ${s} AS BIGINT) END)`;
    },
    otherwise: (v) => `${keyword}(${v} AS BIGINT)`,
  }, cast.refuse);
}

/** To STRING: FLOAT64, TIMESTAMP and DATETIME values are written as BigQuery writes them (`1`, `1e+20`, `...00:53.110+00`). */
function castToString(cast: CastContext): string {
  const keyword = cast.safe ? 'TRY_CAST' : 'CAST';
  // DuckDB writes an INTERVAL as `3 days`, BigQuery as `0-0 3 0:0:0`.
  const interval = 'CAST of an INTERVAL to STRING';
  if (cast.typeOf(cast.node) === 'interval') return cast.refuse(interval);
  return byType(cast.operand, cast.typeOf(cast.node), {
    interval: () => raise(`${interval} is not supported on the embedded engine`, 'VARCHAR'),
    float64: (v) => float64Text(v, cast.refuse),
    timestamp: (v) => `(strftime(${v}, '%Y-%m-%d %H:%M:%S') || ${secondFraction(v, cast.refuse)} || '+00')`,
    datetime: (v) => `(strftime(${v}, '%Y-%m-%d %H:%M:%S') || ${secondFraction(v, cast.refuse)})`,
    // `1.5`, `10`: without the trailing zeros of DuckDB's DECIMAL(38, 9) (`1.500000000`); the text always has a point.
    numeric: (v) => `regexp_replace(regexp_replace(${keyword}(${v} AS VARCHAR), '0+$', ''), '\\.$', '')`,
    // `12:34:56.100`, its fraction in 3 or 6 digits as BigQuery writes it (DuckDB's cast: `12:34:56.1`).
    time: (v) => `(${timeText(v, cast.refuse)})`,
    // BYTES are read as UTF-8 (an error where they are not); DuckDB's cast writes escapes.
    bytes: (v) => (cast.safe ? `TRY(decode(${v}))` : `decode(${v})`),
    otherwise: (v) => `${keyword}(${v} AS VARCHAR)`,
  }, cast.refuse);
}

/**
 * To NUMERIC: a FLOAT64 is the double's exact value rounded half away from zero to 9 decimal
 * places, as BigQuery rounds it. DuckDB's cast rounds the double times 10^9, itself rounded:
 * 1.5e-9 (1.4999999999999999e-9 exactly) became 0.000000002, not 0.000000001. Its text to 40
 * places holds the digits that decide: a double of 5e-10 or more is a multiple of 2^-83, so its
 * tenth place is never one carried from beyond the fortieth. NaN and the infinities are errors.
 * A FLOAT64 literal is read from its text, as BigQuery's analyzer casts one (ZetaSQL keeps a float
 * literal's image for this): CAST(99999999999999999999999999999.999999999 AS NUMERIC) is NUMERIC's
 * largest value, where its double, 1e29, is past it (ZetaSQL's cast_numeric_max_value_succeeds).
 * DuckDB's cast of text rounds half away from zero too, and fails past the range.
 */
function castToNumeric(cast: CastContext): string {
  const keyword = cast.safe ? 'TRY_CAST' : 'CAST';
  const image = floatLiteralImage(cast.node);
  if (image !== undefined) return `${keyword}(${quoteString(image)} AS DECIMAL(38, 9))`;
  return byType(cast.operand, cast.typeOf(cast.node), {
    float64: (v) => `${keyword}(printf('%.40f', ${v}) AS DECIMAL(38, 9))`,
    otherwise: (v) => `${keyword}(${v} AS DECIMAL(38, 9))`,
  }, cast.refuse);
}

/** The text of a FLOAT64 literal as written, negated or not (`1.5`, `-1e-9`); undefined for any other expression. */
function floatLiteralImage(node: Expr): string | undefined {
  if (node.kind === 'literal' && node.type === 'float64' && typeof node.value === 'string') return node.value;
  if (node.kind === 'unary' && (node.operator === '-' || node.operator === '+')) {
    const inner = floatLiteralImage(node.operand);
    if (inner === undefined || inner.startsWith('-')) return undefined;
    return node.operator === '-' ? `-${inner}` : inner;
  }
  return undefined;
}

/** To BOOL: a STRING must be `true` or `false`, in any case (DuckDB would also read `t`, `1`, `yes`). */
function castToBool(cast: CastContext): string {
  const keyword = cast.safe ? 'TRY_CAST' : 'CAST';
  const known = cast.typeOf(cast.node);
  if (known === 'string' && cast.node.kind === 'literal' && typeof cast.node.value === 'string') {
    const text = cast.node.value.toLowerCase();
    if (text === 'true' || text === 'false') return text.toUpperCase();
    return cast.safe ? 'CAST(NULL AS BOOLEAN)' : raise(`Bad bool value: ${cast.node.value}`, 'BOOLEAN');
  }
  return byType(cast.operand, known, {
    string: (v) => {
      const s = repeatable(v, cast.refuse);
      return `(CASE WHEN lower(${s}) = 'true' THEN TRUE WHEN lower(${s}) = 'false' THEN FALSE ELSE ${keyword}('Bad bool value: ' || ${s} AS BOOLEAN) END)`;
    },
    otherwise: (v) => `${keyword}(${v} AS BOOLEAN)`,
  }, cast.refuse);
}

/** To BYTES: a STRING's UTF-8 bytes (DuckDB's cast reads `\\x` escapes and refuses other characters). */
function castToBytes(cast: CastContext): string {
  return byType(cast.operand, cast.typeOf(cast.node), { string: (v) => `encode(${v})`, otherwise: (v) => `${cast.safe ? 'TRY_CAST' : 'CAST'}(${v} AS BLOB)` }, cast.refuse);
}

/** To TIME: DuckDB has no cast from TIMESTAMPTZ to TIME; through TIMETZ every source type has one. A STRING is read as BigQuery reads it. */
function castToTime(cast: CastContext): string {
  const keyword = cast.safe ? 'TRY_CAST' : 'CAST';
  return cast.typeOf(cast.node) === 'string' ? checkedTimeCast('time', cast.operand, 'TIME', cast.safe, cast.refuse) : `${keyword}(${keyword}(${cast.operand} AS TIMETZ) AS TIME)`;
}

/** To DATE, DATETIME or TIMESTAMP: a STRING read as BigQuery reads it (time-formats.ts `checkedTimeCast`), any other value by DuckDB's cast. */
function castToCivil(kind: 'date' | 'datetime' | 'timestamp', duckType: string): (cast: CastContext) => string {
  return (cast) =>
    cast.typeOf(cast.node) === 'string' ? checkedTimeCast(kind, cast.operand, duckType, cast.safe, cast.refuse) : `${cast.safe ? 'TRY_CAST' : 'CAST'}(${cast.operand} AS ${duckType})`;
}

/**
 * Cast targets (and typed literals): each name BigQuery accepts that the parser reads, with its
 * canonical BigQuery name and DuckDB's.
 */
const INT64_CAST: CastSpec = { bigquery: 'INT64', duckdb: 'BIGINT', type: 'int64', convert: { duckdb: castToInt64 } };
const NUMERIC_CAST: CastSpec = { bigquery: 'NUMERIC', duckdb: 'DECIMAL(38, 9)', type: 'numeric', convert: { duckdb: castToNumeric } };
const BIGNUMERIC_CAST: CastSpec = { bigquery: 'BIGNUMERIC', duckdb: 'BIGNUM', type: 'bignumeric' };
const BOOL_CAST: CastSpec = { bigquery: 'BOOL', duckdb: 'BOOLEAN', type: 'bool', convert: { duckdb: castToBool } };

export const CAST_TYPES: Readonly<Record<string, CastSpec>> = {
  STRING: { bigquery: 'STRING', duckdb: 'VARCHAR', type: 'string', convert: { duckdb: castToString } },
  INT64: INT64_CAST,
  // BigQuery's aliases of INT64, NUMERIC and BOOL, written as their type.
  INTEGER: INT64_CAST,
  INT: INT64_CAST,
  BIGINT: INT64_CAST,
  SMALLINT: INT64_CAST,
  TINYINT: INT64_CAST,
  BYTEINT: INT64_CAST,
  FLOAT64: { bigquery: 'FLOAT64', duckdb: 'DOUBLE', type: 'float64' },
  NUMERIC: NUMERIC_CAST,
  DECIMAL: NUMERIC_CAST,
  // On DuckDB its units of 10^-38 (dialects/duckdb/bignumeric.ts writes every cast to or from it).
  BIGNUMERIC: BIGNUMERIC_CAST,
  BIGDECIMAL: BIGNUMERIC_CAST,
  BOOL: BOOL_CAST,
  BOOLEAN: BOOL_CAST,
  BYTES: { bigquery: 'BYTES', duckdb: 'BLOB', type: 'bytes', convert: { duckdb: castToBytes } },
  TIMESTAMP: { bigquery: 'TIMESTAMP', duckdb: 'TIMESTAMPTZ', type: 'timestamp', convert: { duckdb: castToCivil('timestamp', 'TIMESTAMPTZ') } },
  DATETIME: { bigquery: 'DATETIME', duckdb: 'TIMESTAMP', type: 'datetime', convert: { duckdb: castToCivil('datetime', 'TIMESTAMP') } },
  DATE: { bigquery: 'DATE', duckdb: 'DATE', type: 'date', convert: { duckdb: castToCivil('date', 'DATE') } },
  TIME: { bigquery: 'TIME', duckdb: 'TIME', type: 'time', convert: { duckdb: castToTime } },
};

/** CAST and SAFE_CAST (NULL instead of an error), as each dialect writes them. */
export const CAST_KEYWORDS: Readonly<Record<'cast' | 'safe_cast', Readonly<Record<DialectName, string>>>> = {
  cast: { bigquery: 'CAST', duckdb: 'CAST' },
  safe_cast: { bigquery: 'SAFE_CAST', duckdb: 'TRY_CAST' },
};

// ---------------------------------------------------------------------------------------------
// Literals and operators

/** INT64's range: a literal beyond it is an error in BigQuery. */
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

export function int64InRange(text: string): boolean {
  const value = BigInt(text);
  return value >= INT64_MIN && value <= INT64_MAX;
}

/**
 * A number literal as a dialect writes it. A literal with a point or an exponent is FLOAT64 in
 * BigQuery; DuckDB reads `0.1` as DECIMAL (where `0.1 + 0.2 = 0.3` holds), but `0.1e0` as DOUBLE.
 */
export function numberLiteral(type: 'int64' | 'float64', text: string, dialect: DialectName): string {
  if (type === 'float64' && dialect === 'duckdb' && !/e/i.test(text)) return `${text}e0`;
  return text;
}

/** What an operator's rendering gets: the operator's node, and its operands written and as trees. */
export type OperatorContext = ArithmeticOperands;

/**
 * `a / b`. Of INT64s or FLOAT64s BigQuery's quotient is FLOAT64, like DuckDB's `/`, but a zero
 * divisor is an error, not infinity. Of NUMERICs (an INT64 coerced) it is a NUMERIC rounded half
 * away from zero to 9 decimal places, where DuckDB's is a DOUBLE: where an operand may be a
 * NUMERIC (or the query does not say), the macro that picks by type when DuckDB binds it.
 */
function division(op: OperatorContext): string {
  const left = op.typeOf(op.leftNode);
  const right = op.typeOf(op.rightNode);
  const known = left !== undefined && right !== undefined && left !== 'numeric' && right !== 'numeric';
  if (left === 'interval') return intervalDivision(op);
  if (known || left === 'float64' || right === 'float64') {
    // The divisor is checked on its own (a leaf): `x / inf` is finite (functions/overflow.ts).
    const numerator = operand(op.leftNode, op.left);
    const plain = `(${numerator.plain} / ${nonZero(op.right, op.rightNode, op.refuse)})`;
    return arithmeticChecked(op, plain, [...numerator.leaves, { sql: op.right, node: op.rightNode }], '/');
  }
  // Where either may be a NUMERIC, DuckDB picks the macro's overload by type; a FLOAT64 quotient is still checked.
  if (!aggregated(op.leftNode) && !aggregated(op.rightNode)) return macroChecked(op, 'divide', '/');
  // DuckDB cannot pick a macro's overload for an aggregate or analytic operand (`SUM(x) / COUNT(*)`:
  // its type is not known when the macro binds). Such a quotient of a NUMERIC the query says is
  // refused; of operands it does not say, DuckDB's `/`, an error when it runs if one is a NUMERIC.
  const what = 'NUMERIC division of an aggregate or analytic value';
  if (left === 'numeric' || right === 'numeric') return op.refuse(`${what} (CAST the aggregate to NUMERIC in a subquery first, or to FLOAT64)`);
  const a = repeatable(op.left, op.refuse);
  const b = repeatable(op.right, op.refuse);
  const numeric = [...(left === undefined ? [a] : []), ...(right === undefined ? [b] : [])].map((value) => `typeof(${value}) = 'DECIMAL(38,9)'`).join(' OR ');
  const divisor = unless(numeric, `${what} is not supported on the embedded engine (divide in an outer query, or CAST to FLOAT64)`, b);
  // Nor is an INTERVAL divided so: DuckDB's `/` of one rounds where GoogleSQL's truncates.
  const interval = left === undefined ? unless(`typeof(${a}) = 'INTERVAL'`, 'INTERVAL division of an aggregate or analytic value is not supported on the embedded engine (divide in an outer query)', divisor) : divisor;
  return arithmeticChecked(op, `(${a} / ${nonZero(interval, op.rightNode, op.refuse)})`, operandLeaves(op), '/');
}

/**
 * The SQL macro `name` over `op`'s operands, with the overflow check of a FLOAT64 result. Operands
 * that are arithmetic themselves are read unchecked (functions/overflow.ts): the chain is checked
 * once, at its top, so a nested quotient's text is not written three times per level.
 */
function macroChecked(op: OperatorContext, name: 'divide' | 'multiply', operator: string): string {
  const left = operand(op.leftNode, op.left);
  // A divisor is checked on its own (a leaf), as `/` checks it: `x / inf` is finite.
  const right = name === 'divide' ? { plain: op.right, leaves: [{ sql: op.right, node: op.rightNode }] } : operand(op.rightNode, op.right);
  return arithmeticChecked(op, `${sqlMacroName(name)}(${left.plain}, ${right.plain})`, [...left.leaves, ...right.leaves], operator);
}

/** The two operands of `op` as the overflow check's leaves, each already checked where it is arithmetic. */
function operandLeaves(op: OperatorContext): { sql: string; node: Expr }[] {
  return [
    { sql: op.left, node: op.leftNode },
    { sql: op.right, node: op.rightNode },
  ];
}

const SUBQUERY_KINDS: ReadonlySet<string> = new Set(['subquery', 'exists', 'in_query', 'array_query']);

/** Whether an expression computes an aggregate or analytic value (outside its subqueries). */
function aggregated(expr: Expr): boolean {
  let found = false;
  const visit = (node: Expr): Expr => {
    if (found) return node;
    const kind = node.kind === 'call' ? resolveFunction(node.name)?.spec.kind : undefined;
    if (node.kind === 'call' && (node.over !== undefined || kind === 'aggregate' || kind === 'window')) found = true;
    else if (!SUBQUERY_KINDS.has(node.kind)) mapExprChildren(node, { expr: visit, query: (query) => query });
    return node;
  };
  visit(expr);
  return found;
}

/**
 * `a * b`. Of two NUMERICs DuckDB's product is a DECIMAL(38, 18), 18 places unrounded and an error
 * from 10^20; BigQuery's is a NUMERIC rounded to 9 places, up to 10^29: where both may be
 * NUMERICs, the macro that picks by type (sql-macros.ts `multiply`). A NUMERIC times an INT64 is
 * DuckDB's DECIMAL(38, 9), exact.
 */
function multiplication(op: OperatorContext): string {
  const left = op.typeOf(op.leftNode);
  const right = op.typeOf(op.rightNode);
  const bothMay = (left === undefined || left === 'numeric') && (right === undefined || right === 'numeric');
  if (!bothMay) return int64Arithmetic('*')(op);
  if (!aggregated(op.leftNode) && !aggregated(op.rightNode)) return macroChecked(op, 'multiply', '*');
  const what = 'NUMERIC multiplication of two aggregate or analytic values';
  if (left === 'numeric' && right === 'numeric') return op.refuse(`${what} (CAST one to NUMERIC in a subquery first, or to FLOAT64)`);
  const a = repeatable(op.left, op.refuse);
  const b = repeatable(op.right, op.refuse);
  const numeric = `typeof(${a}) = 'DECIMAL(38,9)' AND typeof(${b}) = 'DECIMAL(38,9)'`;
  return arithmeticChecked(op, `(${a} * ${unless(numeric, `${what} is not supported on the embedded engine (multiply in an outer query, or CAST to FLOAT64)`, b)})`, operandLeaves(op), '*');
}

/**
 * AVG: of NUMERICs a NUMERIC (sql-macros.ts `average`), else DuckDB's. Over a window a macro
 * cannot stand (DuckDB's OVER takes a function), so there a NUMERIC is refused: by name where the
 * query says the type, else when it runs.
 */
function average(call: CallContext): string {
  const value = call.args[0]!;
  const type = call.typeOf(call.argNodes[0]!);
  const distinct = call.distinct ? 'DISTINCT ' : '';
  if (call.over === undefined && !call.distinct) return type === 'numeric' || type === undefined ? `${sqlMacroName('average')}(${value})` : `avg(${value})`;
  const what = `AVG${call.distinct ? '(DISTINCT)' : ''} of a NUMERIC${call.over === undefined ? '' : ' over a window'}`;
  if (type === 'numeric') return call.refuse(`${what} (its NUMERIC mean is not computed exactly there; CAST it to FLOAT64)`);
  if (type !== undefined) return `avg(${distinct}${value})${call.over ?? ''}`;
  const v = repeatable(value, call.refuse);
  return `avg(${distinct}${unless(`typeof(${v}) = 'DECIMAL(38,9)'`, `${what} is not supported on the embedded engine (CAST it to FLOAT64)`, v)})${call.over ?? ''}`;
}

function isInt64Literal(node: Expr): boolean {
  return node.kind === 'literal' && node.type === 'int64';
}

function isArithmetic(node: Expr): boolean {
  return node.kind === 'binary' && (node.operator === '+' || node.operator === '-' || node.operator === '*');
}

/**
 * DuckDB types a small integer literal INTEGER, so `24 * 60 * 60 * 1000000` overflows there; in
 * BigQuery every integer is INT64. A literal combined with a literal or with such arithmetic is
 * widened; against anything else DuckDB already widens it.
 */
function widen(sql: string, node: Expr, other: Expr): string {
  return isInt64Literal(node) && (isInt64Literal(other) || isArithmetic(other)) ? `CAST(${sql} AS BIGINT)` : sql;
}

function int64Arithmetic(operator: string): (op: OperatorContext) => string {
  return (op) => {
    const { plain, leaves } = arithmetic(op, (left, right) => `(${widen(left, op.leftNode, op.rightNode)} ${operator} ${widen(right, op.rightNode, op.leftNode)})`);
    return timeInRange(op, arithmeticChecked(op, plain, leaves, operator));
  };
}

/** A DATE, DATETIME or TIMESTAMP the query says `op` gives (`d + INTERVAL 1 DAY`), an error past its range as the functions' (DATE_ADD). */
function timeInRange(op: OperatorContext, sql: string): string {
  const type = op.typeOf(op.node);
  return type === 'date' || type === 'datetime' || type === 'timestamp' ? inTimeRange(sql, type, { safe: false }, op.refuse) : sql;
}

/** `op` written by `write` from its operands as arithmetic reads them (functions/overflow.ts), and its leaves. */
function arithmetic(op: OperatorContext, write: (left: string, right: string) => string): { plain: string; leaves: { sql: string; node: Expr }[] } {
  const left = operand(op.leftNode, op.left);
  const right = operand(op.rightNode, op.right);
  return { plain: write(left.plain, right.plain), leaves: [...left.leaves, ...right.leaves] };
}

/** A type that may be a DATE, DATETIME or TIMESTAMP: one of them, or one the query does not say. */
function mayBeTime(type: StaticType | undefined): boolean {
  return type === undefined || type === 'date' || type === 'datetime' || type === 'timestamp';
}

/**
 * `a - b`. Two DATEs or two TIMESTAMPs give BigQuery's INTERVAL: days alone for DATEs
 * (`0-0 396 0:0:0`), a time alone for TIMESTAMPs (`0-0 0 36:34:56.789`), where DuckDB gives a
 * number of days and an interval of days and time. Where the query does not say an operand's
 * type, a difference of two dates or times is refused when it runs (DuckDB knows the types then,
 * the generator does not), and any other difference is DuckDB's, which is BigQuery's.
 */
function subtraction(op: OperatorContext): string {
  const left = op.typeOf(op.leftNode);
  const right = op.typeOf(op.rightNode);
  if (left === 'date' && right === 'date') return `to_days(CAST((${op.left} - ${op.right}) AS INTEGER))`;
  if (left === 'timestamp' && right === 'timestamp') return `to_microseconds(epoch_us(${op.left}) - epoch_us(${op.right}))`;
  if (left === 'datetime' && right === 'datetime') return op.refuse('DATETIME - DATETIME (its INTERVAL\'s normalisation is not pinned down by a case; use DATETIME_DIFF)');
  const difference = (l: string, r: string) => `(${widen(l, op.leftNode, op.rightNode)} - ${widen(r, op.rightNode, op.leftNode)})`;
  if (!mayBeTime(left) || !mayBeTime(right)) {
    const { plain, leaves } = arithmetic(op, difference);
    return timeInRange(op, arithmeticChecked(op, plain, leaves, '-'));
  }
  const { plain, leaves } = arithmetic(op, (l, r) => {
    const a = repeatable(l, op.refuse);
    const b = repeatable(r, op.refuse);
    // The refusal is typed as the difference itself (an element of a list of it), so the CASE binds
    // whatever the operands are; only two dates or times of one type reach it.
    const refused = `[${difference(a, b)}][${raise('the difference of two DATE, DATETIME or TIMESTAMP values whose type the query does not state: CAST them to their type, or use DATE_DIFF or TIMESTAMP_DIFF')}]`;
    return `(CASE WHEN typeof(${a}) IN ('DATE', 'TIMESTAMP', 'TIMESTAMP WITH TIME ZONE') AND typeof(${a}) = typeof(${b}) THEN ${refused} ELSE ${difference(a, b)} END)`;
  });
  return arithmeticChecked(op, plain, leaves, '-');
}

/** An INT64 operand of a bitwise operator, as DuckDB's BIGINT: an integer literal is INTEGER there. */
function bitwiseOperand(sql: string, node: Expr, op: OperatorContext): string {
  const type = op.typeOf(node);
  if (type === 'bytes') return op.refuse('bitwise operators on BYTES');
  if (type !== undefined && type !== 'int64') return op.refuse(`a bitwise operator on a ${type.toUpperCase()} value (BigQuery's take INT64 or BYTES)`);
  return isInt64Literal(node) ? `CAST(${sql} AS BIGINT)` : sql;
}

function bitwise(operator: string): (op: OperatorContext) => string {
  return (op) => {
    const left = bitwiseOperand(op.left, op.leftNode, op);
    const right = bitwiseOperand(op.right, op.rightNode, op);
    return operator === '^' ? `xor(${left}, ${right})` : `(${left} ${operator} ${right})`;
  };
}

/**
 * `<<` and `>>` on INT64: the bits shift within 64 (a shift of 64 or more gives 0), `>>` filling
 * with zeros (DuckDB's BIGINT shift keeps the sign and refuses to overflow; its BIT strings shift
 * as BigQuery does). A negative shift is an error on both.
 */
function bitShift(operator: '<<' | '>>'): (op: OperatorContext) => string {
  return (op) => {
    // `& -1` binds for integers only: a FLOAT64 would otherwise reach the BIT cast, which reads its bits.
    const integer = (sql: string, node: Expr) => `(${bitwiseOperand(sql, node, op)} & CAST(-1 AS BIGINT))`;
    const bits = `CAST(CAST(${integer(op.left, op.leftNode)} AS BIGINT) AS BIT)`;
    return `CAST((${bits} ${operator} CAST(least(${integer(op.right, op.rightNode)}, 64) AS INTEGER)) AS BIGINT)`;
  };
}

/** Binary operators, written the same by both dialects unless a rendering is given (LIKE's escape aside, see the DuckDB dialect). */
export const BINARY_OPERATORS: readonly string[] = [
  'AND', 'OR', '=', '!=', '<>', '<', '>', '<=', '>=', '+', '-', '*', '/', '||', '&', '|', '^', '<<', '>>',
  'LIKE', 'NOT LIKE', 'IS', 'IS NOT', 'IS DISTINCT FROM', 'IS NOT DISTINCT FROM',
];

/** An INTERVAL divided by an INT64 as GoogleSQL divides it (sql-macros.ts `intervalQuotient`), each operand computed once. */
function intervalDivision(op: OperatorContext): string {
  return computedOnce(op.left, (i) => computedOnce(`CAST(${nonZero(op.right, op.rightNode, op.refuse)} AS BIGINT)`, (n) => intervalQuotient(i, n)));
}

export const OPERATOR_RENDERINGS: Readonly<Record<string, Partial<Record<DialectName, (op: OperatorContext) => string>>>> = {
  '+': { duckdb: int64Arithmetic('+') },
  '-': { duckdb: subtraction },
  '*': { duckdb: multiplication },
  // BigQuery's division is FLOAT64, like DuckDB's `/`, but a zero divisor is an error, not infinity.
  '/': { duckdb: division },
  '&': { duckdb: bitwise('&') },
  '|': { duckdb: bitwise('|') },
  '^': { duckdb: bitwise('^') },
  '<<': { duckdb: bitShift('<<') },
  '>>': { duckdb: bitShift('>>') },
};

// ---------------------------------------------------------------------------------------------
// EXTRACT, set operations, joins, constructs

/**
 * The week of the year a date is in, weeks starting on `weekday` (0 is Sunday), the days before
 * the year's first such day in week 0: with d the day of the year from 0 and f the first such
 * day's, (d - f + 7) // 7.
 */
function weekOfYear(weekday: number): (source: string) => string {
  return (source) => `CAST((dayofyear(${source}) - 1 - (${weekday} - dayofweek(date_trunc('year', ${source})) + 7) % 7 + 7) // 7 AS BIGINT)`;
}

/** EXTRACT parts, with DuckDB's rendering of `EXTRACT(part FROM source)`. */
export const EXTRACT_PARTS: Readonly<Record<string, (source: string) => string>> = {
  // BigQuery counts Sunday as 1; DuckDB as 0.
  dayofweek: (source) => `(dayofweek(${source}) + 1)`,
  dayofyear: (source) => `CAST(dayofyear(${source}) AS BIGINT)`,
  date: (source) => `CAST(${source} AS DATE)`,
  // A TIMESTAMP's civil date and time in UTC.
  datetime: (source) => `CAST(${source} AS TIMESTAMP)`,
  // Weeks starting on Sunday, the days before the year's first Sunday in week 0.
  week: (source) => `CAST(strftime(${source}, '%U') AS BIGINT)`,
  ...Object.fromEntries(WEEKDAYS.map((weekday, index) => [`week(${weekday})`, weekOfYear(index)])),
  // DuckDB's millisecond() and microsecond() count from the minute; BigQuery's from the second.
  millisecond: (source) => `(CAST(millisecond(${source}) AS BIGINT) % 1000)`,
  microsecond: (source) => `(CAST(microsecond(${source}) AS BIGINT) % 1000000)`,
  isoweek: (source) => `CAST(weekofyear(${source}) AS BIGINT)`,
  isoyear: (source) => `CAST(isoyear(${source}) AS BIGINT)`,
  ...Object.fromEntries(
    ['year', 'quarter', 'month', 'day', 'hour', 'minute', 'second'].map((part) => [
      part,
      (source: string) => `CAST(extract(${part} FROM ${source}) AS BIGINT)`,
    ]),
  ),
};

/** An EXTRACT's entry in EXTRACT_PARTS: its part, `week(monday)` for a week starting on a weekday. */
export function extractKey(node: { part: string; weekday?: string | undefined }): string {
  return node.weekday === undefined ? node.part : `${node.part}(${node.weekday})`;
}

/** Set operations, as each dialect writes them. */
export const SET_OPERATORS: Readonly<Record<string, Readonly<Record<DialectName, string>>>> = {
  'UNION ALL': { bigquery: 'UNION ALL', duckdb: 'UNION ALL' },
  'UNION DISTINCT': { bigquery: 'UNION DISTINCT', duckdb: 'UNION' },
  'INTERSECT DISTINCT': { bigquery: 'INTERSECT DISTINCT', duckdb: 'INTERSECT' },
  'EXCEPT DISTINCT': { bigquery: 'EXCEPT DISTINCT', duckdb: 'EXCEPT' },
  // Bags: a row as many times as the fewer of its copies (INTERSECT), or its copies in the first
  // input less those in the second (EXCEPT); NULLs equal, in both engines.
  'INTERSECT ALL': { bigquery: 'INTERSECT ALL', duckdb: 'INTERSECT ALL' },
  'EXCEPT ALL': { bigquery: 'EXCEPT ALL', duckdb: 'EXCEPT ALL' },
};

/**
 * Set operations matching columns by name, by mode (tree.ts SetByName), as each dialect writes the
 * word before the operator; `BY NAME [ON (...)]` follows it. DuckDB's own BY NAME matches as FULL
 * does and is not used: its set operations by name are made positional first, from the inputs'
 * columns (dialects/duckdb/rewrites/set-by-name.ts).
 */
export const SET_BY_NAME_MODES: Readonly<Record<string, Partial<Record<DialectName, string>>>> = {
  strict: { bigquery: '' },
  inner: { bigquery: 'INNER' },
  full: { bigquery: 'FULL' },
  left: { bigquery: 'LEFT' },
};

export const JOIN_TYPES: readonly string[] = ['CROSS JOIN', 'JOIN', 'INNER JOIN', 'LEFT JOIN', 'LEFT OUTER JOIN', 'RIGHT JOIN', 'RIGHT OUTER JOIN', 'FULL JOIN', 'FULL OUTER JOIN', 'comma'];

/**
 * Constructs beyond functions and types, each with a golden case: the rest of the language a
 * query may use, by the name the docs and the golden cases give it, with an example for the docs.
 */
export const CONSTRUCTS: Readonly<Record<string, string>> = {
  with: 'WITH a AS (...), b AS (...) SELECT ...',
  'select distinct': 'SELECT DISTINCT x',
  'select * except': 'SELECT * EXCEPT (a, b)',
  'select * replace': 'SELECT * REPLACE (lower(a) AS a)',
  where: 'WHERE x > 1',
  'group by': 'GROUP BY x',
  'group by expression': 'GROUP BY timestamp_trunc(t, HOUR)',
  'group by alias': 'SELECT f(x) AS y ... GROUP BY y',
  'group by ordinal': 'GROUP BY 1',
  'group by rollup': 'GROUP BY ROLLUP(a, (b, c)): NULL for the columns a total row aggregates over',
  'group by cube': 'GROUP BY CUBE(a, b)',
  'group by ()': 'GROUP BY (): one group of every row, so one row even of none',
  'grouping sets': 'GROUP BY GROUPING SETS(a, (b, c), (), ROLLUP(d)); a set given twice gives its rows twice',
  having: 'HAVING count(*) > 1',
  'having alias': 'SELECT count(*) AS n ... HAVING n > 1',
  qualify: 'QUALIFY row_number() OVER (...) = 1',
  'order by': 'ORDER BY x DESC',
  'order by alias': 'SELECT f(x) AS y ... ORDER BY y',
  'order by ordinal': 'ORDER BY 2',
  'order by alias in an expression': 'ORDER BY y + 1',
  'nulls first last': 'ORDER BY x DESC NULLS FIRST',
  'limit offset': 'LIMIT 10 OFFSET 20',
  'set operation': 'UNION ALL, UNION DISTINCT, INTERSECT ALL | DISTINCT, EXCEPT ALL | DISTINCT',
  'set operation by name': 'UNION ALL BY NAME, EXCEPT DISTINCT BY NAME ON (a, b), UNION ALL STRICT CORRESPONDING',
  'corresponding': 'UNION ALL CORRESPONDING [BY (a, b)], INNER UNION DISTINCT BY NAME: the names every input has',
  'outer set operation': 'FULL | LEFT [OUTER] UNION ALL BY NAME | CORRESPONDING: NULL where an input lacks a column',
  'subquery in from': 'FROM (SELECT ...) AS s',
  unpivot: "FROM (SELECT ...) UNPIVOT [INCLUDE NULLS] (v FOR n IN (a, b AS 'second')) or ((v, w) FOR n IN ((a, b), (c, d) AS 'cd')): over a subquery or CTE that names its columns and their types",
  pivot: "FROM (SELECT ...) PIVOT(SUM(v) AS s, COUNT(*) AS n FOR k IN ('a', 1 AS one)): over a subquery or CTE that names its columns",
  'parenthesised join': 'LEFT JOIN (a CROSS JOIN UNNEST(a.m) AS m) ON ...',
  'scalar subquery': '(SELECT max(x) FROM t)',
  'in list': 'x IN (1, 2)',
  'in subquery': 'x IN (SELECT ...)',
  'in unnest': 'x IN UNNEST(@values)',
  'quantified like': "x LIKE ANY ('a%', 'b%'), x NOT LIKE ALL UNNEST(@patterns), SOME as ANY: an empty or NULL array is FALSE for ANY, TRUE for ALL; STRING only on DuckDB",
  exists: 'EXISTS (SELECT ...)',
  'not exists': 'NOT EXISTS (SELECT ...)',
  between: 'x BETWEEN 1 AND 5',
  case: 'CASE WHEN c THEN a ELSE b END',
  'case with subject': 'CASE x WHEN 1 THEN a END',
  cast: 'CAST(x AS INT64)',
  safe_cast: 'SAFE_CAST(x AS INT64)',
  'cast format': "CAST(d AS STRING FORMAT 'Day, DD Mon YYYY'), CAST(n AS STRING FORMAT '$999,999.99'), CAST(b AS STRING FORMAT 'HEX')",
  'safe. prefix': "SAFE.PARSE_TIMESTAMP('%F', s)",
  interval: 'INTERVAL 7 DAY',
  extract: 'EXTRACT(HOUR FROM t)',
  'extract at time zone': "EXTRACT(HOUR FROM t AT TIME ZONE 'Asia/Tokyo')",
  unnest: 'CROSS JOIN UNNEST(t.metadata) AS m',
  'unnest with offset': 'UNNEST(a) AS x WITH OFFSET AS i',
  'left join unnest': 'LEFT JOIN UNNEST(m.request) AS r [ON TRUE]',
  'unnest without alias': 'CROSS JOIN UNNEST(t.metadata)',
  'struct field through unnest alias': 'UNNEST(m.request) AS r WHERE path = ...',
  'fields of an unnest of struct literals': "SELECT LPAD(t, len) FROM UNNEST([STRUCT('abc' AS t, 5 AS len)])",
  'select * over an unnest': "SELECT * FROM UNNEST([STRUCT('a' AS x, 1 AS y)]): the fields x, y; UNNEST([1, 2]): f0_; over an UNNEST of a record read from a column (t, UNNEST(t.metadata) AS m): refused on DuckDB, select its fields by name",
  struct: "STRUCT(1 AS a, 'x' AS b)",
  'typed struct': "STRUCT<a INT64, b STRING>(1, 'x')",
  'struct field named after its path': 'STRUCT(r.method).method',
  tuple: "(a, b) = (1, 2); a STRUCT's unnamed fields are _field_1, _field_2, ... in results, as BigQuery names them",
  'array literal': '[1, 2, 3], ARRAY[x], []',
  'typed array literal': 'ARRAY<INT64>[], ARRAY<STRING>[x]',
  'array subquery': 'ARRAY(SELECT x FROM ...)',
  'select as struct': 'ARRAY(SELECT AS STRUCT a, b FROM ...), (SELECT AS STRUCT ...): in an expression subquery on DuckDB, each item named',
  'select as value': '(SELECT AS VALUE x ...), x IN (SELECT AS VALUE ...): in an expression subquery on DuckDB',
  'array subscript': 'a[OFFSET(0)], a[ORDINAL(1)]',
  'safe subscript': 'a[SAFE_OFFSET(9)]',
  'bare subscript': 'a[0]',
  'subscript on an expression': "split(s, ',')[SAFE_OFFSET(1)]",
  'field after subscript': 'a[OFFSET(0)].field',
  window: 'count(*) OVER (PARTITION BY a ORDER BY b)',
  'window frame': 'OVER (ORDER BY t ROWS BETWEEN 5 PRECEDING AND CURRENT ROW)',
  'named window': 'OVER w ... WINDOW w AS (PARTITION BY a)',
  'window sees from names': 'SELECT x AS y, rank() OVER (ORDER BY x)',
  'aggregate order by limit': "STRING_AGG(DISTINCT x, ',' ORDER BY x LIMIT 5)",
  'aggregate having max min': 'SUM(x HAVING MAX k), ARRAY_AGG(x HAVING MIN k): every row tied at the extreme k, none with a NULL or NaN k',
  'ignore nulls': 'ARRAY_AGG(x IGNORE NULLS)',
  parameter: '@name',
  'string literal': `'a', "a", '''a''', 'tab\\t'`,
  'raw string literal': "r'\\d+'",
  'bytes literal': "b'AB'",
  'typed literal': "TIMESTAMP '2024-05-01 10:00:00+00'",
  'negative number': '-1',
  'hex literal': '0x1F',
  'float literal': '0.1, 1e3',
  'integer literal beyond 2^53': '9007199254740993',
  'bitwise not': '~x',
  'date difference': "DATE '2021-05-20' - DATE '2020-04-19' (an INTERVAL of days)",
  'timestamp difference': 'TIMESTAMP t2 - TIMESTAMP t1 (an INTERVAL of hours, minutes and seconds)',
  'interval arithmetic': 'ts + INTERVAL 1 HOUR, INTERVAL 1 MONTH / 12, INTERVAL 35 SECOND * 4',
  'subscript past the end': 'a[OFFSET(9)] past the end: an error, as in BigQuery',
  'field access on a repeated record': 'metadata.request: refused, as BigQuery refuses it (UNNEST first)',
  'table alias as a value': 'SELECT t AS row FROM t AS t (the row as a STRUCT)',
  'with in a subquery': 'FROM (WITH a AS (...) SELECT ...), (WITH ... SELECT ...) AS x',
  'with in a set operand': '(WITH a AS (...) SELECT ...) UNION ALL (...)',
  'select * over join using': 'SELECT * FROM a JOIN b USING (c): c first',
  'null array in a result': 'a NULL ARRAY is [] in a result; an ARRAY holding NULL cannot be returned',
};

/** Every date part some function accepts. */
export function datePartNames(): string[] {
  const parts = new Set<string>();
  for (const spec of FUNCTIONS.values()) for (const part of spec.parts ?? []) parts.add(part);
  return [...parts];
}

/** Every entry of the table, as `kind:name` (`function:lower`, `cast:INT64`): what docs and golden cases cover. */
export function languageEntries(): string[] {
  return [
    ...[...FUNCTIONS.keys()].map((name) => `function:${name}`),
    ...Object.keys(CAST_TYPES).map((type) => `cast:${type}`),
    ...datePartNames().map((part) => `date_part:${part}`),
    ...INTERVAL_UNITS.map((unit) => `interval:${unit}`),
    ...Object.keys(EXTRACT_PARTS).map((part) => `extract:${part}`),
    ...Object.keys(SET_OPERATORS).map((operator) => `set:${operator}`),
    ...BINARY_OPERATORS.map((operator) => `operator:${operator}`),
    ...JOIN_TYPES.map((type) => `join:${type}`),
    ...Object.keys(CONSTRUCTS).map((name) => `construct:${name}`),
  ];
}

/** What the query text says of types: declared function results and cast targets (analyse/static-type.ts). */
export const TYPE_LOOKUP: TypeLookup = {
  result: (call) => resolveFunction(call.name)?.spec.returns,
  cast: (type) => CAST_TYPES[type]?.type,
};

/** Every name the sandbox lets a caller call: exactly the table's functions (with `SAFE.` before a scalar one). */
export function isSupportedFunction(name: string): boolean {
  return resolveFunction(name) !== undefined;
}
