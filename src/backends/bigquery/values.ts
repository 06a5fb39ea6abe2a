/**
 * BigQuery's REST result form (`schema` + `rows` of `{f: [{v}]}`, every scalar a string) ->
 * the wire format of DESIGN.md: TIMESTAMP -> integer Unix microseconds, DATETIME ->
 * "YYYY-MM-DDTHH:MM:SS[.ffffff]", DATE -> "YYYY-MM-DD", INT64 / FLOAT64 / NUMERIC -> number
 * (an INT64 or TIMESTAMP beyond 2^53 the string of its integer, core/wire-integer.ts; a NUMERIC
 * a double would not read back the decimal string BigQuery wrote, core/wire-decimal.ts; a FLOAT64
 * NaN or infinity the string BigQuery wrote, `"NaN"`, `"Infinity"`, `"-Infinity"`, as DuckDB's
 * values give it, core/wire-float.ts),
 * records -> objects, repeated fields -> arrays, NULL -> null.
 *
 * Decoded here rather than by the client, whose parsing wraps values (BigQueryTimestamp,
 * Big, BigQueryInt) in shapes that are not the wire format.
 */
import { CanneryError } from '../../core/errors.js';
import type { WireRow, WireValue } from '../../core/types.js';
import { wireDecimal } from '../../core/wire-decimal.js';
import { isNonFiniteText } from '../../core/wire-float.js';
import { wireInteger } from '../../core/wire-integer.js';
import { resultBudget, type ResultBudget } from '../../engine/serve/result-budget.js';

export interface SchemaField {
  name: string;
  type: string;
  mode?: string;
  fields?: SchemaField[];
  /** A RANGE's element type (`{type: 'DATE'}`). */
  rangeElementType?: { type: string };
}

export interface ResultSchema {
  fields?: SchemaField[];
}

interface Cell {
  v?: unknown;
}

/**
 * Rows of one result page, in the order and with the names of the schema's columns. Each column
 * of each row is spent from `budget` as it is decoded, so a page over the answer's budget stops
 * at the value that tips it over; the event loop gets a turn between rows now and then.
 */
export async function decodeRows(schema: ResultSchema | undefined, rows: readonly unknown[], budget: ResultBudget = resultBudget(Infinity)): Promise<WireRow[]> {
  if (!rows.length) return [];
  const fields = schema?.fields;
  if (!fields) throw malformed('rows without a schema');
  const decoded: WireRow[] = [];
  for (const row of rows) {
    decoded.push(decodeRecord(fields, row, '', budget));
    await budget.breathe();
  }
  return decoded;
}

function decodeRecord(fields: readonly SchemaField[], record: unknown, path: string, budget?: ResultBudget): { [key: string]: WireValue } {
  const cells = isObject(record) && Array.isArray(record.f) ? (record.f as unknown[]) : undefined;
  if (!cells || cells.length !== fields.length) throw malformed(`a record${path ? ` in ${path}` : ''} that does not match its schema`);
  // fromEntries defines own properties, so a column named __proto__ stays a column.
  return Object.fromEntries(
    fields.map((field, index) => {
      const value = decodeField(field, cellValue(cells[index]), join(path, field.name));
      budget?.spendMember(field.name, value);
      return [field.name, value];
    }),
  );
}

function decodeField(field: SchemaField, value: unknown, path: string): WireValue {
  if (field.mode?.toUpperCase() !== 'REPEATED') return decodeValue(field, value, path);
  // BigQuery has no NULL arrays; an absent one is empty.
  if (value === null || value === undefined) return [];
  if (!Array.isArray(value)) throw malformed(`a non-array value for repeated field ${path}`);
  return value.map((element) => decodeValue(field, cellValue(element), path));
}

function decodeValue(field: SchemaField, value: unknown, path: string): WireValue {
  if (value === null || value === undefined) return null;
  const type = field.type.toUpperCase();
  if (type === 'RECORD' || type === 'STRUCT') return decodeRecord(field.fields ?? [], value, path);
  if (typeof value !== 'string') throw malformed(`a non-string ${type} value for ${path}`);
  switch (type) {
    case 'INTEGER':
    case 'INT64':
      if (!/^-?\d+$/.test(value)) throw malformed(`${type} value "${value}" for ${path}`);
      return wireInteger(BigInt(value));
    case 'FLOAT':
    case 'FLOAT64':
      return number(value, type, path);
    case 'NUMERIC':
    case 'BIGNUMERIC':
      return decimal(value, type, path);
    case 'BOOLEAN':
    case 'BOOL':
      if (value !== 'true' && value !== 'false') throw malformed(`BOOL value "${value}" for ${path}`);
      return value === 'true';
    case 'TIMESTAMP':
      return timestampMicros(value, path);
    case 'DATETIME':
      return datetimeText(value, path);
    case 'TIME':
      return timeText(value, path);
    case 'RANGE':
      return rangeValue(field, value, path);
    default:
      // STRING, DATE (already YYYY-MM-DD), BYTES (base64), GEOGRAPHY (WKT), JSON, INTERVAL.
      return value;
  }
}

