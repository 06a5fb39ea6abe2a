/**
 * BigQuery's printed results (as the GoogleSQL reference prints them) compared with what DuckDB
 * returns, by BigQuery type: a FLOAT64 to the digits printed, a TIMESTAMP as the instant it names,
 * a NUMERIC as an exact decimal, BYTES as base64, a DATETIME with a `T` or a space, a STRUCT in
 * the reference's `{a, b}` form. A mismatch is described in words; equal values give undefined.
 */
import { DuckDBDecimalValue, DuckDBListType, DuckDBStructType, DuckDBTypeId, type DuckDBType, type DuckDBValue } from '#duckdb-api';
import type { WireValue } from '../../src/core/types.js';

export type Printed = string | number | boolean | null | Printed[] | { [key: string]: Printed };

/** One column of DuckDB's answer: its type, the raw value and the value on the wire. */
export interface Actual {
  type: DuckDBType;
  raw: DuckDBValue;
  wire: WireValue;
}

/** The BigQuery type DuckDB's type stands for, written as the reference writes it (`ARRAY<STRING>`). */
export function bigQueryTypeOf(type: DuckDBType): string {
  if (type.alias === 'JSON') return 'JSON';
  if (type instanceof DuckDBListType) return `ARRAY<${bigQueryTypeOf(type.valueType)}>`;
  if (type instanceof DuckDBStructType) return rangeTypeOf(type) ?? 'STRUCT';
  switch (type.typeId) {
    case DuckDBTypeId.BOOLEAN:
      return 'BOOL';
    case DuckDBTypeId.TINYINT:
    case DuckDBTypeId.SMALLINT:
    case DuckDBTypeId.INTEGER:
    case DuckDBTypeId.BIGINT:
    case DuckDBTypeId.HUGEINT:
    case DuckDBTypeId.UBIGINT:
    case DuckDBTypeId.SQLNULL:
      return 'INT64';
    case DuckDBTypeId.FLOAT:
    case DuckDBTypeId.DOUBLE:
      return 'FLOAT64';
    case DuckDBTypeId.DECIMAL:
      return 'NUMERIC';
    // A BIGNUMERIC's units (sql/dialects/duckdb/bignumeric.ts).
    case DuckDBTypeId.BIGNUM:
      return 'BIGNUMERIC';
    case DuckDBTypeId.VARCHAR:
    case DuckDBTypeId.UUID:
      return 'STRING';
    case DuckDBTypeId.BLOB:
      return 'BYTES';
    case DuckDBTypeId.DATE:
      return 'DATE';
    case DuckDBTypeId.TIME:
      return 'TIME';
    case DuckDBTypeId.TIMESTAMP:
      return 'DATETIME';
    case DuckDBTypeId.TIMESTAMP_TZ:
      return 'TIMESTAMP';
    case DuckDBTypeId.INTERVAL:
      return 'INTERVAL';
    default:
      return type.toString();
  }
}

/** A RANGE, held on DuckDB as a STRUCT of its bounds, "start" and "end" (sql/functions/ranges.ts). */
function rangeTypeOf(type: DuckDBStructType): string | undefined {
  if (type.entryNames.length !== 2 || type.entryNames[0] !== 'start' || type.entryNames[1] !== 'end') return undefined;
  const element = bigQueryTypeOf(type.entryTypes[0]!);
  return ['DATE', 'DATETIME', 'TIMESTAMP'].includes(element) ? `RANGE<${element}>` : undefined;
}

/** Whether the reference's type (`ARRAY`, `ARRAY<STRUCT>`, `BIGNUMERIC`, `RANGE<T>`) admits DuckDB's. */
export function typeMatches(expected: string, actual: string): boolean {
  const normalised = expected.replace(/\s+/g, '').replace(/^BIGNUMERIC$/, 'NUMERIC');
  if (normalised === actual || expected.replace(/\s+/g, '') === actual) return true;
  if (normalised === 'ARRAY') return actual.startsWith('ARRAY<');
  if (normalised === 'ARRAY<STRUCT>') return actual === 'ARRAY<STRUCT>';
  // The reference writes a RANGE's type as RANGE or RANGE<T> where the example's element type varies.
  if (normalised === 'RANGE' || normalised === 'RANGE<T>') return actual.startsWith('RANGE<');
  return false;
}

