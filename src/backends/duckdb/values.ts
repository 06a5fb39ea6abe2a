/**
 * DuckDB values -> the wire format of DESIGN.md (Logflare-compatible):
 * TIMESTAMP (DuckDB TIMESTAMPTZ) -> integer Unix microseconds, DATETIME (DuckDB TIMESTAMP)
 * -> "YYYY-MM-DDTHH:MM:SS[.ffffff]", DATE -> "YYYY-MM-DD", INT64 -> number,
 * repeated records -> arrays of objects.
 */
import {
  createDuckDBValueConverter,
  DuckDBDateValue,
  DuckDBTimestampValue,
  DuckDBTimestampTZValue,
  DuckDBTimeValue,
  DuckDBIntervalValue,
  DuckDBBlobValue,
  DuckDBTypeId,
  JSDuckDBValueConverter,
  type DuckDBValueConverter,
  arrayFromListValue,
  arrayFromArrayValue,
  objectFromStructValue,
  booleanFromValue,
  numberFromValue,
  stringFromValue,
  doubleFromDecimalValue,
  nullConverter,
} from '@duckdb/node-api';
import type { WireValue } from '../../core/types.js';

const MICROS_PER_DAY = 86_400_000_000n;

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

/** BigQuery's canonical INTERVAL text: `Y-M D H:M:S[.F]`. */
function intervalText(value: DuckDBIntervalValue): string {
  const years = Math.trunc(value.months / 12);
  const months = value.months % 12;
  const negative = value.micros < 0n;
  const micros = negative ? -value.micros : value.micros;
  const seconds = micros / 1_000_000n;
  const fraction = micros % 1_000_000n;
  const time = `${negative ? '-' : ''}${seconds / 3600n}:${(seconds / 60n) % 60n}:${seconds % 60n}${fraction === 0n ? '' : `.${pad(fraction, 6)}`}`;
  return `${years}-${Math.abs(months)} ${value.days} ${time}`;
}

/** INT64 as a JSON number, as BigQuery's REST API clients (and Logflare's) expect. */
function integerNumber(value: unknown): number {
  return Number(value as bigint);
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
  [DuckDBTypeId.FLOAT]: numberFromValue,
  [DuckDBTypeId.DOUBLE]: numberFromValue,
  [DuckDBTypeId.BIGINT]: integerNumber,
  [DuckDBTypeId.UBIGINT]: integerNumber,
  [DuckDBTypeId.HUGEINT]: integerNumber,
  [DuckDBTypeId.UHUGEINT]: integerNumber,
  [DuckDBTypeId.DECIMAL]: doubleFromDecimalValue,
  [DuckDBTypeId.VARCHAR]: stringFromValue,
  [DuckDBTypeId.UUID]: stringFromValue,
  [DuckDBTypeId.ENUM]: stringFromValue,
  [DuckDBTypeId.SQLNULL]: nullConverter,
  [DuckDBTypeId.TIMESTAMP_TZ]: (value: unknown) => Number((value as DuckDBTimestampTZValue).micros),
  [DuckDBTypeId.TIMESTAMP]: (value: unknown) => datetimeText((value as DuckDBTimestampValue).micros),
  [DuckDBTypeId.DATE]: (value: unknown) => dateText((value as DuckDBDateValue).days),
  [DuckDBTypeId.TIME]: (value: unknown) => datetimeText((value as DuckDBTimeValue).micros).slice(11),
  [DuckDBTypeId.INTERVAL]: (value: unknown) => intervalText(value as DuckDBIntervalValue),
  [DuckDBTypeId.BLOB]: (value: unknown) => Buffer.from((value as DuckDBBlobValue).bytes).toString('base64'),
  [DuckDBTypeId.LIST]: arrayFromListValue,
  [DuckDBTypeId.ARRAY]: arrayFromArrayValue,
  [DuckDBTypeId.STRUCT]: objectFromStructValue,
} as unknown as Parameters<typeof createDuckDBValueConverter<Exclude<WireValue, null>>>[0];

export const toWireValue: Converter = createDuckDBValueConverter<Exclude<WireValue, null>>(wireConverters);
