/**
 * Answers whose rows DuckDB writes as JSON text, byte for byte what JSON.stringify writes of the
 * wire rows result-rows.ts would have read (docs/http.md, "Rows written by DuckDB"). Converting
 * each value to JS and encoding it again was a third of logs.all's time at 10M (its `metadata`
 * is a record of some 200 fields): DuckDB writes a row's text in one call.
 *
 * Only where the bytes are provably the same: every column of a type in the set below, no name
 * JSON.stringify would order or treat otherwise (an array index such as "1" goes first in a JS
 * object; `__proto__` is not a field there), write-backs of records only, no redaction.
 * Anything else is read by result-rows.ts as before. test/backends/duckdb/json-rows.test.ts
 * compares the two paths.
 *
 * Where DuckDB's JSON differs from the wire format, the SQL says how: an INT64 past 2^53 and a
 * TIMESTAMP's microseconds are written by to_json of their decimal text, a NULL array is `[]`,
 * an array holding NULL fails as result-rows.ts fails it, and a stored record written back as a
 * list is `[record]` (write-back.ts; here only over the rows answered, after the query's
 * LIMIT). DuckDB escapes nine control characters in upper-case hex (`\u001F`) where
 * JSON.stringify writes lower case; jsonRowText lowers them.
 *
 * The column types are those of an earlier answer to the same SQL (backend.ts); the query can
 * be bound otherwise this time (a parameter's value of another type, a table altered since), so
 * the text checks them: typeof folds to a constant, and a changed type fails the query with
 * TYPES_CHANGED, which the backend answers by reading the rows the other way.
 */
import { DuckDBListType, DuckDBStructType, DuckDBTypeId, type DuckDBType } from '#duckdb-api';
import { quoteIdentifier, quoteString as quoteLiteral } from '../../sql/dialects/duckdb/quote.js';
import type { WriteBack } from '../../sql/parse/tree.js';
import { NULL_ELEMENT_MESSAGE } from './values.js';

export interface ResultColumn {
  /** As the answer names it (deduplicated: `id`, `id:1`). */
  name: string;
  type: DuckDBType;
  /** The generator's write-back of the column (write-back.ts), done here in SQL. */
  writeBack?: WriteBack | undefined;
}

export const TYPES_CHANGED = 'cannery: the answer columns changed type after they were read';

/** Integers written as JSON numbers by both: JSON.stringify writes every one of these exactly. */
const PLAIN: ReadonlyMap<DuckDBTypeId, string> = new Map([
  [DuckDBTypeId.VARCHAR, 'VARCHAR'],
  [DuckDBTypeId.BOOLEAN, 'BOOLEAN'],
  [DuckDBTypeId.TINYINT, 'TINYINT'],
  [DuckDBTypeId.SMALLINT, 'SMALLINT'],
  [DuckDBTypeId.INTEGER, 'INTEGER'],
  [DuckDBTypeId.UTINYINT, 'UTINYINT'],
  [DuckDBTypeId.USMALLINT, 'USMALLINT'],
  [DuckDBTypeId.UINTEGER, 'UINTEGER'],
]);

/** 2^53: past it the wire writes an integer's decimal text (core/wire-integer.ts). */
const EXACT = '9007199254740992';

/** A JS array index ("0", "1", ...): an object lists those first whatever their order. */
const ARRAY_INDEX = /^(?:0|[1-9]\d*)$/;

/**
 * The query whose one column is each row's JSON text, at most `maxRows` rows of `sql`; undefined
 * where a column is outside what is written the same way.
 */
export function jsonRowsSql(sql: string, columns: readonly ResultColumn[], maxRows: number): string | undefined {
  const members: string[] = [];
  const checks: string[] = [];
  for (const [index, column] of columns.entries()) {
    const typeText = sqlType(column.type);
    if (typeText === undefined || !safeName(column.name) || !writtenBack(column.type, column.writeBack)) return undefined;
    const reference = `q.${quoteIdentifier(`c${index}`)}`;
    members.push(`${quoteLiteral(column.name)}, ${wireExpression(reference, column.type, 0, column.writeBack).sql}`);
    checks.push(`typeof(${reference}) = typeof(CAST(NULL AS ${typeText}))`);
  }
  if (members.length === 0) return undefined;
  const names = columns.map((_, index) => quoteIdentifier(`c${index}`)).join(', ');
  // The limit sits under the conversion so that no row past max_rows is converted (or fails
  // there) where result-rows.ts never reads it; a projection keeps the order of its input.
  // The newline ends a trailing `--` comment of the query.
  return `SELECT CASE WHEN ${checks.join(' AND ')} THEN json_object(${members.join(', ')})::VARCHAR ELSE error(${quoteLiteral(TYPES_CHANGED)}) END AS row_json FROM (SELECT * FROM (${sql}\n) AS inner_query (${names}) LIMIT ${maxRows}) AS q`;
}