/** What the reference prints for a non-finite FLOAT64 -> what BigQuery's REST API (and the wire) writes. */
const SPECIAL_FLOATS: Readonly<Record<string, string>> = { inf: 'Infinity', '+inf': 'Infinity', Infinity: 'Infinity', '-inf': '-Infinity', '-Infinity': '-Infinity', NaN: 'NaN', nan: 'NaN' };

/** The significant digits a printed number shows (`0.01613` shows 4, `1.0` shows 2). */
function significantDigits(text: string): number {
  const mantissa = text.replace(/^[+-]/, '').replace(/e.*$/i, '').replace('.', '');
  const digits = mantissa.replace(/^0+/, '');
  return Math.max(digits.length, 1);
}

function floatMatches(expected: Printed, actual: WireValue): boolean {
  // NaN and the infinities are the strings on the wire, never null (docs/http.md).
  if (typeof expected === 'string' && expected in SPECIAL_FLOATS) return actual === SPECIAL_FLOATS[expected];
  if (typeof actual !== 'number') return false;
  const text = String(expected);
  const value = Number(text);
  if (value === 0) return Math.abs(actual) < 1e-15;
  if (!Number.isFinite(actual)) return false;
  const digits = Math.min(significantDigits(text), 17);
  // The reference prints some values rounded to their digits, some cut off after them.
  return Number(actual.toPrecision(digits)) === value || actual === value || cutOff(actual, digits) === value;
}

/** `value` with its digits after the first `digits` significant ones dropped (not rounded). */
function cutOff(value: number, digits: number): number {
  const [mantissa, exponent] = value.toExponential(16).split('e') as [string, string];
  const negative = mantissa.startsWith('-');
  const kept = mantissa.replace('-', '').replace('.', '').slice(0, digits);
  return Number(`${negative ? '-' : ''}${kept[0]}.${kept.slice(1) || '0'}e${exponent}`);
}

/** A decimal's text without trailing zeros after its point (`1.50` is `1.5`, `2.0` is `2`). */
function decimalText(text: string): string {
  let value = text.trim();
  if (/e/i.test(value)) value = expandExponent(value);
  if (value.includes('.')) value = value.replace(/0+$/, '').replace(/\.$/, '');
  return value === '-0' ? '0' : value;
}

function expandExponent(text: string): string {
  const [mantissa, exponent] = text.toLowerCase().split('e') as [string, string];
  const negative = mantissa.startsWith('-');
  const [whole, fraction = ''] = mantissa.replace(/^[+-]/, '').split('.') as [string, string?];
  const shift = Number(exponent);
  const digits = whole + fraction;
  const point = whole.length + shift;
  const padded = point > digits.length ? digits.padEnd(point, '0') : point < 0 ? '0'.repeat(-point) + digits : digits;
  const at = Math.max(point, 0);
  const result = `${padded.slice(0, at) || '0'}${at < padded.length ? `.${padded.slice(at)}` : ''}`;
  return (negative ? '-' : '') + result.replace(/^0+(?=\d)/, '');
}

/** Microseconds since the epoch of a printed TIMESTAMP (`2008-12-25 15:30:00+00`, `... UTC`, `...-08`). */
export function timestampMicros(text: string): bigint {
  const match = /^(\d{4}-\d{2}-\d{2})[T ](\d{1,2}):(\d{2}):(\d{2})(?:\.(\d+))?\s*(UTC|Z|[+-]\d{1,2}(?::?\d{2})?)?$/.exec(text.trim());
  if (!match) throw new Error(`not a printed TIMESTAMP: ${text}`);
  const [, date, hour, minute, second, fraction = '', zone = 'UTC'] = match;
  const seconds = Date.parse(`${date}T${hour!.padStart(2, '0')}:${minute}:${second}Z`) / 1000;
  let offset = 0;
  const zoneMatch = /^([+-])(\d{1,2}):?(\d{2})?$/.exec(zone);
  if (zoneMatch) offset = (zoneMatch[1] === '-' ? -1 : 1) * (Number(zoneMatch[2]) * 3600 + Number(zoneMatch[3] ?? 0) * 60);
  return BigInt(seconds - offset) * 1_000_000n + BigInt(fraction.slice(0, 6).padEnd(6, '0'));
}

