/**
 * Array functions: BigQuery's offsets from 0 (DuckDB's lists count from 1), NULL for a NULL array,
 * errors for an empty array where BigQuery raises one, and the generated arrays' steps and sizes
 * checked (output-bounds.ts).
 */
import { repeatable } from '../dialects/duckdb/semantics.js';
import type { Expr } from '../parse/tree.js';
import { coerced, fail, literalValue, nullIfNull } from './arguments.js';
import { MANY, same, scalar, type CallContext, type FunctionSpec } from './call.js';
import { boundedSeries } from './output-bounds.js';

function arrayConcat(call: CallContext): string {
  const arrays = call.args.map((array) => repeatable(array, call.refuse));
  if (arrays.length === 1) return arrays[0]!;
  return `(CASE WHEN ${arrays.map((array) => `${array} IS NULL`).join(' OR ')} THEN NULL ELSE list_concat(${arrays.join(', ')}) END)`;
}

function arrayToString(call: CallContext): string {
  // DuckDB joins without a NULL delimiter and skips NULL elements for a NULL null_text.
  const { args: [array, delimiter, nullText], wrap } = nullIfNull(call, [1, 2]);
  // DuckDB's array_to_string is NULL for an array of NULLs only; BigQuery's is ''.
  if (nullText === undefined) return wrap(`array_to_string(list_filter(${array}, __element -> __element IS NOT NULL), ${delimiter})`);
  return wrap(`array_to_string(list_transform(${array}, __element -> coalesce(__element, ${nullText})), ${delimiter})`);
}

/** A step of 0 is an error in BigQuery; DuckDB would give an empty array. */
function checkedStep(call: CallContext, step: Expr | undefined, value: string, series: string, duckType: string): string {
  if (step === undefined || (step.kind === 'literal' && Number(step.value) !== 0)) return series;
  return `(CASE WHEN ${repeatable(value, call.refuse)} = 0 THEN ${fail(call, `${call.name.toUpperCase()} step cannot be 0`, duckType)} ELSE ${series} END)`;
}

function generateArray(call: CallContext): string {
  if (call.argNodes.some((node) => call.typeOf(node) === 'float64' || call.typeOf(node) === 'numeric')) return call.refuse('GENERATE_ARRAY of FLOAT64 or NUMERIC values');
  const [start, end, step] = call.args.map((arg) => repeatable(arg, call.refuse)) as [string, string, string | undefined];
  // In DOUBLE: the difference of two INT64s can overflow one.
  const steps = `((CAST(${end} AS DOUBLE) - CAST(${start} AS DOUBLE)) / CAST(${step ?? '1'} AS DOUBLE))`;
  const [from, to, by] = [0, 1, 2].map((index) => literalValue(call, index) ?? (index === 2 && step === undefined ? '1' : undefined));
  const known = typeof from === 'string' && typeof to === 'string' && typeof by === 'string' && Number(by) !== 0 ? (Number(to) - Number(from)) / Number(by) : undefined;
  const series = boundedSeries(call, steps, `generate_series(${start}, ${end}, ${step ?? '1'})`, 'BIGINT[]', known);
  return checkedStep(call, call.argNodes[2], step ?? '1', series, 'BIGINT[]');
}

/**
 * How many steps of `step` (an INTERVAL) lie from `start` to `end`, both TIMESTAMPs: a month counts
 * as long as the step from `start` is. Microseconds, each in DOUBLE before they are subtracted
 * (exact to a quarter of one for BigQuery's years; seconds since 1970 in DOUBLE are not).
 */
function intervalSteps(start: string, end: string, step: string): string {
  // Cast: a NULL argument would leave DuckDB no epoch_us to pick.
  const micros = (timestamp: string) => `CAST(epoch_us(CAST(${timestamp} AS TIMESTAMPTZ)) AS DOUBLE)`;
  return `((${micros(end)} - ${micros(start)}) / (${micros(`${start} + ${step}`)} - ${micros(start)}))`;
}

/** An INTERVAL argument (1 DAY when absent) and the number it steps by. */
function intervalStep(call: CallContext, index: number): { sql: string; value?: Expr; number: string } {
  const node = call.argNodes[index];
  if (node === undefined) return { sql: `INTERVAL 1 DAY`, number: '1' };
  if (node.kind !== 'interval') return call.invalid(`${call.name.toUpperCase()} takes an INTERVAL as its step`);
  return { sql: call.args[index]!, value: node.value, number: call.print(node.value) };
}

