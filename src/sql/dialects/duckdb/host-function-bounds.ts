/**
 * How much work a host function (host-functions.ts) may do in one call, measured from its
 * arguments before it starts. DuckDB calls a host function with a block of up to 2,048 rows and
 * waits, and the function runs on the service's event loop: nothing else is answered (not
 * `/health`, not the timer of the query's own timeout) until the block is done. So every block is
 * bounded before it is computed, by what its rows hold: past the bound the query fails, naming the
 * BigQuery function and the bound, and nothing of the block is computed.
 *
 * Each bound is about half a second to a second of the function's worst work on the 2-core
 * machine the figures of docs/benchmarks.md come from: JSON about 25 ns a character of a log
 * line's object but about 1 µs a value of an array of small numbers or objects, so JSON text is
 * measured as its characters plus STRUCTURAL_WEIGHT for each `{`, `[`, `,` and `:` (25 to 35 ns a
 * unit either way); INITCAP or NORMALIZE about 60 ns a character, a cell of the edit distance's
 * table about 30 ns, a comparison of INSTR's search about 4 ns. Blocks of ordinary log rows (a
 * 2 KB object each) pass far within them. BigQuery documents no bound on the lengths of
 * EDIT_DISTANCE's or INSTR's arguments; FORMAT's bound on its output is ZetaSQL's 1 MiB.
 */
import type { HostFunctionName } from './host-functions.js';

/** A value a host function takes (host-functions/register.ts converts DuckDB's to these). */
export type HostArgument = string | bigint | boolean | number | Uint8Array | null | readonly HostArgument[];

/** How a function's work grows with its arguments, and how much of it one block may take. */
export interface Work {
  /**
   * 'length': with the characters (bytes, elements) of its arguments; 'json': the same, each of
   * JSON's structural characters weighing STRUCTURAL_WEIGHT; 'product': with the first two's
   * lengths multiplied.
   */
  readonly grows: 'length' | 'json' | 'product';
  /** The most one block of rows may measure. */
  readonly bound: number;
}

/** JavaScript's own string and byte work (case mapping of ASCII, hashing, an address's bytes). */
const NATIVE: Work = { grows: 'length', bound: 16_000_000 };
/** Work a character at a time in JavaScript (INITCAP, NORMALIZE, FORMAT, CAST ... FORMAT of a number, base32). */
const TEXT: Work = { grows: 'length', bound: 8_000_000 };
/** Reading and writing JSON values: a character at a time, and a value at a time. */
const JSON_WORK: Work = { grows: 'json', bound: 32_000_000 };

/** What one of JSON's `{`, `[`, `,` and `:` weighs against a character: a value costs some 40 characters' work. */
export const STRUCTURAL_WEIGHT = 40;
/** A table of one cell per pair of characters (the Levenshtein distance). */
const TABLE: Work = { grows: 'product', bound: 16_000_000 };
/** A search that may compare every position of the text with the whole needle (INSTR). */
const SEARCH: Work = { grows: 'product', bound: 100_000_000 };
/** A regular expression's match, which RE2 bounds by the text's length times the pattern's. */
const REGEX: Work = { grows: 'product', bound: 25_000_000 };

/** The largest text FORMAT writes for one row: ZetaSQL's bound on its output, 1 MiB. */
export const FORMAT_OUTPUT_BOUND = 1 << 20;
/** The most text JSON_KEYS writes for one value: its paths repeat each parent's, so deep nesting would square it. */
export const JSON_KEYS_OUTPUT_BOUND = 1 << 20;

export interface HostFunctionBound {
  /** The function as the caller wrote it. */
  readonly called: string;
  readonly work: Work;
}

