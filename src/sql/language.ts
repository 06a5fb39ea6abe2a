/**
 * The language cannery supports: every function, cast type, date part, operator and clause a query
 * may use, with BigQuery's meaning and each dialect's rendering. This one table is read by the
 * reader (which arguments are date parts), the sandbox (its allow-list is exactly these functions),
 * the generator (how each backend writes them), the docs (docs/sql.md's list is checked against it)
 * and the golden tests (every entry has a case).
 *
 * BigQuery is the contract: a rendering for DuckDB must give BigQuery's answer, NULLs and edge
 * cases included. A rendering for BigQuery is only given where it is not `NAME(args)`.
 */
import type { Expr } from './tree.js';

export type DialectName = 'bigquery' | 'duckdb';

/** What a function's rendering gets: its arguments already written in the dialect. */
export interface CallContext {
  /** The BigQuery name, lower case. */
  name: string;
  args: string[];
  /** An aggregate's DISTINCT. */
  distinct: boolean;
  /** An aggregate's ` ORDER BY ...` (with its leading space), LIMIT count, IGNORE NULLS: only where `modifiers` allows. */
  orderBy?: string | undefined;
  limit?: string | undefined;
  ignoreNulls?: boolean | undefined;
  /** The arguments as trees, for renderings that need a literal's value (a format string). */
  argNodes: readonly Expr[];
  /** At each date-part position, the validated part (lower case); elsewhere undefined. */
  parts: readonly (string | undefined)[];
  /** A bound parameter's placeholder (DuckDB binds the execution time). */
  parameter(name: string): string;
  /** Refuses the call: what is not supported, for the one message of the generator. */
  refuse(what: string): never;
}

export type Render = (call: CallContext) => string;

export type FunctionKind = 'scalar' | 'aggregate' | 'window';

/** The clauses an aggregate call may carry besides DISTINCT. */
export interface Modifiers {
  orderBy?: boolean;
  limit?: boolean;
  /** IGNORE NULLS / RESPECT NULLS. */
  nulls?: boolean;
}

export interface FunctionSpec {
  kind: FunctionKind;
  /** ORDER BY, LIMIT, IGNORE NULLS inside the call, as BigQuery allows them for this function. */
  modifiers?: Modifiers;
  /** Fewest and most arguments. */
  arity: readonly [number, number];
  /** Positions of date-part keywords (`TIMESTAMP_TRUNC(ts, HOUR)`), and the parts allowed there. */
  dateParts?: readonly number[];
  /** BigQuery's meaning in a line, for the docs. */
  summary: string;
  render: { duckdb: Render; bigquery?: Render };
}

/** Name of the hidden parameter that carries the query's execution time (BigQuery's CURRENT_TIMESTAMP). */
export const EXECUTION_TIME_PARAM = '__cannery_now';

/** Date parts TIMESTAMP_TRUNC and DATETIME_TRUNC accept here. */
export const TRUNCATION_PARTS: readonly string[] = ['microsecond', 'millisecond', 'second', 'minute', 'hour', 'day', 'week', 'month', 'quarter', 'year'];

/** INTERVAL units. */
export const INTERVAL_UNITS: readonly string[] = ['microsecond', 'millisecond', 'second', 'minute', 'hour', 'day', 'week', 'month', 'quarter', 'year'];

/** A function whose DuckDB name and argument order match BigQuery's. */
function same(duckName: string): Render {
  return (call) => `${duckName}(${call.distinct ? 'DISTINCT ' : ''}${call.args.join(', ')})`;
}

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

/** STRING_AGG skips NULLs; with LIMIT, the first non-NULL values are joined. */
function stringAgg(call: CallContext): string {
  const [value, separator = `','`] = call.args;
  if (call.limit === undefined) return `string_agg(${call.distinct ? 'DISTINCT ' : ''}${value}, ${separator}${call.orderBy ?? ''})`;
  const values = `array_agg(${call.distinct ? 'DISTINCT ' : ''}${value}${call.orderBy ?? ''}) FILTER (WHERE ${value} IS NOT NULL)`;
  return `array_to_string(list_slice(${values}, 1, ${call.limit}), ${separator})`;
}

