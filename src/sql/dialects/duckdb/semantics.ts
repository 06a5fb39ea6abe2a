/**
 * Pieces of DuckDB SQL that BigQuery's semantics need in many functions: an error raised where
 * BigQuery raises one, a choice by the value's type made at run time where the generator cannot
 * know it, and BigQuery's text forms of FLOAT64 and TIMESTAMP values.
 */
import type { StaticType } from '../../analyse/static-type.js';
import type { Expr } from '../../parse/tree.js';
import { quoteString } from './quote.js';


/**
 * The longest text the generator writes more than once for one value. Some renderings need a value
 * twice (`CASE WHEN b = 0 THEN ... ELSE a / b END`), so nested ones grow geometrically: past this,
 * the query is refused instead of compiled into megabytes.
 */
export const MAX_REPEATED_SQL = 100_000;

/** The text of a value the rendering uses more than once; refused when it is too large to repeat. */
export function repeatable(sql: string, refuse: (what: string) => never): string {
  if (sql.length > MAX_REPEATED_SQL) refuse('an expression this large where its value is used more than once (compute it in a CTE first)');
  return sql;
}

/** Shorter than this, a value's text is written again where a rendering needs it twice (a column, a literal). */
const REPEATED_UNDER = 256;

/**
 * A value a rendering needs more than once, computed once: longer text (a redacted column, a
 * nested call) is bound to a lambda's parameter, `list_transform([v], __v -> ...)[1]`, so
 * renderings nested in one another grow the SQL by a constant, not by a factor: a sandbox query
 * of Supabase Studio's auth report with redaction on (JSON_VALUE inside CAST inside
 * APPROX_QUANTILES(...)[OFFSET(50)]) was 2.9 MB of SQL with the value repeated. A nested binding
 * may reuse the name: its value is outside its lambda, its body reads only its own parameter.
 */
export function computedOnce(sql: string, use: (value: string) => string): string {
  if (sql.length < REPEATED_UNDER) return use(sql);
  return `list_transform([${sql}], __v -> ${use('__v')})[1]`;
}

/**
 * An error BigQuery raises at run time (`division by zero`, `Bad int64 value: x`). DuckDB's
 * `error()` is volatile, which `TRY` (SAFE.) refuses, so the error is a cast that cannot succeed:
 * its message reads "Could not convert string '<message>' to INT64", and `TRY` turns it into NULL.
 */
export function raise(message: string, duckType = 'BIGINT'): string {
  const failing = `CAST(${quoteString(message)} AS BIGINT)`;
  return duckType === 'BIGINT' ? failing : `CAST(${failing} AS ${duckType})`;
}

/**
 * `value`, or an error where `condition` holds: the value read from a one-element list at a
 * position that fails to cast, so the type stays the value's whatever it is (a CASE would need it
 * written out), and no volatile `error()`, which TRY (SAFE.) refuses.
 */
export function unless(condition: string, message: string, value: string): string {
  return `[${value}][(CASE WHEN ${condition} THEN ${raise(message)} ELSE 1 END)]`;
}

const RAISED = /^Conversion Error: Could not convert string '(.*)' to INT64$/;

/**
 * The message of an error `raise` wrote, from DuckDB's words for the cast that raised it
 * (`Could not convert string 'division by zero' to INT64`), where that cast is written in one of
 * `written` (the query's SQL, the macros' definitions): the caller reads BigQuery's error alone,
 * not a conversion it never asked for. A value of the caller's that DuckDB fails to convert is no
 * such cast, and keeps DuckDB's words.
 */
export function raisedMessage(error: string, ...written: string[]): string | undefined {
  const message = RAISED.exec(error)?.[1];
  if (message === undefined) return undefined;
  const cast = `CAST(${quoteString(message)} AS BIGINT)`;
  return written.some((sql) => sql.includes(cast)) ? message : undefined;
}

/** DuckDB's `typeof()` names of the types a BigQuery value can have on the embedded engine. */
const DUCK_TYPE_NAMES: Readonly<Record<StaticType, readonly string[]>> = {
  int64: ['BIGINT', 'INTEGER', 'HUGEINT', 'SMALLINT', 'TINYINT', 'UBIGINT', 'UINTEGER'],
  float64: ['DOUBLE', 'FLOAT'],
  numeric: ['DECIMAL(38,9)'],
  // Its units of 10^-38 (dialects/duckdb/bignumeric.ts).
  bignumeric: ['BIGNUM'],
  string: ['VARCHAR'],
  bytes: ['BLOB'],
  bool: ['BOOLEAN'],
  date: ['DATE'],
  datetime: ['TIMESTAMP'],
  timestamp: ['TIMESTAMP WITH TIME ZONE'],
  time: ['TIME'],
  interval: ['INTERVAL'],
  json: ['JSON'],
};

/** The DuckDB type a BigQuery type is held in, for `TRY_CAST(... AS T)`. */
const DUCK_TYPE: Readonly<Record<StaticType, string>> = {
  int64: 'BIGINT',
  float64: 'DOUBLE',
  numeric: 'DECIMAL(38, 9)',
  bignumeric: 'BIGNUM',
  string: 'VARCHAR',
  bytes: 'BLOB',
  bool: 'BOOLEAN',
  date: 'DATE',
  datetime: 'TIMESTAMP',
  timestamp: 'TIMESTAMPTZ',
  time: 'TIME',
  interval: 'INTERVAL',
  json: 'JSON',
};