/** DuckDB's escapes of U+000B, U+000E, U+000F and U+001A-U+001F, in upper-case hex, as JSON.stringify writes them. */
export function jsonRowText(text: string): string {
  if (!text.includes('\\u00')) return text;
  // Pairs are matched from the left, so an escaped backslash followed by `u001F` stays text.
  return text.replace(/\\(?:\\|u00[01][A-F])/g, (escape) => (escape.length === 2 ? escape : escape.toLowerCase()));
}

/** The DuckDB type text of a type in the set, or undefined. */
function sqlType(type: DuckDBType): string | undefined {
  if (type.alias !== undefined) return undefined;
  const plain = PLAIN.get(type.typeId);
  if (plain !== undefined) return plain;
  if (type.typeId === DuckDBTypeId.BIGINT) return 'BIGINT';
  if (type.typeId === DuckDBTypeId.TIMESTAMP_TZ) return 'TIMESTAMP WITH TIME ZONE';
  if (type instanceof DuckDBListType) {
    const element = sqlType(type.valueType);
    return element === undefined ? undefined : `${element}[]`;
  }
  if (type instanceof DuckDBStructType) {
    const fields: string[] = [];
    for (const [index, name] of type.entryNames.entries()) {
      const field = sqlType(type.entryTypes[index]!);
      if (field === undefined || !safeName(name)) return undefined;
      fields.push(`${quoteIdentifier(name)} ${field}`);
    }
    return `STRUCT(${fields.join(', ')})`;
  }
  return undefined;
}

/**
 * Whether a write-back names only records (write-back.ts leaves any other value as it is, but
 * NULL, which it writes `[]`): a field it names that the record lacks it skips, as here.
 */
function writtenBack(type: DuckDBType, writeBack: WriteBack | undefined): boolean {
  if (writeBack === undefined) return true;
  if (!(type instanceof DuckDBStructType)) return false;
  return Object.entries(writeBack.fields).every(([name, field]) => {
    const index = type.entryNames.indexOf(name);
    return index === -1 || writtenBack(type.entryTypes[index]!, field);
  });
}

/** Empty names and NULs are not written in DuckDB's SQL text (quote.ts). */
function safeName(name: string): boolean {
  return !ARRAY_INDEX.test(name) && name !== '__proto__' && name !== '' && !name.includes('\u0000');
}

/**
 * An expression whose JSON (to_json's, or json_object's of it) is the wire value of `value`;
 * `plain` where that is `value` itself.
 */
function wireExpression(value: string, type: DuckDBType, depth: number, writeBack?: WriteBack): { sql: string; plain: boolean } {
  if (PLAIN.has(type.typeId)) return { sql: value, plain: true };
  if (type.typeId === DuckDBTypeId.BIGINT) return { sql: wireInteger(value), plain: false };
  if (type.typeId === DuckDBTypeId.TIMESTAMP_TZ) {
    // An infinite TIMESTAMP's microseconds are INT64's largest, positive or negative, as read.
    const micros = `epoch_us(${value})`;
    return {
      sql: `CASE WHEN ${value} IS NULL OR isfinite(${value}) THEN ${wireInteger(micros)} WHEN ${value} > '1970-01-01 00:00:00+00'::TIMESTAMPTZ THEN to_json('9223372036854775807') ELSE to_json('-9223372036854775807') END`,
      plain: false,
    };
  }
  if (type instanceof DuckDBListType) {
    const element = `x${depth}`;
    const items = wireExpression(element, type.valueType, depth + 1);
    const list = items.plain ? value : `list_transform(${value}, lambda ${element}: ${items.sql})`;
    // A NULL array in an array is `[]`, not a NULL element (vector-readers.ts).
    const nullElement = type.valueType instanceof DuckDBListType ? '' : ` WHEN list_count(${value}) < len(${value}) THEN error(${quoteLiteral(NULL_ELEMENT_MESSAGE)})`;
    return { sql: `CASE WHEN ${value} IS NULL THEN []${nullElement} ELSE ${list} END`, plain: false };
  }
  if (type instanceof DuckDBStructType) {
    const fields = type.entryNames.map((name, index) => ({
      name,
      ...wireExpression(`${value}.${quoteIdentifier(name)}`, type.entryTypes[index]!, depth, writeBack?.fields[name]),
    }));
    if (writeBack === undefined && fields.every((field) => field.plain)) return { sql: value, plain: true };
    const packed = `struct_pack(${fields.map((field) => `${quoteIdentifier(field.name)} := ${field.sql}`).join(', ')})`;
    // A record written back as a list is its one element, or `[]` for no record.
    if (writeBack?.list) return { sql: `CASE WHEN ${value} IS NULL THEN [] ELSE [${packed}] END`, plain: false };
    return { sql: `CASE WHEN ${value} IS NULL THEN NULL ELSE ${packed} END`, plain: false };
  }
  throw new Error(`no wire expression for ${type.toString()}`);
}

function wireInteger(value: string): string {
  return `CASE WHEN ${value} BETWEEN -${EXACT} AND ${EXACT} THEN to_json(${value}) ELSE to_json(CAST(${value} AS VARCHAR)) END`;
}
