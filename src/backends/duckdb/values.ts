/**
 * DuckDB values -> the wire format of DESIGN.md (Logflare-compatible, docs/http.md):
 * TIMESTAMP (DuckDB TIMESTAMPTZ) -> integer Unix microseconds, DATETIME (DuckDB TIMESTAMP)
 * -> "YYYY-MM-DDTHH:MM:SS[.ffffff]", DATE -> "YYYY-MM-DD", INT64 -> number, NUMERIC -> number or, where
 * a double would not read back its decimal, the decimal string (core/wire-decimal.ts), INTERVAL -> its
 * canonical text (`0-0 396 0:0:0`), repeated records -> arrays of objects. An INT64 or a
 * TIMESTAMP's microseconds beyond 2^53, which a JSON number cannot hold exactly, is the decimal
 * string of the integer. As BigQuery answers: a NULL array is `[]`, an array holding a NULL
 * element cannot be returned (an error), and a FLOAT64 NaN or infinity is the string BigQuery's
 * REST API writes (`"NaN"`, `"Infinity"`, `"-Infinity"`; JSON has no such number, and
 * JSON.stringify would write `null`, a wrong answer no caller could tell from NULL).
 */
import {
  createDuckDBValueConverter,
  DuckDBDateValue,
  DuckDBTimestampValue,
  DuckDBTimestampTZValue,
  DuckDBTimeValue,
  DuckDBIntervalValue,
  DuckDBBlobValue,
  DuckDBDecimalValue,
  DuckDBTypeId,
  JSDuckDBValueConverter,
  type DuckDBValueConverter,
  arrayFromListValue,
  arrayFromArrayValue,
  objectFromStructValue,
  booleanFromValue,
  numberFromValue,
  stringFromValue,
  nullConverter,
} from '#duckdb-api';
import type { WireValue } from '../../core/types.js';
import { wireDecimal } from '../../core/wire-decimal.js';
import { bignumericText } from '../../sql/dialects/duckdb/bignumeric.js';
import { BIGNUMERIC_MAX_UNITS, BIGNUMERIC_MIN_UNITS, BIGNUMERIC_OVERFLOW } from '../../sql/dialects/duckdb/sql-macros.js';
import { wireFloat } from '../../core/wire-float.js';
import { wireInteger } from '../../core/wire-integer.js';

const MICROS_PER_DAY = 86_400_000_000n;

/** DuckDB's infinite DATE (days) and DATETIME / TIMESTAMP (microseconds), either sign. */
const INFINITE_DAYS = 2_147_483_647;
const INFINITE_MICROS = 9_223_372_036_854_775_807n;

function finiteMicros(micros: bigint, write: (micros: bigint) => WireValue): WireValue {
  return micros === INFINITE_MICROS || micros === -INFINITE_MICROS ? null : write(micros);
}

function pad(value: number | bigint, width: number): string {
  return String(value).padStart(width, '0');
}

/** Civil date of a day count since 1970-01-01 (proleptic Gregorian, as both warehouses use). */
function dateText(days: number): string {
  const date = new Date(days * 86_400_000);
  return `${pad(date.getUTCFullYear(), 4)}-${pad(date.getUTCMonth() + 1, 2)}-${pad(date.getUTCDate(), 2)}`;
}

export function datetimeText(micros: bigint): string {
  let days = micros / MICROS_PER_DAY;
  let rest = micros % MICROS_PER_DAY;
  if (rest < 0n) {
    rest += MICROS_PER_DAY;
    days -= 1n;
  }
  const seconds = rest / 1_000_000n;
  const fraction = rest % 1_000_000n;
  const time = `${pad(seconds / 3600n, 2)}:${pad((seconds / 60n) % 60n, 2)}:${pad(seconds % 60n, 2)}`;
  return `${dateText(Number(days))}T${time}${fraction === 0n ? '' : `.${pad(fraction, 6)}`}`;
}

/**
 * BigQuery's canonical INTERVAL text, `[-]Y-M [-]D [-]H:M:S[.F]`: each of its three parts signed on
 * its own, the fraction without trailing zeros (`-0-1 0 0:0:0`, `0-0 0 36:34:56.789`).
 */
function intervalText(value: DuckDBIntervalValue): string {
  const months = Math.abs(value.months);
  const negative = value.micros < 0n;
  const micros = negative ? -value.micros : value.micros;
  const seconds = micros / 1_000_000n;
  const fraction = micros % 1_000_000n;
  const time = `${negative ? '-' : ''}${seconds / 3600n}:${(seconds / 60n) % 60n}:${seconds % 60n}${fraction === 0n ? '' : `.${pad(fraction, 6).replace(/0+$/, '')}`}`;
  return `${value.months < 0 ? '-' : ''}${Math.trunc(months / 12)}-${months % 12} ${value.days} ${time}`;
}

function integerNumber(value: unknown): number | string {
  return typeof value === 'bigint' ? wireInteger(value) : Number(value);
}

// The library adds null to T itself.
type Converter = DuckDBValueConverter<Exclude<WireValue, null>>;