export type TypeBranches = Partial<Record<StaticType, (value: string) => string>> & { otherwise: (value: string) => string };

/**
 * A rendering that depends on the value's type. Where the generator knows the type (a literal, a
 * cast, a function's result) it picks the branch itself; otherwise DuckDB picks it with
 * `typeof()`, which is constant for the query. Every branch must then bind whatever the type is,
 * so each is given the value re-read through its text (`TRY_CAST(CAST(x AS VARCHAR) AS DOUBLE)`),
 * which is exact for the type the branch is taken for.
 */
export function byType(value: string, known: StaticType | undefined, branches: TypeBranches, refuse: (what: string) => never): string {
  if (known !== undefined) return (branches[known] ?? branches.otherwise)(value);
  const repeated = repeatable(value, refuse);
  const cases = (Object.keys(DUCK_TYPE_NAMES) as StaticType[]).flatMap((type) => {
    const branch = branches[type];
    if (!branch) return [];
    const names = DUCK_TYPE_NAMES[type].map(quoteString).join(', ');
    const retyped = type === 'string' ? `CAST(${repeated} AS VARCHAR)` : `TRY_CAST(CAST(${repeated} AS VARCHAR) AS ${DUCK_TYPE[type]})`;
    return [`WHEN typeof(${repeated}) IN (${names}) THEN ${branch(retyped)}`];
  });
  if (cases.length === 0) return branches.otherwise(value);
  return `(CASE ${cases.join(' ')} ELSE ${branches.otherwise(repeated)} END)`;
}

/**
 * BigQuery's text of a FLOAT64: the shortest of 15 or 17 significant digits that reads back as the
 * same value, `%g` style (`1`, `0.1`, `0.30000000000000004`, `1e+20`, `inf`, `nan`), never `-0`.
 */
export function float64Text(value: string, refuse: (what: string) => never): string {
  const v = repeatable(value, refuse);
  return `(CASE WHEN CAST(printf('%.15g', ${v}) AS DOUBLE) = ${v} THEN printf('%.15g', ${v} + 0.0) ELSE printf('%.17g', ${v} + 0.0) END)`;
}

/**
 * A TIME's text as BigQuery writes it, `12:34:56` or `12:34:56.100` (DuckDB's cast: `12:34:56.1`),
 * a concatenation for the caller to parenthesise: strftime takes the time on a day of no matter.
 */
export function timeText(value: string, refuse: (what: string) => never): string {
  const onADay = `CAST('2000-01-01' AS DATE) + ${value}`;
  return `strftime(${onADay}, '%H:%M:%S') || ${secondFraction(`(${onADay})`, refuse)}`;
}

/**
 * The fraction of a second as BigQuery writes it in a TIMESTAMP's or DATETIME's text: none, 3 or 6
 * digits (`.110`, `.123456`), whichever holds it exactly.
 */
export function secondFraction(value: string, refuse: (what: string) => never): string {
  const micros = `strftime(${repeatable(value, refuse)}, '%f')`;
  return `(CASE WHEN ${micros} = '000000' THEN '' WHEN right(${micros}, 3) = '000' THEN '.' || left(${micros}, 3) ELSE '.' || ${micros} END)`;
}

/**
 * BigQuery's `SAFE.` (and SAFE_ADD and its kind) turns the errors of the function itself into
 * NULL, never those of its arguments ("The SAFE. prefix only prevents errors from the prefixed
 * function itself: it doesn't prevent errors that occur while evaluating argument expressions").
 * DuckDB's TRY covers the whole expression inside it, arguments included, so an argument that may
 * raise is evaluated once outside the TRY too, where its error is raised: a `hash()` of it, which
 * is never NULL but which DuckDB cannot know, so the CASE always takes the TRY.
 */
/** An expression that cannot raise an error: a name, a literal, a parameter, and STRUCTs and arrays of them. */
function cannotRaise(expr: Expr): boolean {
  switch (expr.kind) {
    case 'column':
    case 'param':
    case 'literal':
    case 'date_part':
    case 'star_argument':
      return true;
    case 'field':
      return cannotRaise(expr.operand);
    case 'struct':
      return expr.fields.every((field) => cannotRaise(field.expr));
    case 'array':
      return expr.elements.every(cannotRaise);
    default:
      return false;
  }
}

/** `TRY(sql)` of a call, its arguments' errors raised as BigQuery raises them. */
export function trying(sql: string, args: readonly string[], argNodes: readonly Expr[], refuse: (what: string) => never): string {
  const raising = args.filter((_, index) => argNodes[index] === undefined || !cannotRaise(argNodes[index]!));
  if (raising.length === 0) return `TRY(${sql})`;
  return `(CASE WHEN hash(${raising.map((arg) => repeatable(arg, refuse)).join(', ')}) IS NULL THEN NULL ELSE TRY(${sql}) END)`;
}