/** Microseconds in each date part of fixed length (in UTC a day is always 24 hours). */
const FIXED_PARTS: Readonly<Record<string, number>> = { millisecond: 1e3, second: 1e6, minute: 6e7, hour: 3.6e9, day: 8.64e10 };

function truncate(call: CallContext): string {
  const part = call.parts[1]!;
  // BigQuery weeks start on Sunday; DuckDB's (ISO) on Monday.
  if (part === 'week') return `(date_trunc('week', ${call.args[0]} + INTERVAL 1 DAY) - INTERVAL 1 DAY)`;
  const unit = FIXED_PARTS[part];
  if (unit !== undefined) {
    // Floor on the epoch microseconds: about a tenth of date_trunc's cost on a TIMESTAMPTZ, whose
    // zone-aware truncation is what usage.api-counts' buckets spent most on. The double modulo
    // floors instants before 1970 too.
    const micros = `epoch_us(${call.args[0]})`;
    const make = call.name === 'timestamp_trunc' ? 'make_timestamptz' : 'make_timestamp';
    return `${make}(${micros} - (((${micros} % ${unit}) + ${unit}) % ${unit}))`;
  }
  return `date_trunc('${part}', ${call.args[0]})`;
}

/** BigQuery reads position 0 as 1; DuckDB would start one character before the string. */
function substring(call: CallContext): string {
  const [text, position, length] = call.args;
  const start = `(CASE WHEN ${position} = 0 THEN 1 ELSE ${position} END)`;
  return `substring(${[text, start, length].filter(Boolean).join(', ')})`;
}

function shift(operator: '+' | '-'): Render {
  return (call) => `(${call.args[0]} ${operator} ${call.args[1]})`;
}

/** Format elements that mean the same in BigQuery and DuckDB's strftime. */
const SAME_FORMAT_ELEMENTS: readonly string[] = ['%Y', '%y', '%m', '%d', '%H', '%I', '%M', '%S', '%p', '%j', '%a', '%A', '%b', '%B', '%z', '%Z', '%%'];

/** BigQuery format elements that differ from DuckDB's strftime. */
const FORMAT_ELEMENTS: Readonly<Record<string, string>> = {
  '%F': '%Y-%m-%d',
  '%T': '%H:%M:%S',
  '%R': '%H:%M',
  '%D': '%m/%d/%y',
  '%E6S': '%S.%f',
  '%E3S': '%S.%g',
  '%E*S': '%S.%f',
  '%Ez': '%z',
};

function formatTimestamp(call: CallContext): string {
  const format = call.argNodes[0];
  if (format?.kind !== 'literal' || format.type !== 'string' || typeof format.value !== 'string') return call.refuse('FORMAT_TIMESTAMP with a non-literal format');
  for (const [element] of format.value.matchAll(/%(E[36*]S|Ez|[A-Za-z%])/g)) {
    if (!(element in FORMAT_ELEMENTS) && !SAME_FORMAT_ELEMENTS.includes(element)) {
      return call.refuse(`FORMAT_TIMESTAMP element ${element} (supported: ${[...SAME_FORMAT_ELEMENTS, ...Object.keys(FORMAT_ELEMENTS)].join(' ')})`);
    }
  }
  const duckFormat = format.value.replace(/%E[36*]S|%Ez|%[FTRD]/g, (element) => FORMAT_ELEMENTS[element] ?? element);
  const zone = call.args[2] ?? `'UTC'`;
  return `strftime(timezone(${zone}, ${call.args[1]}), '${duckFormat.replace(/'/g, "''")}')`;
}

function scalar(summary: string, arity: readonly [number, number], duckdb: Render, extra: { dateParts?: readonly number[]; bigquery?: Render } = {}): FunctionSpec {
  const spec: FunctionSpec = { kind: 'scalar', arity, summary, render: extra.bigquery ? { duckdb, bigquery: extra.bigquery } : { duckdb } };
  return extra.dateParts ? { ...spec, dateParts: extra.dateParts } : spec;
}

function aggregate(summary: string, arity: readonly [number, number], duckdb: Render, modifiers?: Modifiers): FunctionSpec {
  return modifiers ? { kind: 'aggregate', arity, summary, modifiers, render: { duckdb } } : { kind: 'aggregate', arity, summary, render: { duckdb } };
}

