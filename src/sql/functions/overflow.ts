/**
 * Overflow, an error in BigQuery where DuckDB answers a value: a SUM of INT64 values past INT64
 * (DuckDB sums into a HUGEINT), FLOAT64 arithmetic and sums that reach an infinity from finite
 * values (DuckDB's doubles follow IEEE 754), and dates and times past 9999-12-31 (DuckDB's range is
 * wider). DuckDB's own INT64 arithmetic already raises; backends/duckdb/caller-terms.ts words it
 * as BigQuery does.
 *
 * Each check is written around the value it guards; where the query does not say the type, a
 * branch on `typeof()`, which DuckDB folds to a constant, keeps only the branch of the type the
 * value has, so a check that does not apply costs nothing.
 */
import { computedOnce, MAX_REPEATED_SQL, raise, repeatable } from '../dialects/duckdb/semantics.js';
import type { StaticType } from '../analyse/static-type.js';
import type { Expr } from '../parse/tree.js';
import type { CallContext } from './call.js';

export const INT64_OVERFLOW = 'int64 overflow';
export const FLOAT64_OVERFLOW = 'floating point overflow';

/** BigQuery's ranges of a DATE, DATETIME and TIMESTAMP, and what their errors say. */
const TIME_RANGES = {
  date: { duckType: 'DATE', min: `DATE '0001-01-01'`, max: `DATE '9999-12-31'`, message: 'DATE value out of range' },
  datetime: { duckType: 'TIMESTAMP', min: `TIMESTAMP '0001-01-01 00:00:00'`, max: `TIMESTAMP '9999-12-31 23:59:59.999999'`, message: 'DATETIME value out of range' },
  timestamp: { duckType: 'TIMESTAMPTZ', min: `TIMESTAMPTZ '0001-01-01 00:00:00+00'`, max: `TIMESTAMPTZ '9999-12-31 23:59:59.999999+00'`, message: 'TIMESTAMP value out of range' },
} as const;

/**
 * The errors above, as the embedded engine reports them (inside its cast's "Could not convert
 * string '...'"): what a backend reads to give the caller BigQuery's words alone.
 */
export const OVERFLOW_ERROR = /Could not convert string '((?:int64 overflow|floating point overflow|(?:DATE|DATETIME|TIMESTAMP) value out of range|Interval field [a-z]+ is out of range)[^']*)' to [A-Z]/;

const INT64_MAX = '9223372036854775807';
const INT64_MIN = '-9223372036854775808';

/**
 * SUM. Of INT64 values an error where the total is past INT64 (only the total: BigQuery sums in a
 * wider type, as DuckDB's HUGEINT), and the total an INT64 again, so arithmetic on it overflows as
 * BigQuery's does; of FLOAT64 values an error where finite values sum to an infinity. Both checks
 * are on the total, once a group (or a row of a window): the FLOAT64 one counts the infinite
 * inputs alongside the sum.
 */
export function checkedSum(call: CallContext): string {
  const value = call.args[0]!;
  const over = call.over ?? '';
  const total = `sum(${call.distinct ? 'DISTINCT ' : ''}${value})${over}`;
  const type = call.argNodes[0] && call.typeOf(call.argNodes[0]);
  const int64Message = `${INT64_OVERFLOW}: a SUM of INT64 values past the range of INT64`;
  const floatMessage = `${FLOAT64_OVERFLOW}: a SUM of finite FLOAT64 values`;
  if (type === 'int64') return `(CASE WHEN ${total} > ${INT64_MAX} OR ${total} < ${INT64_MIN} THEN ${raise(int64Message)} ELSE CAST(${total} AS BIGINT) END)`;
  if (type === 'float64') {
    const finite = `bool_and(isfinite(${repeatable(value, call.refuse)}))${over}`;
    return `(CASE WHEN isinf(${total}) AND ${finite} THEN ${raise(floatMessage, 'DOUBLE')} ELSE ${total} END)`;
  }
  if (type !== undefined) return total;
  // The type is DuckDB's to tell: each branch is kept only for its own type, and for any other the
  // finite inputs' aggregate is of a constant NULL. Each error is typed as the total (an element
  // of a list of it), so the CASE keeps the total's type whichever branch is kept.
  const v = repeatable(value, call.refuse);
  const typedError = (message: string) => `[${total}][${raise(message)}]`;
  const asDouble = (sql: string) => `TRY_CAST(${sql} AS DOUBLE)`;
  const isDouble = (sql: string) => `typeof(${sql}) IN ('DOUBLE', 'FLOAT')`;
  const finite = `bool_and(CASE WHEN ${isDouble(v)} THEN isfinite(${asDouble(v)}) END)${over}`;
  const checked = `(CASE WHEN typeof(${total}) = 'HUGEINT' AND (${total} > ${INT64_MAX} OR ${total} < ${INT64_MIN}) THEN ${typedError(int64Message)} WHEN ${isDouble(total)} AND isinf(${asDouble(total)}) AND ${finite} THEN ${typedError(floatMessage)} ELSE ${total} END)`;
  // DuckDB's total of integers is a HUGEINT, on which `SUM(x) + 1` would not overflow: the total is
  // an INT64 again (BIGINT) as the typed branch makes it. cast_to_type takes the type of its second
  // argument at bind time and drops it, so the MIN costs nothing; of DOUBLE or DECIMAL values, the
  // COALESCE keeps the total's own type.
  return `cast_to_type(${checked}, coalesce(min(${v})${over}, CAST(0 AS BIGINT)))`;
}

