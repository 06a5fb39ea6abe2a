/**
 * BigQuery functions the DuckDB translation supports, each with BigQuery's semantics.
 * This table is also the sandbox's function allowlist: a name not here is refused.
 */
import { UnsupportedConstruct } from './unsupported.js';
import type { SqlLocation } from '../parse.js';

export interface FunctionCall {
  name: string;
  /** Arguments already translated to DuckDB SQL. */
  args: string[];
  /** Date part keywords (`MINUTE`, `WEEK`) are identifiers in the AST; their raw names, lower-cased. */
  keywords: (string | undefined)[];
  location: SqlLocation | undefined;
  /** SQL that yields the query's execution time (BigQuery's CURRENT_TIMESTAMP is fixed per statement). */
  now: () => string;
}

type Emitter = (call: FunctionCall) => string;

function arity(call: FunctionCall, min: number, max = min): void {
  if (call.args.length < min || call.args.length > max) {
    const wanted = min === max ? `${min}` : `${min} to ${max}`;
    throw new UnsupportedConstruct(`${call.name.toUpperCase()} takes ${wanted} argument(s), got ${call.args.length}`, call.location);
  }
}

/** A function whose DuckDB name and argument order match BigQuery's. */
function same(duckName: string, min: number, max = min): Emitter {
  return (call) => {
    arity(call, min, max);
    return `${duckName}(${call.args.join(', ')})`;
  };
}

const TRUNCATABLE_PARTS = new Set(['microsecond', 'millisecond', 'second', 'minute', 'hour', 'day', 'week', 'month', 'quarter', 'year']);

function datePart(call: FunctionCall, index: number): string {
  const part = call.keywords[index];
  if (part === undefined || !TRUNCATABLE_PARTS.has(part)) {
    throw new UnsupportedConstruct(`${call.name.toUpperCase()} with date part ${part ?? call.args[index] ?? '?'} (supported: ${[...TRUNCATABLE_PARTS].join(', ').toUpperCase()})`, call.location);
  }
  return part;
}

function truncate(call: FunctionCall): string {
  arity(call, 2);
  const part = datePart(call, 1);
  // BigQuery weeks start on Sunday; DuckDB's (ISO) on Monday.
  if (part === 'week') return `(date_trunc('week', ${call.args[0]} + INTERVAL 1 DAY) - INTERVAL 1 DAY)`;
  return `date_trunc('${part}', ${call.args[0]})`;
}

/** BigQuery reads position 0 as 1; DuckDB would start one character before the string. */
function substring(call: FunctionCall): string {
  arity(call, 2, 3);
  const [text, position, length] = call.args;
  const start = `(CASE WHEN ${position} = 0 THEN 1 ELSE ${position} END)`;
  return `substring(${[text, start, length].filter(Boolean).join(', ')})`;
}

function shift(operator: '+' | '-'): Emitter {
  return (call) => {
    arity(call, 2);
    return `(${call.args[0]} ${operator} ${call.args[1]})`;
  };
}

/** Format elements that mean the same in BigQuery and DuckDB's strftime. */
const SAME_FORMAT_ELEMENTS = new Set(['%Y', '%y', '%m', '%d', '%H', '%I', '%M', '%S', '%p', '%j', '%a', '%A', '%b', '%B', '%z', '%Z', '%%']);

/** BigQuery format elements that differ from DuckDB's strftime. */
const FORMAT_ELEMENTS: Record<string, string> = {
  '%F': '%Y-%m-%d',
  '%T': '%H:%M:%S',
  '%R': '%H:%M',
  '%D': '%m/%d/%y',
  '%E6S': '%S.%f',
  '%E3S': '%S.%g',
  '%E*S': '%S.%f',
  '%Ez': '%z',
};

function formatTimestamp(call: FunctionCall): string {
  arity(call, 2, 3);
  const literal = /^'((?:[^']|'')*)'$/.exec(call.args[0]!);
  if (!literal) throw new UnsupportedConstruct('FORMAT_TIMESTAMP with a non-literal format', call.location);
  const unsupportedElement = /%(E[36*]S|Ez|[A-Za-z%])/g;
  for (const [element] of literal[1]!.matchAll(unsupportedElement)) {
    if (!(element in FORMAT_ELEMENTS) && !SAME_FORMAT_ELEMENTS.has(element)) {
      throw new UnsupportedConstruct(`FORMAT_TIMESTAMP element ${element} (supported: ${[...SAME_FORMAT_ELEMENTS, ...Object.keys(FORMAT_ELEMENTS)].join(' ')})`, call.location);
    }
  }
  const format = literal[1]!.replace(/%E[36*]S|%Ez|%[FTRD]/g, (element) => FORMAT_ELEMENTS[element] ?? element);
  const zone = call.args[2] ?? `'UTC'`;
  return `strftime(timezone(${zone}, ${call.args[1]}), '${format}')`;
}

