/**
 * What a row of the language table is: a function's kind, arity, result type, BigQuery meaning
 * and each dialect's rendering, and what a rendering is given (its arguments written in the
 * dialect, their trees, their types where the query says them). The family modules of this folder
 * and language.ts build their rows with the constructors here.
 */
import type { ResultType, StaticType } from '../analyse/static-type.js';
import type { SqlLocation } from '../parse/errors.js';
import type { Expr } from '../parse/tree.js';

export type DialectName = 'bigquery' | 'duckdb';

/** What a function's rendering gets: its arguments already written in the dialect. */
export interface CallContext {
  /** The BigQuery name, lower case, without a `SAFE.` prefix. */
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
  /** Where the call starts in the query's text, when the parser said. */
  loc?: SqlLocation | undefined;
  /** Named arguments (`max_distance => 2`), by lower-case name, as trees and written in the dialect. */
  named: Readonly<Record<string, { node: Expr; sql: string }>>;
  /** At each date-part position, the validated part (lower case, `week(monday)`); elsewhere undefined. */
  parts: readonly (string | undefined)[];
  /** A bound parameter's placeholder (DuckDB binds the execution time). */
  parameter(name: string): string;
  /** The BigQuery type of an expression where the query text says it (a literal, a cast...). */
  typeOf(expr: Expr): StaticType | undefined;
  /** Any expression written in the dialect (a part of an argument, such as an INTERVAL's number). */
  print(expr: Expr): string;
  /** Refuses the call: what is not supported, for the one message of the generator. */
  refuse(what: string): never;
  /** Refuses a call BigQuery refuses as well (a bad JSONPath): the query's mistake, not a gap. */
  invalid(message: string): never;
  /** Called with `SAFE.`: an error the function raises itself is NULL instead. */
  safe: boolean;
  /** ` OVER (...)` of an analytic call, for a rendering that places it itself (`placesOver`). */
  over?: string | undefined;
}

export type Render = (call: CallContext) => string;

export type FunctionKind = 'scalar' | 'aggregate' | 'window';

/** The clauses an aggregate or analytic call may carry besides DISTINCT. */
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
  /** Names of the named arguments BigQuery accepts (`max_distance`), lower case. */
  named?: readonly string[];
  /** Positions of date-part keywords (`TIMESTAMP_TRUNC(ts, HOUR)`), and the parts allowed there. */
  dateParts?: readonly number[];
  parts?: readonly string[];
  /** The BigQuery type of the result, where it does not depend on the arguments' values. */
  returns?: ResultType;
  /** BigQuery's meaning in a line, for the docs. */
  summary: string;
  /** The rendering writes the call's OVER clause where it belongs (it is several calls): the generator does not append it. */
  placesOver?: boolean;
  render: { duckdb: Render; bigquery?: Render };
}

export interface ScalarExtras {
  dateParts?: readonly number[];
  parts?: readonly string[];
  bigquery?: Render;
  returns?: ResultType;
  named?: readonly string[];
}

export function scalar(summary: string, arity: readonly [number, number], duckdb: Render, extra: ScalarExtras = {}): FunctionSpec {
  const spec: FunctionSpec = { kind: 'scalar', arity, summary, render: extra.bigquery ? { duckdb, bigquery: extra.bigquery } : { duckdb } };
  if (extra.returns !== undefined) spec.returns = extra.returns;
  if (extra.named !== undefined) spec.named = extra.named;
  return extra.dateParts ? { ...spec, dateParts: extra.dateParts, parts: extra.parts ?? [] } : spec;
}

export function aggregate(summary: string, arity: readonly [number, number], duckdb: Render, returns?: ResultType, modifiers?: Modifiers): FunctionSpec {
  const spec: FunctionSpec = { kind: 'aggregate', arity, summary, render: { duckdb } };
  if (returns !== undefined) spec.returns = returns;
  if (modifiers !== undefined) spec.modifiers = modifiers;
  return spec;
}

export function analytic(summary: string, arity: readonly [number, number], duckdb: Render | string, returns?: ResultType, modifiers?: Modifiers): FunctionSpec {
  const spec: FunctionSpec = { kind: 'window', arity, summary, render: { duckdb: typeof duckdb === 'string' ? same(duckdb) : duckdb } };
  if (returns !== undefined) spec.returns = returns;
  if (modifiers !== undefined) spec.modifiers = modifiers;
  return spec;
}

/** A function whose DuckDB name and argument order match BigQuery's. */
export function same(duckName: string): Render {
  return (call) => `${duckName}(${call.distinct ? 'DISTINCT ' : ''}${call.args.join(', ')})`;
}

/** The most arguments a variadic function takes. */
export const MANY = 64;
/** A result of the type of the first (second) argument. */
export const FIRST = { sameAs: 0 } as const;
export const SECOND = { sameAs: 1 } as const;