export const HOST_FUNCTION_BOUNDS: { readonly [K in HostFunctionName]: HostFunctionBound } = {
  lower: { called: 'LOWER', work: NATIVE },
  upper: { called: 'UPPER', work: NATIVE },
  initcap: { called: 'INITCAP', work: TEXT },
  initcap_default: { called: 'INITCAP', work: TEXT },
  normalize: { called: 'NORMALIZE', work: TEXT },
  soundex: { called: 'SOUNDEX', work: TEXT },
  translate: { called: 'TRANSLATE', work: TEXT },
  instr: { called: 'INSTR', work: SEARCH },
  instr_bytes: { called: 'INSTR', work: SEARCH },
  edit_distance: { called: 'EDIT_DISTANCE', work: TABLE },
  edit_distance_bytes: { called: 'EDIT_DISTANCE', work: TABLE },
  regexp_instr: { called: 'REGEXP_INSTR', work: REGEX },
  safe_convert_bytes: { called: 'SAFE_CONVERT_BYTES_TO_STRING', work: TEXT },
  to_base32: { called: 'TO_BASE32', work: TEXT },
  from_base32: { called: 'FROM_BASE32', work: TEXT },
  sha512: { called: 'SHA512', work: NATIVE },
  farm_fingerprint: { called: 'FARM_FINGERPRINT', work: NATIVE },
  format: { called: 'FORMAT', work: TEXT },
  contains_substr: { called: 'CONTAINS_SUBSTR', work: TEXT },
  json_parse: { called: 'PARSE_JSON', work: JSON_WORK },
  to_json: { called: 'TO_JSON', work: JSON_WORK },
  json_query: { called: 'JSON_QUERY', work: JSON_WORK },
  json_value: { called: 'JSON_VALUE', work: JSON_WORK },
  json_query_array: { called: 'JSON_QUERY_ARRAY', work: JSON_WORK },
  json_value_array: { called: 'JSON_VALUE_ARRAY', work: JSON_WORK },
  json_type: { called: 'JSON_TYPE', work: JSON_WORK },
  json_bool: { called: 'BOOL', work: JSON_WORK },
  json_int64: { called: 'INT64', work: JSON_WORK },
  json_float64: { called: 'FLOAT64', work: JSON_WORK },
  json_string: { called: 'STRING', work: JSON_WORK },
  lax_bool: { called: 'LAX_BOOL', work: JSON_WORK },
  lax_int64: { called: 'LAX_INT64', work: JSON_WORK },
  lax_float64: { called: 'LAX_FLOAT64', work: JSON_WORK },
  lax_string: { called: 'LAX_STRING', work: JSON_WORK },
  json_array: { called: 'JSON_ARRAY', work: JSON_WORK },
  json_object: { called: 'JSON_OBJECT', work: JSON_WORK },
  json_set: { called: 'JSON_SET', work: JSON_WORK },
  json_remove: { called: 'JSON_REMOVE', work: JSON_WORK },
  json_array_add: { called: 'JSON_ARRAY_APPEND (or JSON_ARRAY_INSERT)', work: JSON_WORK },
  json_strip_nulls: { called: 'JSON_STRIP_NULLS', work: JSON_WORK },
  json_keys: { called: 'JSON_KEYS', work: JSON_WORK },
  json_flatten: { called: 'JSON_FLATTEN', work: JSON_WORK },
  ip_from_string: { called: 'NET.IP_FROM_STRING', work: NATIVE },
  ip_to_string: { called: 'NET.IP_TO_STRING', work: NATIVE },
  ipv4_from_int64: { called: 'NET.IPV4_FROM_INT64', work: NATIVE },
  ipv4_to_int64: { called: 'NET.IPV4_TO_INT64', work: NATIVE },
  ip_net_mask: { called: 'NET.IP_NET_MASK', work: NATIVE },
  ip_trunc: { called: 'NET.IP_TRUNC', work: NATIVE },
  parse_numeric: { called: 'PARSE_NUMERIC', work: NATIVE },
  cast_format_decimal: { called: 'CAST', work: TEXT },
  cast_format_float: { called: 'CAST', work: TEXT },
  parse_bignumeric: { called: 'PARSE_BIGNUMERIC', work: NATIVE },
  bignumeric_multiply: { called: 'the operator * of BIGNUMERIC', work: NATIVE },
  bignumeric_divide: { called: 'the operator / of BIGNUMERIC (or AVG)', work: NATIVE },
  bignumeric_div: { called: 'DIV', work: NATIVE },
  bignumeric_mod: { called: 'MOD', work: NATIVE },
  bignumeric_round: { called: 'ROUND (or TRUNC, CEIL, FLOOR)', work: NATIVE },
  bignumeric_of_double: { called: 'CAST', work: NATIVE },
};

/**
 * The longest the functions of one query may hold the event loop with no turn between their
 * blocks (host-functions/watch.ts). With several DuckDB threads over a table of several row
 * groups, the threads' blocks follow one another with no turn at all until the query ends (the
 * 1M seed's INITCAP: `/health` unanswered for 25 s), and this bound ends the query. With one
 * thread the loop mostly turns after each block, but not always: measured 2026-11-29 on a loaded
 * machine, 71 of 388 blocks of `serve` followed the one before with no turn (two in a row at
 * most), and in a test's process three blocks held it 156 ms (docs/benchmarks.md). So a query is
 * refused only past both this time and HELD_LOOP_BLOCKS blocks, and the time is well above what
 * one thread was seen to hold; checked as a block starts, the loop is held at most about this plus
 * one block, or three blocks (each bounded above: a block of 2 KB log lines through INITCAP is
 * about a quarter of a second).
 */
