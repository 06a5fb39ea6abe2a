/**
 * RANGE<DATE | DATETIME | TIMESTAMP> and its functions. On DuckDB a range is a
 * STRUCT("start" T, "end" T) whose unbounded start is T's -infinity and unbounded end its
 * infinity: no field is ever NULL, so DuckDB's own STRUCT equality, ordering, grouping and
 * DISTINCT are GoogleSQL's for ranges (by start, then end; an unbounded start before every
 * value, an unbounded end after), and a NULL range is a NULL STRUCT. The wire writes an infinite
 * bound as null (backends/duckdb/values.ts): BigQuery has no infinite DATE or TIMESTAMP, so
 * none is anything else. RANGE_SESSIONIZE (a table function) and GENERATE_RANGE_ARRAY stay
 * refused (refused.ts).
 */
import { repeatable, unless } from '../dialects/duckdb/semantics.js';
import type { Expr } from '../parse/tree.js';
import { scalar, type CallContext, type FunctionSpec } from './call.js';

/** A range's bound, as DuckDB holds it. */
function bound(range: string, name: 'start' | 'end'): string {
  return `struct_extract(${range}, '${name}')`;
}

/** Whether the query's text makes `node` a RANGE (a RANGE literal or call, a CAST to RANGE, RANGE_INTERSECT). */
export function isRangeExpr(node: Expr): boolean {
  if (node.kind === 'cast') return node.type.name === 'RANGE';
  return node.kind === 'call' && (node.name === 'range' || node.name === 'range_intersect') && node.over === undefined;
}

/** The element type's NULL typed as the other bound, so `RANGE(DATE '2020-01-01', NULL)` holds DATEs. */
function typedBound(call: CallContext, index: number): string {
  const node = call.argNodes[index]!;
  if (node.kind !== 'literal' || node.type !== 'null') return call.args[index]!;
  return `(CASE WHEN false THEN ${call.args[1 - index]} END)`;
}

/** A NULL the query writes as a bound (`NULL`, `CAST(NULL AS DATE)`, a literal's UNBOUNDED). */
function isNullBound(node: Expr): boolean {
  if (node.kind === 'cast') return isNullBound(node.operand);
  return node.kind === 'literal' && node.type === 'null';
}

/** RANGE(start, end): an error unless start < end; a NULL bound is unbounded. */
function range(call: CallContext): string {
  const nulls = call.argNodes.filter((node) => node.kind === 'literal' && node.type === 'null').length;
  if (nulls === 2) call.invalid('RANGE(NULL, NULL) has no element type (write CAST(NULL AS DATE) for one bound)');
  const start = repeatable(typedBound(call, 0), call.refuse);
  const end = repeatable(typedBound(call, 1), call.refuse);
  const value = `struct_pack("start" := coalesce(${start}, '-infinity'), "end" := coalesce(${end}, 'infinity'))`;
  // An unbounded bound (a literal's UNBOUNDED) makes start < end whatever the other: nothing to check.
  if (call.argNodes.some(isNullBound)) return value;
  return unless(`${start} >= ${end}`, 'Range start element must be smaller than range end element', value);
}

/** RANGE_CONTAINS(outer, inner range | value): the inner range within the outer, or the value in [start, end). */
function contains(call: CallContext): string {
  const outer = repeatable(call.args[0]!, call.refuse);
  const inner = repeatable(call.args[1]!, call.refuse);
  const node = call.argNodes[1]!;
  if (isRangeExpr(node)) return `(${bound(outer, 'start')} <= ${bound(inner, 'start')} AND ${bound(inner, 'end')} <= ${bound(outer, 'end')})`;
  const type = call.typeOf(node);
  if (type !== undefined && type !== 'date' && type !== 'datetime' && type !== 'timestamp') call.invalid(`RANGE_CONTAINS of a RANGE and a ${type.toUpperCase()}`);
  // A column the query does not type is taken as a value: a RANGE column there fails to bind
  // (DuckDB compares no DATE with a STRUCT), an error, never another answer.
  return `(${bound(outer, 'start')} <= ${inner} AND ${inner} < ${bound(outer, 'end')})`;
}

function overlaps(a: string, b: string): string {
  return `(${bound(a, 'start')} < ${bound(b, 'end')} AND ${bound(b, 'start')} < ${bound(a, 'end')})`;
}

/** RANGE_INTERSECT: the common part of two ranges, an error where they do not overlap. */
function intersect(call: CallContext): string {
  const a = repeatable(call.args[0]!, call.refuse);
  const b = repeatable(call.args[1]!, call.refuse);
  const value = `struct_pack("start" := greatest(${bound(a, 'start')}, ${bound(b, 'start')}), "end" := least(${bound(a, 'end')}, ${bound(b, 'end')}))`;
  return `(CASE WHEN ${a} IS NULL OR ${b} IS NULL THEN NULL ELSE ${unless(`NOT ${overlaps(a, b)}`, 'Provided RANGE inputs do not overlap', value)} END)`;
}

export const RANGE_FUNCTIONS: ReadonlyMap<string, FunctionSpec> = new Map<string, FunctionSpec>([
  ['range', scalar('a RANGE of DATE, DATETIME or TIMESTAMP from its start (inclusive) and end (exclusive), NULL for unbounded; an error unless start < end', [2, 2], range)],
  ['range_start', scalar('a RANGE\'s start, NULL if unbounded', [1, 1], (call) => `nullif(${bound(call.args[0]!, 'start')}, '-infinity')`)],
  ['range_end', scalar('a RANGE\'s end, NULL if unbounded', [1, 1], (call) => `nullif(${bound(call.args[0]!, 'end')}, 'infinity')`)],
  ['range_contains', scalar('whether a RANGE holds a value, or all of another RANGE', [2, 2], contains, { returns: 'bool' })],
  ['range_overlaps', scalar('whether two RANGEs share a value', [2, 2], (call) => overlaps(repeatable(call.args[0]!, call.refuse), repeatable(call.args[1]!, call.refuse)), { returns: 'bool' })],
  ['range_intersect', scalar('the RANGE two RANGEs share; an error if they do not overlap', [2, 2], intersect)],
]);