function analytic(summary: string, arity: readonly [number, number], duckName: string): FunctionSpec {
  return { kind: 'window', arity, summary, render: { duckdb: same(duckName) } };
}

const MANY = 64;

export const FUNCTIONS: ReadonlyMap<string, FunctionSpec> = new Map<string, FunctionSpec>([
  // Conditionals
  ['coalesce', scalar('first non-NULL argument', [1, MANY], same('coalesce'))],
  ['ifnull', scalar('the first argument, or the second when it is NULL', [2, 2], same('coalesce'))],
  ['if', scalar('IF(cond, a, b): a when cond is TRUE, else b', [3, 3], (call) => `(CASE WHEN ${call.args[0]} THEN ${call.args[1]} ELSE ${call.args[2]} END)`)],
  ['nullif', scalar('NULL when both arguments are equal, else the first', [2, 2], same('nullif'))],
  ['greatest', scalar('largest argument; NULL if any is NULL', [1, MANY], same('greatest'))],
  ['least', scalar('smallest argument; NULL if any is NULL', [1, MANY], same('least'))],
  // Strings (RE2 on both backends)
  ['regexp_contains', scalar('whether the RE2 pattern matches anywhere in the string', [2, 2], same('regexp_matches'))],
  ['regexp_replace', scalar('every match of the RE2 pattern replaced', [3, 3], (call) => `regexp_replace(${call.args.join(', ')}, 'g')`)],
  ['starts_with', scalar('whether the string starts with the prefix', [2, 2], same('starts_with'))],
  ['ends_with', scalar('whether the string ends with the suffix', [2, 2], same('ends_with'))],
  ['lower', scalar('lower case', [1, 1], same('lower'))],
  ['upper', scalar('upper case', [1, 1], same('upper'))],
  ['length', scalar('characters in a string', [1, 1], same('length'))],
  ['char_length', scalar('characters in a string', [1, 1], same('length'))],
  ['trim', scalar('leading and trailing characters (whitespace by default) removed', [1, 2], same('trim'))],
  ['ltrim', scalar('leading characters removed', [1, 2], same('ltrim'))],
  ['rtrim', scalar('trailing characters removed', [1, 2], same('rtrim'))],
  ['strpos', scalar('1-based position of the substring, 0 when absent', [2, 2], same('strpos'))],
  ['substr', scalar('substring from a 1-based position (0 reads as 1), optionally of a length', [2, 3], substring)],
  ['substring', scalar('same as SUBSTR', [2, 3], substring)],
  ['replace', scalar('every occurrence of a substring replaced', [3, 3], same('replace'))],
  ['split', scalar('the string split on a delimiter (`,` by default) into an array', [1, 2], (call) => `string_split(${call.args[0]}, ${call.args[1] ?? `','`})`)],
  // BigQuery's CONCAT is NULL if any argument is NULL, like DuckDB's || (DuckDB's concat skips NULLs).
  ['concat', scalar('the arguments joined; NULL if any is NULL', [1, MANY], (call) => `(${call.args.join(' || ')})`)],
  // Numbers
  ['abs', scalar('absolute value', [1, 1], same('abs'))],
  ['round', scalar('rounded half away from zero, to 0 or n decimal places', [1, 2], same('round'))],
  ['floor', scalar('largest integral value not greater', [1, 1], same('floor'))],
  ['ceil', scalar('smallest integral value not less', [1, 1], same('ceil'))],
  ['mod', scalar('remainder of integer division', [2, 2], same('mod'))],
  ['sqrt', scalar('square root', [1, 1], same('sqrt'))],
  ['pow', scalar('x to the power y', [2, 2], same('pow'))],
  ['safe_divide', scalar('x / y, NULL when y is 0', [2, 2], (call) => `(CASE WHEN ${call.args[1]} = 0 THEN NULL ELSE ${call.args[0]} / ${call.args[1]} END)`)],
  // Arrays
  ['array_length', scalar('elements in an array', [1, 1], same('len'))],
  // Time: TIMESTAMP is DuckDB TIMESTAMPTZ in a UTC session; DATETIME is DuckDB TIMESTAMP.
  ['current_timestamp', scalar('the query\'s execution time, the same for the whole query', [0, 0], (call) => `CAST(${call.parameter(EXECUTION_TIME_PARAM)} AS TIMESTAMPTZ)`, { bigquery: () => 'CURRENT_TIMESTAMP()' })],
  ['timestamp_trunc', scalar('a TIMESTAMP truncated to a date part, in UTC (weeks start on Sunday)', [2, 2], truncate, { dateParts: [1] })],
  ['datetime_trunc', scalar('a DATETIME truncated to a date part (weeks start on Sunday)', [2, 2], truncate, { dateParts: [1] })],
  ['timestamp_sub', scalar('a TIMESTAMP minus an INTERVAL', [2, 2], shift('-'))],
  ['timestamp_add', scalar('a TIMESTAMP plus an INTERVAL', [2, 2], shift('+'))],
  ['datetime_sub', scalar('a DATETIME minus an INTERVAL', [2, 2], shift('-'))],
  ['datetime_add', scalar('a DATETIME plus an INTERVAL', [2, 2], shift('+'))],
  ['timestamp', scalar('a TIMESTAMP from a string, DATE or DATETIME (UTC)', [1, 1], (call) => `CAST(${call.args[0]} AS TIMESTAMPTZ)`)],
  ['datetime', scalar('the DATETIME of a TIMESTAMP in a time zone (UTC by default)', [1, 2], (call) => `timezone(${call.args[1] ?? `'UTC'`}, CAST(${call.args[0]} AS TIMESTAMPTZ))`)],
  ['date', scalar('the DATE of a TIMESTAMP (UTC), DATETIME or string', [1, 1], (call) => `CAST(${call.args[0]} AS DATE)`)],
  ['unix_micros', scalar('microseconds since the Unix epoch', [1, 1], same('epoch_us'))],
  ['unix_millis', scalar('milliseconds since the Unix epoch', [1, 1], same('epoch_ms'))],
  ['unix_seconds', scalar('whole seconds since the Unix epoch', [1, 1], (call) => `CAST(floor(epoch(${call.args[0]})) AS BIGINT)`)],
  ['timestamp_micros', scalar('the TIMESTAMP of microseconds since the epoch', [1, 1], (call) => `CAST(make_timestamp(CAST(${call.args[0]} AS BIGINT)) AS TIMESTAMPTZ)`)],
  ['timestamp_millis', scalar('the TIMESTAMP of milliseconds since the epoch', [1, 1], (call) => `CAST(make_timestamp(CAST(${call.args[0]} AS BIGINT) * 1000) AS TIMESTAMPTZ)`)],
  ['timestamp_seconds', scalar('the TIMESTAMP of seconds since the epoch', [1, 1], (call) => `CAST(make_timestamp(CAST(${call.args[0]} AS BIGINT) * 1000000) AS TIMESTAMPTZ)`)],
  ['format_timestamp', scalar('a TIMESTAMP formatted with a literal format string, in a time zone (UTC by default)', [2, 3], formatTimestamp)],
  // Aggregates
  ['count', aggregate('rows, or non-NULL values', [1, 1], same('count'))],
  ['countif', aggregate('rows where the condition is TRUE', [1, 1], same('count_if'))],
  ['sum', aggregate('sum of non-NULL values', [1, 1], same('sum'))],
  ['avg', aggregate('mean of non-NULL values', [1, 1], same('avg'))],
  ['min', aggregate('smallest non-NULL value', [1, 1], same('min'))],
  ['max', aggregate('largest non-NULL value', [1, 1], same('max'))],
  ['any_value', aggregate('a value of the group', [1, 1], same('any_value'))],
  ['array_agg', aggregate('the values as an array (IGNORE NULLS drops NULLs; ORDER BY, LIMIT)', [1, 1], arrayAgg, { orderBy: true, limit: true, nulls: true })],
  ['string_agg', aggregate('non-NULL strings joined (`,` by default; ORDER BY, LIMIT)', [1, 2], stringAgg, { orderBy: true, limit: true })],
  ['logical_and', aggregate('TRUE when every non-NULL value is TRUE', [1, 1], same('bool_and'))],
  ['logical_or', aggregate('TRUE when any non-NULL value is TRUE', [1, 1], same('bool_or'))],
  // Analytic functions (OVER required)
  ['row_number', analytic('1-based number of the row in its window', [0, 0], 'row_number')],
  ['rank', analytic('rank with gaps', [0, 0], 'rank')],
  ['dense_rank', analytic('rank without gaps', [0, 0], 'dense_rank')],
  ['lag', analytic('a value of a row before in the window', [1, 3], 'lag')],
  ['lead', analytic('a value of a row after in the window', [1, 3], 'lead')],
]);