export const FUNCTIONS: ReadonlyMap<string, Emitter> = new Map<string, Emitter>([
  // Logic: the parser reads `NOT (x)` as a call.
  ['not', (call) => { arity(call, 1); return `(NOT ${call.args[0]})`; }],
  // Conditionals
  ['coalesce', (call) => { arity(call, 1, 64); return `coalesce(${call.args.join(', ')})`; }],
  ['ifnull', (call) => { arity(call, 2); return `coalesce(${call.args.join(', ')})`; }],
  ['if', (call) => { arity(call, 3); return `(CASE WHEN ${call.args[0]} THEN ${call.args[1]} ELSE ${call.args[2]} END)`; }],
  ['nullif', same('nullif', 2)],
  ['greatest', (call) => { arity(call, 1, 64); return `greatest(${call.args.join(', ')})`; }],
  ['least', (call) => { arity(call, 1, 64); return `least(${call.args.join(', ')})`; }],
  // Aggregates spelled as plain functions by the parser
  ['countif', same('count_if', 1)],
  ['string_agg', same('string_agg', 1, 2)],
  ['logical_and', same('bool_and', 1)],
  ['logical_or', same('bool_or', 1)],
  // Strings (RE2 on both sides)
  ['regexp_contains', same('regexp_matches', 2)],
  ['regexp_replace', (call) => { arity(call, 3); return `regexp_replace(${call.args.join(', ')}, 'g')`; }],
  ['starts_with', same('starts_with', 2)],
  ['ends_with', same('ends_with', 2)],
  ['lower', same('lower', 1)],
  ['upper', same('upper', 1)],
  ['length', same('length', 1)],
  ['char_length', same('length', 1)],
  ['trim', same('trim', 1, 2)],
  ['ltrim', same('ltrim', 1, 2)],
  ['rtrim', same('rtrim', 1, 2)],
  ['strpos', same('strpos', 2)],
  ['substr', substring],
  ['substring', substring],
  ['replace', same('replace', 3)],
  ['split', (call) => { arity(call, 1, 2); return `string_split(${call.args[0]}, ${call.args[1] ?? `','`})`; }],
  // BigQuery's CONCAT is NULL if any argument is NULL, like DuckDB's || (DuckDB's concat skips NULLs).
  ['concat', (call) => { arity(call, 1, 64); return `(${call.args.join(' || ')})`; }],
  // Numbers
  ['abs', same('abs', 1)],
  ['round', same('round', 1, 2)],
  ['floor', same('floor', 1)],
  ['ceil', same('ceil', 1)],
  ['mod', same('mod', 2)],
  ['sqrt', same('sqrt', 1)],
  ['pow', same('pow', 2)],
  ['safe_divide', (call) => { arity(call, 2); return `(CASE WHEN ${call.args[1]} = 0 THEN NULL ELSE ${call.args[0]} / ${call.args[1]} END)`; }],
  // Arrays
  ['array_length', same('len', 1)],
  // Time: TIMESTAMP is DuckDB TIMESTAMPTZ in a UTC session; DATETIME is DuckDB TIMESTAMP.
  ['current_timestamp', (call) => { arity(call, 0); return call.now(); }],
  ['timestamp_trunc', truncate],
  ['datetime_trunc', truncate],
  ['timestamp_sub', shift('-')],
  ['timestamp_add', shift('+')],
  ['datetime_sub', shift('-')],
  ['datetime_add', shift('+')],
  ['timestamp', (call) => { arity(call, 1); return `CAST(${call.args[0]} AS TIMESTAMPTZ)`; }],
  ['datetime', (call) => { arity(call, 1, 2); return `timezone(${call.args[1] ?? `'UTC'`}, CAST(${call.args[0]} AS TIMESTAMPTZ))`; }],
  ['date', (call) => { arity(call, 1); return `CAST(${call.args[0]} AS DATE)`; }],
  ['unix_micros', same('epoch_us', 1)],
  ['unix_millis', same('epoch_ms', 1)],
  ['unix_seconds', (call) => { arity(call, 1); return `CAST(floor(epoch(${call.args[0]})) AS BIGINT)`; }],
  ['timestamp_micros', (call) => { arity(call, 1); return `CAST(make_timestamp(CAST(${call.args[0]} AS BIGINT)) AS TIMESTAMPTZ)`; }],
  ['timestamp_millis', (call) => { arity(call, 1); return `CAST(make_timestamp(CAST(${call.args[0]} AS BIGINT) * 1000) AS TIMESTAMPTZ)`; }],
  ['timestamp_seconds', (call) => { arity(call, 1); return `CAST(make_timestamp(CAST(${call.args[0]} AS BIGINT) * 1000000) AS TIMESTAMPTZ)`; }],
  ['format_timestamp', formatTimestamp],
]);

/** Aggregates the parser writes as `aggr_func` nodes, by their BigQuery name. */
export const AGGREGATES: ReadonlyMap<string, string> = new Map([
  ['count', 'count'],
  ['sum', 'sum'],
  ['avg', 'avg'],
  ['min', 'min'],
  ['max', 'max'],
  ['any_value', 'any_value'],
  ['array_agg', 'array_agg'],
]);

/** Window-only functions. */
export const WINDOW_FUNCTIONS: ReadonlyMap<string, string> = new Map([
  ['row_number', 'row_number'],
  ['rank', 'rank'],
  ['dense_rank', 'dense_rank'],
  ['lag', 'lag'],
  ['lead', 'lead'],
]);

/** Every function a sandbox query may call: exactly what the translator supports. */
export const SANDBOX_FUNCTIONS: ReadonlySet<string> = new Set(['exists', ...FUNCTIONS.keys(), ...AGGREGATES.keys(), ...WINDOW_FUNCTIONS.keys()]);
