/**
 * What renderings read off their arguments (a literal's value, a string literal a function needs
 * at compile time, a date where BigQuery coerces a string) and the errors BigQuery raises for an
 * argument, raised on DuckDB too (NULL in a `SAFE.` call).
 */
import { raise, repeatable, unless } from '../dialects/duckdb/semantics.js';
import type { Expr } from '../parse/tree.js';
import type { CallContext } from './call.js';

/** The value of a literal argument (string, number or bool), or undefined for any other argument. */
export function literalValue(call: CallContext, index: number): string | boolean | null | undefined {
  const node = call.argNodes[index];
  return node?.kind === 'literal' ? node.value : undefined;
}

export function literalString(call: CallContext, index: number, what: string): string {
  const node = call.argNodes[index];
  if (node?.kind !== 'literal' || node.type !== 'string' || typeof node.value !== 'string') return call.refuse(`${call.name.toUpperCase()} with ${what} that is not a string literal`);
  return node.value;
}

export function literalCount(call: CallContext, index: number, what: string): number {
  const node = call.argNodes[index];
  if (node?.kind !== 'literal' || node.type !== 'int64' || typeof node.value !== 'string') return call.refuse(`${call.name.toUpperCase()} with ${what} that is not an integer literal`);
  const count = Number(node.value);
  if (count < 1 || count > 100_000) return call.invalid(`${call.name.toUpperCase()}'s ${what} must be between 1 and 100000, got ${node.value}`);
  return count;
}

/** A string literal where BigQuery wants a date or time: BigQuery coerces it, so the SQL says which type. */
export function coerced(call: CallContext, index: number, duckType: string): string {
  const node = call.argNodes[index];
  const sql = call.args[index]!;
  return node && call.typeOf(node) === 'string' ? `CAST(${sql} AS ${duckType})` : sql;
}

/**
 * The call with its arguments at `indexes` kept from being TIMESTAMPs, where a civil-time function
 * takes a DATETIME (DATETIME_ADD, FORMAT_DATETIME...): BigQuery coerces no TIMESTAMP to a DATETIME
 * ("No matching signature"), where DuckDB would take it. A TIMESTAMP the query says is that error at
 * compile time; a value it does not type raises it when DuckDB's constant typeof() says so.
 */
export function civilOnly(call: CallContext, indexes: readonly number[]): CallContext {
  const message = `No matching signature for function ${call.name.toUpperCase()} for argument types: TIMESTAMP (it takes a DATETIME; convert with DATETIME(timestamp, time_zone))`;
  const args = [...call.args];
  for (const index of indexes) {
    const node = call.argNodes[index];
    if (node === undefined || args[index] === undefined) continue;
    const known = call.typeOf(node);
    if (known === 'timestamp') return call.invalid(message);
    if (known === undefined) {
      const value = repeatable(args[index], call.refuse);
      args[index] = unless(`typeof(${value}) = 'TIMESTAMP WITH TIME ZONE'`, message, value);
    }
  }
  return { ...call, args };
}

/**
 * BigQuery's NULL for a NULL argument, where DuckDB's function goes on without it (SPLIT on a NULL
 * delimiter keeps the string whole): the arguments, those at `indexes` made safe to repeat, and a
 * wrapper giving NULL where any of those is NULL. A string literal there needs no test.
 */
export function nullIfNull(call: CallContext, indexes: readonly number[]): { args: (string | undefined)[]; wrap(sql: string): string } {
  const tested = indexes.filter((index) => call.args[index] !== undefined && typeof literalValue(call, index) !== 'string');
  const args = call.args.map((sql, index) => (tested.includes(index) ? repeatable(sql, call.refuse) : sql));
  const tests = tested.map((index) => `${args[index]} IS NULL`);
  return { args, wrap: (sql) => (tests.length ? `(CASE WHEN ${tests.join(' OR ')} THEN NULL ELSE ${sql} END)` : sql) };
}

/**
 * An error the function raises itself, as BigQuery does; NULL in a `SAFE.` call. (SAFE. also wraps
 * the call in DuckDB's TRY, for errors DuckDB raises, but DuckDB may compute a subexpression that
 * two calls share outside both TRYs, so the function's own errors are not left to TRY.)
 */
export function fail(call: { safe: boolean }, message: string, duckType = 'BIGINT'): string {
  return call.safe ? `CAST(NULL AS ${duckType})` : raise(message, duckType);
}

/** `value`, or the function's error where `condition` (SQL over the value) holds. */
export function failWhen(call: CallContext, condition: string, message: string, value: string, duckType = 'BIGINT'): string {
  return `(CASE WHEN ${condition} THEN ${fail(call, message, duckType)} ELSE ${value} END)`;
}

/** `divisor`, or an error where BigQuery raises one for a zero divisor (a literal other than 0 needs no check). */
export function nonZero(divisor: string, node: Expr | undefined, refuse: (what: string) => never, safe = false): string {
  if (node?.kind === 'literal' && (node.type === 'int64' || node.type === 'float64') && Number(node.value) !== 0) return divisor;
  const d = repeatable(divisor, refuse);
  return `(CASE WHEN ${d} = 0 THEN ${fail({ safe }, 'division by zero')} ELSE ${d} END)`;
}

/**
 * Argument `index` where a NUMERIC is not computed as BigQuery does (SAFE_DIVIDE and PERCENTILE_CONT
 * go through DuckDB's doubles): refused by name where the query says it is a NUMERIC, else an
 * error when it runs if it is one (DuckDB's `typeof()` is constant, so the check folds away).
 */
export function notNumeric(call: CallContext, index: number, sql: string, hint: string): string {
  const node = call.argNodes[index];
  const type = node === undefined ? undefined : call.typeOf(node);
  const what = `${call.name.toUpperCase()} of a NUMERIC value`;
  if (type === 'numeric') return call.refuse(`${what} (${hint})`);
  if (type !== undefined) return sql;
  const value = repeatable(sql, call.refuse);
  return unless(`typeof(${value}) = 'DECIMAL(38,9)'`, `${what} is not supported on the embedded engine (${hint})`, value);
}