/** A DATETIME or TIME as the wire writes it: `T` between date and time, a fraction of 6 digits or none. */
function civilText(text: string): string {
  const match = /^(?:(\d{4}-\d{2}-\d{2})[T ])?(\d{1,2}):(\d{2}):(\d{2})(?:\.(\d+))?$/.exec(text.trim());
  if (!match) return text;
  const [, date, hour, minute, second, fraction = ''] = match;
  const micros = fraction.slice(0, 6).padEnd(6, '0');
  const time = `${hour!.padStart(2, '0')}:${minute}:${second}${micros === '000000' ? '' : `.${micros}`}`;
  return date === undefined ? time : `${date}T${time}`;
}

/**
 * Whether a RANGE the reference prints (`[2022-10-01, UNBOUNDED)`, a TIMESTAMP bound in UTC) is the
 * wire's `{start, end}`, an unbounded bound null; a TIMESTAMP bound is the wire's number.
 */
function rangeMatches(printed: string, wire: WireValue): boolean {
  const bounds = /^\[([^,]*),\s*([^,]*)\)$/.exec(printed.trim());
  if (!bounds || wire === null || typeof wire !== 'object' || Array.isArray(wire)) return false;
  const value = wire as Record<string, WireValue>;
  if (Object.keys(value).join() !== 'start,end') return false;
  return [bounds[1]!, bounds[2]!].every((text, index) => {
    const bound = index === 0 ? value.start : value.end;
    if (/^(UNBOUNDED|NULL)$/i.test(text.trim())) return bound === null;
    if (typeof bound === 'number') return BigInt(bound) === timestampMicros(text);
    return civilText(text) === bound;
  });
}

/** A value as the reference prints one inside an ARRAY or STRUCT: `{pear, 6}`, `[1, 2]`, `NULL`. */
function printedForm(value: WireValue): string {
  if (value === null) return 'NULL';
  if (Array.isArray(value)) return `[${value.map(printedForm).join(', ')}]`;
  if (typeof value === 'object') return `{${Object.values(value).map(printedForm).join(', ')}}`;
  return String(value);
}

/** What is wrong with `actual` as the value the reference printed for a column of type `type`, if anything. */
export function mismatch(type: string, expected: Printed, actual: Actual): string | undefined {
  const { raw, wire } = actual;
  const differ = `expected ${JSON.stringify(expected)}, got ${JSON.stringify(wire)}`;
  const base = type.replace(/\s+/g, '');
  // The reference prints a NULL ARRAY as NULL; BigQuery's results carry it as [] (docs/sql.md).
  if (expected === null && base.startsWith('ARRAY<') && Array.isArray(wire) && wire.length === 0) return undefined;
  if (expected === null || wire === null) return expected === null && wire === null ? undefined : differ;
  if (base.startsWith('ARRAY<') && base !== 'ARRAY<STRUCT>' && Array.isArray(expected)) {
    const element = base.slice('ARRAY<'.length, -1);
    if (!Array.isArray(wire) || wire.length !== expected.length) return differ;
    for (const [index, item] of expected.entries()) {
      const inner = mismatch(element, item, { type: actual.type, raw: null, wire: wire[index] ?? null });
      if (inner !== undefined) return `[${index}]: ${inner}`;
    }
    return undefined;
  }
  if (base.startsWith('RANGE')) return rangeMatches(String(expected), wire) ? undefined : differ;
  switch (base) {
    case 'INT64': {
      const value = typeof raw === 'bigint' || typeof raw === 'number' ? BigInt(raw) : typeof wire === 'number' ? BigInt(wire) : undefined;
      return value !== undefined && value === BigInt(expected as string | number) ? undefined : differ;
    }
    case 'FLOAT64':
      return floatMatches(expected, wire) ? undefined : `${differ} (${String(raw)})`;
    case 'NUMERIC':
    case 'BIGNUMERIC': {
      const text = raw instanceof DuckDBDecimalValue ? raw.toString() : String(wire);
      return decimalText(text) === decimalText(String(expected)) ? undefined : `expected ${String(expected)}, got ${text}`;
    }
    case 'TIMESTAMP':
      return typeof wire === 'number' && BigInt(wire) === timestampMicros(String(expected)) ? undefined : differ;
    case 'DATETIME':
    case 'TIME':
      return civilText(String(expected)) === wire ? undefined : differ;
    case 'STRUCT':
    case 'ARRAY<STRUCT>':
      return printedForm(wire) === String(expected) ? undefined : `expected ${String(expected)}, got ${printedForm(wire)}`;
    default:
      return JSON.stringify(expected) === JSON.stringify(wire) ? undefined : differ;
  }
}
