/**
 * `CAST(x AS STRING FORMAT '...' [AT TIME ZONE z])` and `CAST(s AS BYTES FORMAT '...')`, the
 * format clause of CAST. BigQuery writes it as written. DuckDB writes a DATE, DATETIME, TIME or
 * TIMESTAMP with its format model (dialects/duckdb/cast-formats.ts), an INT64, NUMERIC or FLOAT64
 * with its numeric format model (read here, dialects/duckdb/number-formats.ts, and written by a
 * host function), BYTES as text in HEX, BASE16, BASE64, UTF-8 or ASCII, and a STRING as BYTES in
 * UTF-8 or ASCII. Refused by name: a format that is not a literal, the other encodings (BASE2,
 * BASE8, BASE32, BASE64M, and decoding from HEX or BASE64), the numeric elements RN and TM, and
 * casts from STRING to a date, a time or a number with a format.
 */
import { duckZone } from '../dialects/duckdb/time-zones.js';
import type { StaticType } from '../analyse/static-type.js';
import { castFormatSql, type CastFormatValue } from '../dialects/duckdb/cast-formats.js';
import { hostCall } from '../dialects/duckdb/host-functions.js';
import { NumberFormatError, parseNumberFormat } from '../dialects/duckdb/number-formats.js';
import { quoteString } from '../dialects/duckdb/quote.js';
import { byType, raise, repeatable } from '../dialects/duckdb/semantics.js';
import { UnsupportedFormat, type TimeKind } from '../dialects/duckdb/time-formats.js';
import type { Expr, TypeName } from '../parse/tree.js';
import { fail } from './arguments.js';
import type { DialectName } from './call.js';

export interface CastFormatContext {
  /** The operand, written in the dialect. */
  operand: string;
  node: Expr;
  safe: boolean;
  type: TypeName;
  /** The target type, written in the dialect. */
  typeSql: string;
  format: Expr;
  formatSql: string;
  timeZone?: { node: Expr; sql: string } | undefined;
  typeOf(expr: Expr): StaticType | undefined;
  refuse(what: string): never;
}

const TIME_KINDS: readonly StaticType[] = ['date', 'datetime', 'time', 'timestamp'];
const NUMBER_KINDS: readonly StaticType[] = ['int64', 'numeric', 'float64'];
/**
 * The longest numeric format model written: its digits are computed exactly, so a row's work grows
 * with the model (BigQuery's own bound is 1 MiB of output).
 */
const NUMBER_FORMAT_LIMIT = 128;
/** Any byte past 0x7F, read in the decoded text: what ASCII refuses. */
const NOT_ASCII = "'[^\\x00-\\x7F]'";

function literalFormat(cast: CastFormatContext): string {
  const node = cast.format;
  if (node.kind !== 'literal' || node.type !== 'string' || typeof node.value !== 'string') return cast.refuse('CAST ... FORMAT with a format that is not a string literal');
  return node.value;
}

/** A DATE, DATETIME, TIME or TIMESTAMP as text in a format model (a TIMESTAMP in a time zone, UTC by default). */
function timeToString(cast: CastFormatContext, kind: TimeKind, format: string): string {
  if (cast.timeZone !== undefined && kind !== 'timestamp') throw new UnsupportedFormat(`AT TIME ZONE of a ${kind.toUpperCase()} (an error in BigQuery: only a TIMESTAMP has a time zone)`);
  const local = kind === 'date' ? `CAST(${cast.operand} AS TIMESTAMP)` : kind === 'time' ? `(DATE '1970-01-01' + ${cast.operand})` : cast.operand;
  const value: CastFormatValue = { local, refuse: cast.refuse };
  if (kind === 'timestamp') {
    const zone = cast.timeZone;
    value.instant = cast.operand;
    value.local = `timezone(${duckZone(zone?.sql ?? `'UTC'`)}, ${cast.operand})`;
    value.zone = zone === undefined ? 'UTC' : zone.node.kind === 'literal' && typeof zone.node.value === 'string' ? zone.node.value : undefined;
  }
  return castFormatSql(format, kind, value);
}

/** `text`, or an error (NULL in SAFE_CAST) where it holds a character past ASCII. */
function asciiOnly(cast: CastFormatContext, text: string, then: (text: string) => string, type: string): string {
  const value = repeatable(text, cast.refuse);
  return `(CASE WHEN regexp_matches(${value}, ${NOT_ASCII}) THEN ${fail(cast, 'CAST ... FORMAT \'ASCII\' of a value that is not ASCII', type)} ELSE ${then(value)} END)`;
}

/** An INT64, NUMERIC or FLOAT64 as text in a numeric format model, written by a host function. */
function numberToString(cast: CastFormatContext, from: StaticType, format: string): string {
  if (format.length > NUMBER_FORMAT_LIMIT) throw new UnsupportedFormat(`a numeric format model of more than ${NUMBER_FORMAT_LIMIT} characters`);
  try {
    parseNumberFormat(format);
  } catch (error) {
    if (error instanceof NumberFormatError) throw new UnsupportedFormat(`'${format}' of ${from === 'int64' ? 'an' : 'a'} ${from.toUpperCase()} (an error in BigQuery: ${error.message})`);
    throw error;
  }
  if (from === 'float64') return hostCall('cast_format_float', quoteString(format), cast.operand);
  return hostCall('cast_format_decimal', quoteString(format), `CAST(${cast.operand} AS VARCHAR)`);
}