const wireConverters = {
  ...Object.fromEntries(Object.values(DuckDBTypeId).filter((id) => typeof id === 'number').map((id) => [id, JSDuckDBValueConverter])),
  [DuckDBTypeId.BOOLEAN]: booleanFromValue,
  [DuckDBTypeId.TINYINT]: numberFromValue,
  [DuckDBTypeId.SMALLINT]: numberFromValue,
  [DuckDBTypeId.INTEGER]: numberFromValue,
  [DuckDBTypeId.UTINYINT]: numberFromValue,
  [DuckDBTypeId.USMALLINT]: numberFromValue,
  [DuckDBTypeId.UINTEGER]: numberFromValue,
  [DuckDBTypeId.FLOAT]: wireFloat,
  [DuckDBTypeId.DOUBLE]: wireFloat,
  [DuckDBTypeId.BIGINT]: integerNumber,
  [DuckDBTypeId.UBIGINT]: integerNumber,
  [DuckDBTypeId.HUGEINT]: integerNumber,
  [DuckDBTypeId.UHUGEINT]: integerNumber,
  [DuckDBTypeId.DECIMAL]: (value: unknown) => decimalOnWire(withinNumericRange(value as DuckDBDecimalValue)),
  [DuckDBTypeId.BIGNUM]: (value: unknown) => bignumericOnWire(BigInt(value as bigint)),
  [DuckDBTypeId.VARCHAR]: stringFromValue,
  [DuckDBTypeId.UUID]: stringFromValue,
  [DuckDBTypeId.ENUM]: stringFromValue,
  [DuckDBTypeId.SQLNULL]: nullConverter,
  // An infinite DATE, DATETIME or TIMESTAMP is only ever a RANGE's unbounded end (sql/functions/ranges.ts):
  // BigQuery has none, and writes an unbounded end as null.
  [DuckDBTypeId.TIMESTAMP_TZ]: (value: unknown) => finiteMicros((value as DuckDBTimestampTZValue).micros, wireInteger),
  [DuckDBTypeId.TIMESTAMP]: (value: unknown) => finiteMicros((value as DuckDBTimestampValue).micros, datetimeText),
  [DuckDBTypeId.DATE]: (value: unknown) => (Math.abs((value as DuckDBDateValue).days) === INFINITE_DAYS ? null : dateText((value as DuckDBDateValue).days)),
  [DuckDBTypeId.TIME]: (value: unknown) => datetimeText((value as DuckDBTimeValue).micros).slice(11),
  [DuckDBTypeId.INTERVAL]: (value: unknown) => intervalText(value as DuckDBIntervalValue),
  [DuckDBTypeId.BLOB]: (value: unknown) => Buffer.from((value as DuckDBBlobValue).bytes).toString('base64'),
  [DuckDBTypeId.LIST]: (value: unknown, type: unknown, converter: Converter) => withoutNullElements(arrayFromListValue(value as never, type as never, converter)),
  [DuckDBTypeId.ARRAY]: (value: unknown, type: unknown, converter: Converter) => withoutNullElements(arrayFromArrayValue(value as never, type as never, converter)),
  [DuckDBTypeId.STRUCT]: objectFromStructValue,
} as unknown as Parameters<typeof createDuckDBValueConverter<Exclude<WireValue, null>>>[0];

/**
 * What an answer holding a NUMERIC past NUMERIC's range fails with: BigQuery's error. DuckDB's
 * SUM of DECIMAL(38, 9) values adds in 128 bits and answers a 39th digit; its arithmetic on
 * DECIMALs checks 38 digits of units, which is NUMERIC's range, so a result is checked here.
 */
export const NUMERIC_OVERFLOW_ERROR = 'numeric overflow';

function withinNumericRange(value: DuckDBDecimalValue): DuckDBDecimalValue {
  const limit = 10n ** BigInt(29 + value.scale);
  if (value.value >= limit || value.value <= -limit) throw new Error(`${NUMERIC_OVERFLOW_ERROR}: ${value.toString()} is past NUMERIC's range (29 integer digits; an aggregate of NUMERICs that large is an error in BigQuery too)`);
  return value;
}

/** A DECIMAL's exact text, never through a double: a double reads 20 or more digits as another value. */
function decimalOnWire(value: DuckDBDecimalValue): number | string {
  const text = value.toString();
  return wireDecimal(text) ?? text;
}

/**
 * A BIGNUM is a BIGNUMERIC's count of units of 10^-38 (sql/dialects/duckdb/bignumeric.ts): the only
 * BIGNUMs a query makes. Past BIGNUMERIC's range (a SUM's is checked in the query too) BigQuery's error.
 */
function bignumericOnWire(units: bigint): number | string {
  if (units > BIGNUMERIC_MAX_UNITS || units < BIGNUMERIC_MIN_UNITS) throw new Error(`${BIGNUMERIC_OVERFLOW}: a value past BIGNUMERIC's range`);
  const text = bignumericText(units);
  return wireDecimal(text) ?? text;
}

/** What an answer holding an array with a NULL element fails with: the query's mistake, as BigQuery's 400 says. */
export const NULL_ELEMENT = 'Array cannot have a null element';

/** BigQuery refuses to return an array holding NULL (ARRAY_AGG without IGNORE NULLS, `[1, NULL]`). */
export function withoutNullElements(items: WireValue[]): WireValue[] {
  if (items.includes(null)) throw new Error(`${NULL_ELEMENT}: an ARRAY in a query result may not hold NULL (drop them with IGNORE NULLS or a filter)`);
  return items;
}

const converted: Converter = createDuckDBValueConverter<Exclude<WireValue, null>>(wireConverters);

const LIST_TYPES: ReadonlySet<DuckDBTypeId> = new Set([DuckDBTypeId.LIST, DuckDBTypeId.ARRAY]);

/** A NULL array is written `[]`, at any depth, as BigQuery writes it. */
export const toWireValue: Converter = (value, type, converter) => (value == null && LIST_TYPES.has(type.typeId) ? [] : converted(value, type, converter));