/**
 * Cast targets (and typed literals): each name BigQuery accepts that the parser reads, with its
 * canonical BigQuery name and DuckDB's.
 */
export const CAST_TYPES: Readonly<Record<string, Readonly<Record<DialectName, string>>>> = {
  STRING: { bigquery: 'STRING', duckdb: 'VARCHAR' },
  INT64: { bigquery: 'INT64', duckdb: 'BIGINT' },
  INTEGER: { bigquery: 'INT64', duckdb: 'BIGINT' },
  INT: { bigquery: 'INT64', duckdb: 'BIGINT' },
  SMALLINT: { bigquery: 'INT64', duckdb: 'BIGINT' },
  BIGINT: { bigquery: 'INT64', duckdb: 'BIGINT' },
  TINYINT: { bigquery: 'INT64', duckdb: 'BIGINT' },
  BYTEINT: { bigquery: 'INT64', duckdb: 'BIGINT' },
  FLOAT64: { bigquery: 'FLOAT64', duckdb: 'DOUBLE' },
  NUMERIC: { bigquery: 'NUMERIC', duckdb: 'DECIMAL(38, 9)' },
  DECIMAL: { bigquery: 'NUMERIC', duckdb: 'DECIMAL(38, 9)' },
  BOOL: { bigquery: 'BOOL', duckdb: 'BOOLEAN' },
  BOOLEAN: { bigquery: 'BOOL', duckdb: 'BOOLEAN' },
  BYTES: { bigquery: 'BYTES', duckdb: 'BLOB' },
  TIMESTAMP: { bigquery: 'TIMESTAMP', duckdb: 'TIMESTAMPTZ' },
  DATETIME: { bigquery: 'DATETIME', duckdb: 'TIMESTAMP' },
  DATE: { bigquery: 'DATE', duckdb: 'DATE' },
  TIME: { bigquery: 'TIME', duckdb: 'TIME' },
};