/** BigQuery writes a RANGE as `[start, end)`, an unbounded bound UNBOUNDED: the wire's `{start, end}`, each its element type's value or null. */
function rangeValue(field: SchemaField, text: string, path: string): WireValue {
  const bounds = /^\[([^,]*), ?([^,]*)\)$/.exec(text);
  const element = field.rangeElementType?.type;
  if (!bounds || element === undefined) throw malformed(`RANGE value "${text}" for ${path}`);
  const bound = (written: string, name: string): WireValue => {
    const value = written.trim();
    if (/^(UNBOUNDED|NULL)$/i.test(value)) return null;
    return decodeValue({ name, type: element }, element.toUpperCase() === 'TIMESTAMP' ? timestampText(value) : value, join(path, name));
  };
  return { start: bound(bounds[1]!, 'start'), end: bound(bounds[2]!, 'end') };
}

/**
 * A RANGE<TIMESTAMP>'s bound as the TIMESTAMP decoder reads it: integer microseconds as BigQuery
 * writes them when asked, or its civil text in UTC (`2020-01-01 00:00:00[.ffffff][ UTC|+00]`) as
 * those microseconds.
 */
function timestampText(text: string): string {
  const civil = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}:\d{2})(?:\.(\d{1,6}))?(?: ?UTC|Z|\+00(?::?00)?)?$/.exec(text);
  if (!civil) return text;
  const millis = Date.parse(`${civil[1]}T${civil[2]}Z`);
  return Number.isFinite(millis) ? String(BigInt(millis) * 1000n + BigInt((civil[3] ?? '').padEnd(6, '0'))) : text;
}

function number(text: string, type: string, path: string): number | string {
  // NaN and the infinities stay the strings BigQuery wrote (JSON has no such number), as DuckDB's
  // values are written.
  if (isNonFiniteText(text)) return text;
  const value = Number(text);
  if (!Number.isFinite(value) || text.trim() === '') throw malformed(`${type} value "${text}" for ${path}`);
  return value;
}

/** A NUMERIC as DuckDB's is written: read from its decimal text, never through a double alone. */
function decimal(text: string, type: string, path: string): number | string {
  const value = wireDecimal(text);
  if (value === undefined) throw malformed(`${type} value "${text}" for ${path}`);
  return value;
}

/**
 * TIMESTAMP as integer microseconds. BigQuery writes it as int64 microseconds when asked
 * (formatOptions.useInt64Timestamp), otherwise as float seconds (`1.7145576001234E9`); the
 * latter is read as an exact decimal, rounded to the microsecond, never through a double.
 */
function timestampMicros(text: string, path: string): number | string {
  if (/^-?\d+$/.test(text)) return wireInteger(BigInt(text));
  const match = /^(-?)(\d*)(?:\.(\d*))?(?:e([+-]?\d+))?$/i.exec(text);
  const [, sign = '', whole = '', fraction = '', exponent = '0'] = match ?? [];
  const shift = Number(exponent) - fraction.length + 6;
  if (!match || whole + fraction === '' || Math.abs(shift) > 40) throw malformed(`TIMESTAMP value "${text}" for ${path}`);
  const digits = BigInt(whole + fraction);
  const scale = 10n ** BigInt(Math.abs(shift));
  const micros = shift >= 0 ? digits * scale : (digits + scale / 2n) / scale;
  return wireInteger(sign === '-' ? -micros : micros);
}

const DATETIME = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}:\d{2})(?:\.(\d+))?$/;
const TIME = /^(\d{2}:\d{2}:\d{2})(?:\.(\d+))?$/;

function datetimeText(text: string, path: string): string {
  const match = DATETIME.exec(text);
  if (!match) throw malformed(`DATETIME value "${text}" for ${path}`);
  return `${match[1]}T${match[2]}${fractionText(match[3])}`;
}

function timeText(text: string, path: string): string {
  const match = TIME.exec(text);
  if (!match) throw malformed(`TIME value "${text}" for ${path}`);
  return match[1] + fractionText(match[2]);
}

/** `.ffffff` (microseconds), only when not zero: the wire format DuckDB's values get too. */
function fractionText(digits: string | undefined): string {
  const micros = (digits ?? '').slice(0, 6).padEnd(6, '0');
  return micros === '000000' ? '' : `.${micros}`;
}

function cellValue(cell: unknown): unknown {
  return isObject(cell) ? (cell as Cell).v : undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function join(path: string, name: string): string {
  return path ? `${path}.${name}` : name;
}

function malformed(what: string): CanneryError {
  return new CanneryError('query_failed', `BigQuery returned ${what}; the result cannot be read`);
}