/** What an operator's rendering gets (language.ts's OperatorContext): its node, and its operands written and as trees. */
export interface ArithmeticOperands {
  node: Expr;
  left: string;
  right: string;
  leftNode: Expr;
  rightNode: Expr;
  typeOf(expr: Expr): StaticType | undefined;
  refuse(what: string): never;
}

/**
 * An arithmetic expression as written without its FLOAT64 check, and its leaves: the operands
 * that are not themselves such arithmetic. Kept by tree node for the operator above it, so a
 * chain `a + b + c` is checked once at its top, not at every step, which would write each
 * step's text again in the check above it (so the text grew by a factor a step).
 */
interface Arithmetic {
  plain: string;
  leaves: { sql: string; node: Expr }[];
}

const ARITHMETIC = new WeakMap<Expr, Arithmetic>();

/** An operand as arithmetic above it reads it: the plain text of arithmetic below, else a leaf. */
export function operand(node: Expr, sql: string): Arithmetic {
  return ARITHMETIC.get(node) ?? { plain: sql, leaves: [{ sql, node }] };
}

const CHECKED_TYPES: ReadonlySet<StaticType | undefined> = new Set([undefined, 'float64']);

/**
 * `plain`, the text of `op` from its operands' plain texts, checked for FLOAT64 overflow.
 *
 * BigQuery raises where an operation of finite FLOAT64 values is infinite. On DuckDB's doubles
 * an infinity, once reached, stays infinite or becomes NaN through `+ - *` and a numerator
 * (`inf * 0`, `inf - inf`): so a result that is not finite from leaves that all are means some
 * step overflowed, and one check at the top of the expression finds it. A divisor is the one
 * place an infinity turns finite (`x / inf` is 0), so a divisor is a leaf, checked on its own.
 * Where the query says the type is not FLOAT64 (INT64 arithmetic raises in DuckDB itself), no
 * check is written; where it does not say, DuckDB keeps the check for a DOUBLE result only.
 */
export function arithmeticChecked(op: ArithmeticOperands, plain: string, leaves: Arithmetic['leaves'], operator: string): string {
  ARITHMETIC.set(op.node, { plain, leaves });
  const type = op.typeOf(op.node);
  if (!CHECKED_TYPES.has(type)) return plain;
  // Of INT64 values alone (a division's too: at most 2^63 in size) nothing overflows to an infinity.
  const types = leaves.map(({ node }) => op.typeOf(node));
  if (!types.some((leafType) => CHECKED_TYPES.has(leafType))) return plain;
  // A leaf the query says is an integer, or a literal (finite), needs no test. A leaf too long to
  // write twice (a redacted column inside an aggregate) is not tested either: an infinity given
  // there raises where BigQuery would answer it, an error rather than another answer.
  const tested = [
    ...new Set(leaves.filter(({ node, sql }, index) => node.kind !== 'literal' && CHECKED_TYPES.has(types[index]) && sql.length <= MAX_REPEATED_SQL).map(({ sql }) => sql)),
  ];
  const message = `${FLOAT64_OVERFLOW}: ${operator} of finite FLOAT64 values`;
  // The result is computed once (bound to a lambda's parameter when long), so a check adds a
  // constant to the SQL, never a factor, however the arithmetic nests in calls.
  if (type === 'float64') {
    const finite = tested.map((sql) => ` AND isfinite(${sql})`).join('');
    return computedOnce(plain, (r) => `(CASE WHEN NOT isfinite(${r})${finite} THEN ${raise(message, 'DOUBLE')} ELSE ${r} END)`);
  }
  // The values may be of any type here: each read as a DOUBLE (NULL where it is none), and the
  // error typed as the result (an element of a list of it), so the CASE binds whatever it is.
  const asDouble = (sql: string) => `TRY_CAST(${sql} AS DOUBLE)`;
  const finite = tested.map((sql) => ` AND isfinite(${asDouble(sql)})`).join('');
  return computedOnce(plain, (r) => `(CASE WHEN typeof(${r}) = 'DOUBLE' AND NOT isfinite(${asDouble(r)})${finite} THEN [${r}][${raise(message)}] ELSE ${r} END)`);
}