/** CAST and SAFE_CAST (NULL instead of an error), as each dialect writes them. */
export const CAST_KEYWORDS: Readonly<Record<'cast' | 'safe_cast', Readonly<Record<DialectName, string>>>> = {
  cast: { bigquery: 'CAST', duckdb: 'CAST' },
  safe_cast: { bigquery: 'SAFE_CAST', duckdb: 'TRY_CAST' },
};

const WEEKDAYS: readonly string[] = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];

/**
 * BigQuery's WEEK(<weekday>) number: weeks start on that weekday, the days of the year before the
 * first one are week 0. `shift` is how many days January 1st lies after the week's start.
 */
function weekNumber(source: string, weekday = 'sunday'): string {
  const start = WEEKDAYS.indexOf(weekday);
  const shift = `((dayofweek(date_trunc('year', ${source})) - ${start} + 7) % 7)`;
  return `CAST(floor((dayofyear(${source}) - 1 + ${shift}) / 7) + (CASE WHEN ${shift} = 0 THEN 1 ELSE 0 END) AS BIGINT)`;
}

/** EXTRACT parts, with DuckDB's rendering of `EXTRACT(part FROM source)` (`weekday` of `WEEK(<weekday>)`). */
export const EXTRACT_PARTS: Readonly<Record<string, (source: string, weekday?: string) => string>> = {
  // BigQuery counts Sunday as 1; DuckDB as 0.
  dayofweek: (source) => `(dayofweek(${source}) + 1)`,
  dayofyear: (source) => `CAST(dayofyear(${source}) AS BIGINT)`,
  date: (source) => `CAST(${source} AS DATE)`,
  // A TIMESTAMP's civil time in UTC (the session's zone), or in the zone AT TIME ZONE gave.
  datetime: (source) => `CAST(${source} AS TIMESTAMP)`,
  week: weekNumber,
  // DuckDB's millisecond and microsecond count the seconds too (12.345 s is 12345); BigQuery's do not.
  millisecond: (source) => `CAST(extract(millisecond FROM ${source}) % 1000 AS BIGINT)`,
  microsecond: (source) => `CAST(extract(microsecond FROM ${source}) % 1000000 AS BIGINT)`,
  ...Object.fromEntries(
    ['year', 'quarter', 'month', 'day', 'hour', 'minute', 'second'].map((part) => [
      part,
      (source: string) => `CAST(extract(${part} FROM ${source}) AS BIGINT)`,
    ]),
  ),
};

