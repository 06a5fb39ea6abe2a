/**
 * Bounds on the values one call builds (REPEAT, LPAD, RPAD, GENERATE_*_ARRAY), checked in the SQL
 * before the value is built, so DuckDB raises the function's error rather than allocating it:
 * `generate_array(1, 1000000000)` took the server to 23 GB and the kernel killed it, and a 3 GB
 * REPEAT took it down on its way into JavaScript. DuckDB builds these values outside its
 * memory_limit, so no other bound stops them.
 *
 * Where every argument is the same on every row (literals, parameters: DuckDB computes the call
 * once), the bound is BigQuery's own. Where an argument varies by row, DuckDB builds the values of
 * a vector of 2,048 rows at once: BigQuery's bound would let one vector take 2 GiB (strings) or 16
 * GiB (arrays), so cannery's is smaller, about 256 MiB a vector.
 */
import type { Expr } from '../parse/tree.js';
import { fail } from './arguments.js';
import type { CallContext } from './call.js';

/** BigQuery's: "Output of REPEAT exceeds max allowed output size of 1MB", and LPAD/RPAD's. */
export const MAX_OUTPUT_BYTES = 1 << 20;
/** BigQuery's: a longer GENERATE_ARRAY "produced too many elements". */
export const MAX_GENERATED_ELEMENTS = 1 << 20;
/** Cannery's, where an argument varies by row: 2,048 values of it are 256 MiB. */
export const MAX_ROW_OUTPUT_BYTES = 128 << 10;
/** Cannery's, where an argument varies by row: 2,048 arrays of 8-byte elements are 256 MiB. */
export const MAX_ROW_GENERATED_ELEMENTS = 16 << 10;

/** Conversions DuckDB folds like the literal they convert. */
/**
 * The errors above, as the embedded engine reports them (inside its cast's "Could not convert
 * string '...'"): what a backend reads to tell a bound passed (resources_exceeded, as the host
 * functions' bounds) from a query that failed.
 */
export const OUTPUT_BOUND_ERROR = /Could not convert string '((?:Output of [A-Z_]+ exceeds max allowed output size|[A-Z_]+ produced too many elements) \(.*\))' to [A-Z]/;

const FOLDED_CALLS = new Set(['timestamp', 'date', 'datetime', 'time']);

/** An expression DuckDB computes once for the whole query: literals, parameters and what is made of them alone. */
export function sameOnEveryRow(node: Expr): boolean {
  switch (node.kind) {
    case 'literal':
    case 'param':
      return true;
    case 'interval':
      return sameOnEveryRow(node.value);
    case 'cast':
      return sameOnEveryRow(node.operand) && (node.timeZone === undefined || sameOnEveryRow(node.timeZone));
    case 'unary':
      return sameOnEveryRow(node.operand);
    case 'binary':
      return sameOnEveryRow(node.left) && sameOnEveryRow(node.right);
    case 'call':
      return FOLDED_CALLS.has(node.name) && node.args.every(sameOnEveryRow);
    default:
      return false;
  }
}

function grouped(count: number): string {
  return count.toLocaleString('en-US');
}

/** The bound that applies to `call`, and the words that name it in its error. */
function boundFor(call: CallContext, bigQuery: number, perRow: number, unit: string): { bound: number; named: string; ours: boolean } {
  if (call.argNodes.every(sameOnEveryRow)) return { bound: bigQuery, named: `${grouped(bigQuery)} ${unit}, BigQuery's limit`, ours: false };
  return {
    bound: perRow,
    named: `${grouped(perRow)} ${unit} where an argument varies by row, cannery's limit: DuckDB builds 2,048 rows' values at once`,
    ours: true,
  };
}

/**
 * The error of a bound passed. BigQuery's own bound is the function's error, which SAFE. makes
 * NULL as BigQuery does. cannery's lower per-row bound is not BigQuery's: there the value would be
 * built, and under SAFE. (DuckDB's TRY, which turns any error within it into NULL) the error would
 * become a NULL BigQuery does not answer, so such a call is refused by name instead.
 */
function boundError(call: CallContext, ours: boolean, message: string, duckType?: string): string {
  if (ours && call.safe) {
    call.refuse(`SAFE.${call.name.toUpperCase()} with an argument that varies by row (its bound there is cannery's, lower than BigQuery's, and SAFE. would answer NULL where BigQuery answers the value); call it without SAFE.`);
  }
  return fail(call, message, duckType);
}

/**
 * The call's count or length argument `count`, or the call's error where `bytes` (SQL: what the
 * call would build) is over the bound: the check sits in the argument, an INT64 either way, so it
 * holds whatever type the value has (a NULL's is DuckDB's to pick). `known`, the size when the
 * literals written say it, within the bound needs no check.
 */
export function boundedCount(call: CallContext, bytes: string, count: string, known?: number): string {
  if (known !== undefined && known <= MAX_OUTPUT_BYTES) return count;
  const { bound, named, ours } = boundFor(call, MAX_OUTPUT_BYTES, MAX_ROW_OUTPUT_BYTES, 'bytes');
  const message = `Output of ${call.name.toUpperCase()} exceeds max allowed output size (${named})`;
  return `(CASE WHEN ${bytes} > ${bound} THEN ${boundError(call, ours, message)} ELSE ${count} END)`;
}

/** `series`, or the call's error where `count` (SQL: the elements it would hold, less one) reaches the bound; `known` as boundedOutput's. */
export function boundedSeries(call: CallContext, count: string, series: string, duckType: string, known?: number): string {
  if (known !== undefined && known < MAX_GENERATED_ELEMENTS) return series;
  const { bound, named, ours } = boundFor(call, MAX_GENERATED_ELEMENTS, MAX_ROW_GENERATED_ELEMENTS, 'elements');
  const message = `${call.name.toUpperCase()} produced too many elements (more than ${named})`;
  return `(CASE WHEN ${count} >= ${bound} THEN ${boundError(call, ours, message, duckType)} ELSE ${series} END)`;
}