/**
 * A DATE, DATETIME or TIMESTAMP `value` of type `type`, or BigQuery's error where it is past the
 * type's range (0001-01-01 to 9999-12-31), which DuckDB's wider range lets it reach.
 */
export function inTimeRange(value: string, type: 'date' | 'datetime' | 'timestamp', call: { safe: boolean }, refuse: (what: string) => never): string {
  const range = TIME_RANGES[type];
  const error = call.safe ? `CAST(NULL AS ${range.duckType})` : raise(range.message, range.duckType);
  // Computed once: a shift of a shift would otherwise write the inner one's text three times.
  return computedOnce(repeatable(value, refuse), (v) => `(CASE WHEN ${v} > ${range.max} OR ${v} < ${range.min} THEN ${error} ELSE ${v} END)`);
}

/** BigQuery's INTERVAL range, field by field: 10,000 years of months, 3,660,000 days, 87,840,000 hours. */
const INTERVAL_LIMITS = { months: 120_000n, days: 3_660_000n, micros: 87_840_000n * 3_600_000_000n } as const;

/** What a unit of an `INTERVAL n unit` adds to which field. */
const INTERVAL_UNITS: Readonly<Record<string, { field: keyof typeof INTERVAL_LIMITS; per: bigint }>> = {
  year: { field: 'months', per: 12n },
  quarter: { field: 'months', per: 3n },
  month: { field: 'months', per: 1n },
  week: { field: 'days', per: 7n },
  day: { field: 'days', per: 1n },
  hour: { field: 'micros', per: 3_600_000_000n },
  minute: { field: 'micros', per: 60_000_000n },
  second: { field: 'micros', per: 1_000_000n },
  millisecond: { field: 'micros', per: 1_000n },
  microsecond: { field: 'micros', per: 1n },
};

function intervalFieldError(field: keyof typeof INTERVAL_LIMITS): string {
  const limit = field === 'micros' ? `${INTERVAL_LIMITS.micros / 3_600_000_000n} hours` : String(INTERVAL_LIMITS[field]);
  return raise(`Interval field ${field} is out of range -${limit} to ${limit}`, 'INTERVAL');
}

/**
 * `INTERVAL n unit` (`interval`, DuckDB's text of it; `value`, n's), or BigQuery's error where n
 * units are past the INTERVAL's range in their field (DuckDB's is wider): a literal n is checked
 * here, any other when the query runs.
 */
export function intervalInRange(interval: string, value: Expr, valueSql: string, unit: string): string {
  const { field, per } = INTERVAL_UNITS[unit] ?? { field: 'micros' as const, per: 0n };
  if (per === 0n) return interval;
  const most = INTERVAL_LIMITS[field] / per;
  if (value.kind === 'literal' && value.type === 'int64' && typeof value.value === 'string') {
    const n = BigInt(value.value);
    return (n < 0n ? -n : n) > most ? intervalFieldError(field) : interval;
  }
  // A string (`INTERVAL '0.000008' SECOND`) is checked as the number it writes; DuckDB reads it.
  if (value.kind === 'literal' && typeof value.value === 'string') {
    const n = Number(value.value);
    return Number.isFinite(n) && Math.abs(n) > Number(most) ? intervalFieldError(field) : interval;
  }
  return `(CASE WHEN abs(${valueSql}) > ${most} THEN ${intervalFieldError(field)} ELSE ${interval} END)`;
}

/** An INTERVAL built of several parts (MAKE_INTERVAL), or BigQuery's error where a field of the whole is past its range. */
export function intervalFieldsInRange(interval: string, refuse: (what: string) => never): string {
  return computedOnce(repeatable(interval, refuse), (v) => {
    const months = `(datepart('year', ${v}) * 12 + datepart('month', ${v}))`;
    const hours = `abs(datepart('hour', ${v}))`;
    const micros = `(datepart('minute', ${v}) * 60000000 + datepart('microseconds', ${v}))`;
    const limitHours = INTERVAL_LIMITS.micros / 3_600_000_000n;
    return `(CASE WHEN abs(${months}) > ${INTERVAL_LIMITS.months} THEN ${intervalFieldError('months')} WHEN abs(datepart('day', ${v})) > ${INTERVAL_LIMITS.days} THEN ${intervalFieldError('days')} WHEN ${hours} > ${limitHours} OR (${hours} = ${limitHours} AND ${micros} <> 0) THEN ${intervalFieldError('micros')} ELSE ${v} END)`;
  });
}