/** Set operations, as each dialect writes them. */
export const SET_OPERATORS: Readonly<Record<string, Readonly<Record<DialectName, string>>>> = {
  'UNION ALL': { bigquery: 'UNION ALL', duckdb: 'UNION ALL' },
  'UNION DISTINCT': { bigquery: 'UNION DISTINCT', duckdb: 'UNION' },
  'INTERSECT DISTINCT': { bigquery: 'INTERSECT DISTINCT', duckdb: 'INTERSECT' },
  'EXCEPT DISTINCT': { bigquery: 'EXCEPT DISTINCT', duckdb: 'EXCEPT' },
};

/** Binary operators, written the same by both dialects (LIKE's escape aside, see the DuckDB dialect). */
export const BINARY_OPERATORS: readonly string[] = ['AND', 'OR', '=', '!=', '<>', '<', '>', '<=', '>=', '+', '-', '*', '/', '||', 'LIKE', 'NOT LIKE', 'IS', 'IS NOT'];

export const JOIN_TYPES: readonly string[] = ['CROSS JOIN', 'JOIN', 'INNER JOIN', 'LEFT JOIN', 'LEFT OUTER JOIN', 'RIGHT JOIN', 'RIGHT OUTER JOIN', 'FULL JOIN', 'FULL OUTER JOIN', 'comma'];

/**
 * Constructs beyond functions and types, each with a golden case: the rest of the language a
 * query may use, by the name the docs and the golden cases give it.
 */
export const CONSTRUCTS: readonly string[] = [
  'with', 'select distinct', 'select * except', 'select * replace', 'where', 'group by', 'having', 'order by', 'limit offset',
  'set operation', 'subquery in from', 'scalar subquery', 'in list', 'in subquery', 'in unnest', 'exists', 'not exists',
  'between', 'case', 'case with subject', 'cast', 'safe_cast', 'interval', 'extract', 'unnest', 'unnest with offset',
  'left join unnest', 'unnest without alias', 'struct field through unnest alias', 'array subscript', 'field after subscript',
  'window', 'parameter', 'string literal', 'raw string literal', 'typed literal', 'negative number',
  'struct', 'typed struct', 'tuple', 'array literal', 'typed array literal', 'array subquery', 'subscript on an expression',
  'bare subscript', 'safe subscript', 'qualify', 'nulls first last', 'window frame', 'named window', 'parenthesised join',
  'aggregate order by limit', 'ignore nulls', 'bytes literal', 'hex literal', 'big integer literal', 'extract at time zone',
  // GoogleSQL name resolution (docs/sql.md, "Names")
  'group by alias', 'group by ordinal', 'group by expression', 'having alias', 'order by alias', 'order by ordinal',
  'order by alias in an expression', 'window sees from names',
];

/** Every entry of the table, as `kind:name` (`function:lower`, `cast:INT64`): what docs and golden cases cover. */
export function languageEntries(): string[] {
  return [
    ...[...FUNCTIONS.keys()].map((name) => `function:${name}`),
    ...Object.keys(CAST_TYPES).map((type) => `cast:${type}`),
    ...TRUNCATION_PARTS.map((part) => `date_part:${part}`),
    ...INTERVAL_UNITS.map((unit) => `interval:${unit}`),
    ...Object.keys(EXTRACT_PARTS).map((part) => `extract:${part}`),
    ...Object.keys(SET_OPERATORS).map((operator) => `set:${operator}`),
    ...BINARY_OPERATORS.map((operator) => `operator:${operator}`),
    ...JOIN_TYPES.map((type) => `join:${type}`),
    ...CONSTRUCTS.map((name) => `construct:${name}`),
  ];
}

/** Every name the sandbox lets a caller call: exactly the table's functions. */
export function isSupportedFunction(name: string): boolean {
  return FUNCTIONS.has(name);
}