function generateTimestampArray(call: CallContext): string {
  const step = intervalStep(call, 2);
  const [start, end] = [coerced(call, 0, 'TIMESTAMPTZ'), coerced(call, 1, 'TIMESTAMPTZ')].map((sql) => repeatable(sql, call.refuse)) as [string, string];
  const series = boundedSeries(call, intervalSteps(start, end, step.sql), `generate_series(${start}, ${end}, ${step.sql})`, 'TIMESTAMPTZ[]');
  return checkedStep(call, step.value, step.number, series, 'TIMESTAMPTZ[]');
}

function generateDateArray(call: CallContext): string {
  const step = intervalStep(call, 2);
  const [start, end] = [`CAST(${call.args[0]} AS DATE)`, `CAST(${call.args[1]} AS DATE)`].map((sql) => repeatable(sql, call.refuse)) as [string, string];
  const steps = intervalSteps(start, end, step.sql);
  const series = boundedSeries(call, steps, `list_transform(generate_series(${start}, ${end}, ${step.sql}), __day -> CAST(__day AS DATE))`, 'DATE[]');
  return checkedStep(call, step.value, step.number, series, 'DATE[]');
}

/** ARRAY_FIRST and ARRAY_LAST: an empty array is an error. */
function arrayEnd(last: boolean): (call: CallContext) => string {
  return (call) => {
    const array = repeatable(call.args[0]!, call.refuse);
    // The error is typed as an element (an index into the array), so the CASE keeps the element's type.
    return `(CASE WHEN len(${array}) = 0 THEN ${array}[${fail(call, `${call.name.toUpperCase()} of an empty array`)}] ELSE ${array}[${last ? '-1' : '1'}] END)`;
  };
}

/**
 * ARRAY_SLICE: the elements from one offset to another, both inclusive and from 0, negative ones
 * counted from the end; the start is raised to the first element and the end lowered to the last.
 */
function arraySlice(call: CallContext): string {
  const array = repeatable(call.args[0]!, call.refuse);
  const [start, end] = [call.args[1]!, call.args[2]!].map((offset) => repeatable(offset, call.refuse)) as [string, string];
  const from = (offset: string) => `(CASE WHEN ${offset} < 0 THEN len(${array}) + ${offset} ELSE ${offset} END)`;
  // An end before the first element is an empty slice: kept at 0, since DuckDB reads a negative end from the back.
  return `(CASE WHEN ${start} IS NULL OR ${end} IS NULL THEN NULL ELSE list_slice(${array}, greatest(${from(start)}, 0) + 1, greatest(least(${from(end)}, len(${array}) - 1), -1) + 1) END)`;
}

export const ARRAY_FUNCTIONS: ReadonlyMap<string, FunctionSpec> = new Map<string, FunctionSpec>([
  ['array_length', scalar('elements in an array', [1, 1], same('len'), { returns: 'int64' })],
  ['array_concat', scalar('the arrays joined; NULL if any is NULL', [1, MANY], arrayConcat)],
  ['array_to_string', scalar('the elements joined with a delimiter; NULL elements skipped, or written as the third argument', [2, 3], arrayToString, { returns: 'string' })],
  ['array_reverse', scalar('the elements in reverse order', [1, 1], same('list_reverse'))],
  ['generate_array', scalar('INT64 values from start to end (inclusive) by a step (1 by default; an error if 0)', [2, 3], generateArray)],
  ['generate_timestamp_array', scalar('TIMESTAMPs from start to end (inclusive) by an INTERVAL (an error if 0)', [3, 3], generateTimestampArray)],
  ['generate_date_array', scalar('DATEs from start to end (inclusive) by an INTERVAL (1 DAY by default)', [2, 3], generateDateArray)],
  ['array_first', scalar('the first element (an error for an empty array)', [1, 1], arrayEnd(false))],
  ['array_last', scalar('the last element (an error for an empty array)', [1, 1], arrayEnd(true))],
  ['array_slice', scalar('the elements between two offsets from 0, both included (negative ones from the end)', [3, 3], arraySlice)],
]);