function bytesToString(cast: CastFormatContext, format: string): string {
  const decoded = cast.safe ? `TRY(decode(${cast.operand}))` : `decode(${cast.operand})`;
  switch (format.toUpperCase()) {
    case 'HEX':
    case 'BASE16':
      return `lower(hex(${cast.operand}))`;
    case 'BASE64':
      return `to_base64(${cast.operand})`;
    case 'UTF-8':
    case 'UTF8':
      return decoded;
    case 'ASCII':
      return asciiOnly(cast, decoded, (text) => text, 'VARCHAR');
    default:
      throw new UnsupportedFormat(`'${format}' of BYTES (supported: HEX, BASE16, BASE64, UTF-8, UTF8, ASCII)`);
  }
}

function stringToBytes(cast: CastFormatContext, format: string): string {
  switch (format.toUpperCase()) {
    case 'UTF-8':
    case 'UTF8':
      return `encode(${cast.operand})`;
    case 'ASCII':
      return asciiOnly(cast, cast.operand, (text) => `encode(${text})`, 'BLOB');
    default:
      throw new UnsupportedFormat(`'${format}' of a STRING to BYTES (supported: UTF-8, UTF8, ASCII)`);
  }
}

/** To STRING from one type: its text, or UnsupportedFormat. */
function toString(cast: CastFormatContext, from: StaticType, format: string): string {
  if (TIME_KINDS.includes(from)) return timeToString(cast, from as TimeKind, format);
  if (cast.timeZone !== undefined) throw new UnsupportedFormat(`AT TIME ZONE of a ${from.toUpperCase()}`);
  if (from === 'bytes') return bytesToString(cast, format);
  if (NUMBER_KINDS.includes(from)) return numberToString(cast, from, format);
  throw new UnsupportedFormat(`of a ${from.toUpperCase()} to STRING`);
}

/**
 * Where the query does not say the operand's type (a column), DuckDB picks the branch by the
 * value's type; a branch whose type cannot be written with the format (HH24 of a DATE) is an error
 * when taken, as it is in BigQuery, and refused only when none can be.
 */
function untypedToString(cast: CastFormatContext, format: string): string {
  const unsupported = new Map<StaticType, string>();
  const branch = (from: StaticType) => (value: string) => {
    try {
      return toString({ ...cast, operand: value }, from, format);
    } catch (error) {
      if (!(error instanceof UnsupportedFormat)) throw error;
      unsupported.set(from, error.message);
      return raise(`CAST ... FORMAT with ${error.message}`, 'VARCHAR');
    }
  };
  const kinds: StaticType[] = [...TIME_KINDS, 'bytes', ...NUMBER_KINDS];
  const sql = byType(cast.operand, undefined, { ...Object.fromEntries(kinds.map((kind) => [kind, branch(kind)])), otherwise: () => raise('CAST ... FORMAT of this type to STRING is not supported on the embedded engine', 'VARCHAR') }, cast.refuse);
  // A TIMESTAMP takes every element, so its reason names the element when none can be written.
  return unsupported.size === kinds.length ? cast.refuse(`CAST ... FORMAT with ${unsupported.get('timestamp')!}`) : sql;
}

function duckDbCastFormat(cast: CastFormatContext): string {
  const target = cast.type.element || cast.type.fields || cast.type.params ? undefined : cast.type.name;
  const from = cast.typeOf(cast.node);
  const format = literalFormat(cast);
  try {
    if (target === 'STRING') return from === undefined ? untypedToString(cast, format) : toString(cast, from, format);
    if (target === 'BYTES' && from === 'string' && cast.timeZone === undefined) return stringToBytes(cast, format);
  } catch (error) {
    if (error instanceof UnsupportedFormat) return cast.refuse(`CAST ... FORMAT ${error.message.startsWith('of ') ? '' : 'with '}${error.message}`);
    throw error;
  }
  return cast.refuse(`CAST ... FORMAT of ${from === undefined ? 'a value whose type the query does not say' : `a ${from.toUpperCase()}`} to ${target ?? 'this type'}`);
}

function bigQueryCastFormat(cast: CastFormatContext): string {
  const zone = cast.timeZone === undefined ? '' : ` AT TIME ZONE ${cast.timeZone.sql}`;
  return `${cast.safe ? 'SAFE_CAST' : 'CAST'}(${cast.operand} AS ${cast.typeSql} FORMAT ${cast.formatSql}${zone})`;
}

/** CAST with a format clause, as each dialect writes it. */
export const CAST_FORMAT: Readonly<Record<DialectName, (cast: CastFormatContext) => string>> = {
  bigquery: bigQueryCastFormat,
  duckdb: duckDbCastFormat,
};