export const HELD_LOOP_BOUND_MS = 400;
/** Blocks with no turn between them: one DuckDB thread's chance pairs are never refused by time alone. */
export const HELD_LOOP_BLOCKS = 3;

/** The refusal of a block that would hold the loop past HELD_LOOP_BOUND_MS, in the caller's terms. */
export function heldLoopError(name: HostFunctionName, heldMs: number): HostBoundError {
  const { called } = HOST_FUNCTION_BOUNDS[name];
  return new HostBoundError(
    `${called} on the embedded engine runs in JavaScript, on the thread that answers every request, and takes at most ${number(HELD_LOOP_BOUND_MS)} ms of it with no pause; over this many rows its work held it ${number(Math.round(heldMs))} ms and would hold the service until the query ends: call it on fewer rows (filter or limit them first)`,
  );
}

/** A bound passed: the query fails with this message, whatever SAFE. would make of an error. */
export class HostBoundError extends Error {}

/** Characters, bytes or elements: a list's elements each count, and what they hold. */
export function lengthOf(value: HostArgument): number {
  if (typeof value === 'string' || value instanceof Uint8Array) return value.length;
  if (Array.isArray(value)) return value.reduce((total: number, item: HostArgument) => total + 1 + lengthOf(item), 0);
  return 1;
}

/** A JSON text's characters, each structural one weighing STRUCTURAL_WEIGHT. */
export function jsonSizeOf(value: HostArgument): number {
  if (typeof value !== 'string') return Array.isArray(value) ? value.reduce((total: number, item: HostArgument) => total + 1 + jsonSizeOf(item), 0) : lengthOf(value);
  let structural = 0;
  for (let index = 0; index < value.length; index++) {
    const code = value.charCodeAt(index);
    // { [ , :
    if (code === 123 || code === 91 || code === 44 || code === 58) structural++;
  }
  return value.length + structural * (STRUCTURAL_WEIGHT - 1);
}

/** What one row's call measures, before it runs. */
export function measure(work: Work, args: readonly HostArgument[]): number {
  if (work.grows === 'json') return args.reduce((sum: number, arg) => sum + jsonSizeOf(arg), 0);
  const total = args.reduce((sum: number, arg) => sum + lengthOf(arg), 0);
  if (work.grows === 'length') return total;
  // The lengths as the function walks them (every position of the text, for an empty needle too),
  // and the arguments it reads besides.
  return Math.max(lengthOf(args[0] ?? null), 1) * Math.max(lengthOf(args[1] ?? null), 1) + total;
}

const number = (value: number) => value.toLocaleString('en-US');

/** The refusal of a block whose rows measure `measured`, in the caller's terms. */
export function boundError(name: HostFunctionName, measured: number): HostBoundError {
  const { called, work } = HOST_FUNCTION_BOUNDS[name];
  const what =
    work.grows === 'product'
      ? `its arguments' lengths multiplied (${number(measured)}, summed over the rows it computes at once, up to 2,048)`
      : work.grows === 'json'
        ? `its arguments' size (${number(measured)}: characters, each of { [ , : counting ${STRUCTURAL_WEIGHT}, over the rows it computes at once, up to 2,048)`
        : `its arguments' characters (${number(measured)}, over the rows it computes at once, up to 2,048)`;
  return new HostBoundError(`${called} on the embedded engine takes at most ${number(work.bound)} of ${what}; pass it shorter values or fewer rows`);
}

/** Work counted a block at a time: `add` throws the function's refusal once the block passes its bound. */
export function blockMeter(name: HostFunctionName): { add(units: number): void } {
  const { bound } = HOST_FUNCTION_BOUNDS[name].work;
  let spent = 0;
  return {
    add(units) {
      spent += units;
      if (spent > bound) throw boundError(name, spent);
    },
  };
}

/** A function's output past `bound` characters, refused before it is written. */
export function checkOutput(called: string, what: string, length: number, bound: number): void {
  if (length > bound) throw new HostBoundError(`${called} on the embedded engine writes at most ${number(bound)} characters ${what}; this one would write ${number(length)}`);
}
