/**
 * `cannery import --source NAME FILE` into a user-declared source (declared-tables.ts): NDJSON, CSV
 * or Parquet, gzipped or not, read by DuckDB's own readers with the declared types (read_json and
 * read_csv told every column's type, read_parquet's checked against them before a row is read), so
 * a value that does not fit its field is an error, never a column widened to hold it.
 *
 * The guarantees of the log import (import.ts) hold: one transaction with a row in the imports
 * ledger (a repeat is refused, a failure leaves nothing), memory bounded by DuckDB's memory_limit
 * as its readers stream the file into the table, errors naming the line (or row) and the field.
 * Rows are stored in the input's order, as the log import stores them (a sort costs more than it
 * saves at import; `cannery compact` sorts by the time column).
 */
import { randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import {
  DuckDBDecimalType,
  DuckDBListType,
  DuckDBStructType,
  DuckDBTypeId,
  structValue,
  type DuckDBConnection,
  type DuckDBType,
  type DuckDBValue,
} from '#duckdb-api';
import type { DeclaredField, SourceDeclaration } from '../../../config/source-declaration.js';
import { quoteIdentifier, quoteString } from '../../../sql/dialects/duckdb/quote.js';
import { DataError } from '../data-error.js';
import { declaredDuckdbType, ensureDeclaredTable } from '../declared-tables.js';
import { InputDigest } from './input-digest.js';
import { findImport, recordImport, type LedgerEntry } from './ledger.js';
import { createStagingFolder, removeStagingFolder } from './staging.js';

export type DeclaredFormat = 'ndjson' | 'csv' | 'parquet';

export interface FileFormat {
  format: DeclaredFormat;
  gzip: boolean;
}

const EXTENSIONS: Readonly<Record<string, DeclaredFormat>> = { ndjson: 'ndjson', jsonl: 'ndjson', json: 'ndjson', csv: 'csv', parquet: 'parquet' };

/** The format of `path`, from `--format` (`csv`, `ndjson.gz`...) or else its extension. */
export function fileFormat(path: string, flag?: string): FileFormat {
  const text = (flag ?? path).toLowerCase();
  const gzip = /\.gz$|^gz$|gzip$/.test(text) || (flag !== undefined && /\.gz$/.test(path.toLowerCase()));
  const stem = text.replace(/\.(gz|gzip)$/, '');
  const ext = flag === undefined ? /\.([a-z]+)$/.exec(stem)?.[1] : stem.replace(/^\./, '');
  const format = ext === undefined ? undefined : EXTENSIONS[ext];
  if (format === undefined) {
    throw new RangeError(
      flag === undefined
        ? `cannot tell the format of ${path} from its name: name it .ndjson, .jsonl, .csv or .parquet (optionally .gz), or pass --format ndjson|csv|parquet`
        : `unknown --format ${flag}: one of ndjson, csv, parquet (ndjson.gz, csv.gz, parquet.gz for gzip)`,
    );
  }
  return { format, gzip };
}

export interface DeclaredImportOptions {
  format?: FileFormat;
  batchId?: string;
  /** Where a gzipped Parquet file is unpacked (DuckDB reads Parquet only from a plain file); default: the system's temporary folder. */
  tempDirectory?: string;
  /** Called as the input is read (its digest is taken first): bytes so far, and rows once loaded. */
  onProgress?: (progress: { events: number; bytes: number }) => void;
}

export interface DeclaredImportResult {
  rows: number;
  batchId: string;
  bytes: number;
  sha256: string;
  /** The earlier import of these same bytes into this source, when there was one: nothing was written. */
  previous?: LedgerEntry;
}

export async function importDeclared(
  connection: DuckDBConnection,
  source: SourceDeclaration,
  path: string,
  options: DeclaredImportOptions = {},
): Promise<DeclaredImportResult> {
  const batchId = options.batchId ?? randomUUID();
  const format = options.format ?? fileFormat(path);
  // The digest is the ledger's key; taken first, so a repeat costs a read of the file, not a load rolled back.
  const digest = new InputDigest();
  let bytes = 0;
  for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20 })) {
    digest.update(chunk as Buffer);
    bytes += (chunk as Buffer).length;
    options.onProgress?.({ events: 0, bytes });
  }
  const { sha256, headSha256 } = digest.digest();
  const previous = await findImport(connection, source.name, sha256);
  if (previous !== undefined) return { rows: 0, batchId, bytes, sha256, previous };

  const rows = await loadInTransaction(connection, source, path, format, { batchId, sha256, headSha256, bytes }, options.tempDirectory, (events) =>
    options.onProgress?.({ events, bytes }),
  );
  return { rows, batchId, bytes, sha256 };
}

/**
 * A staged NDJSON file of events sent over HTTP (engine/ingest) into `source`, in one transaction
 * with its ledger row: the same reader and guarantees as a file's import, without the check for a
 * repeat (the same events sent twice are twice the events, as in any event API).
 */
export async function loadDeclaredBatch(
  connection: DuckDBConnection,
  source: SourceDeclaration,
  file: string,
  entry: { batchId: string; sha256: string; headSha256: string; bytes: number },
): Promise<number> {
  return loadInTransaction(connection, source, file, { format: 'ndjson', gzip: false }, entry, undefined, () => undefined);
}

async function loadInTransaction(
  connection: DuckDBConnection,
  source: SourceDeclaration,
  path: string,
  format: FileFormat,
  entry: { batchId: string; sha256: string; headSha256: string; bytes: number },
  tempDirectory: string | undefined,
  onRows: (rows: number) => void,
): Promise<number> {
  let folder: string | undefined;
  await connection.run('BEGIN TRANSACTION');
  try {
    await ensureDeclaredTable(connection, source);
    let file = path;
    if (format.format === 'parquet' && format.gzip) {
      folder = await createStagingFolder(tempDirectory ?? tmpdir());
      file = join(folder, 'input.parquet');
      await pipeline(createReadStream(path), createGunzip(), createWriteStream(file));
    }
    const reader = await readerSql(connection, source, file, format);
    let rows: number;
    try {
      const result = await connection.run(`INSERT INTO ${quoteIdentifier(source.name)} BY NAME ${reader.select}`, reader.values);
      rows = Number(result.rowsChanged);
    } catch (error) {
      // A failed statement leaves the transaction aborted; the failing line is found outside it.
      await rollbackAfter(connection);
      throw await inInputTerms(connection, error, source, path, format, reader);
    }
    onRows(rows);
    if (rows > 0) await recordImport(connection, { ...entry, source: source.name, events: rows });
    await connection.run('COMMIT');
    return rows;
  } catch (error) {
    await rollbackAfter(connection);
    throw error;
  } finally {
    if (folder !== undefined) await removeStagingFolder(folder);
  }
}

interface ReaderSql {
  /** `SELECT ... FROM read_x(...)`, the declared columns by name. */
  select: string;
  values: Record<string, DuckDBValue>;
  /** The reader alone (`read_x(...)`), for locating a failing row. */
  from: string;
  /** Top-level INT64 columns, read as text (textReadColumn). */
  wholeColumns?: string[];
  /** The declared columns the file holds (CSV: in the file's order). */
  columns: DeclaredField[];
}

/** Whether a BYTES field is nested in `field`: NDJSON and CSV carry bytes as base64 text, decoded per top-level column only. */
function nestedBytes(field: DeclaredField, path: string, top: boolean): string | undefined {
  if (field.type === 'BYTES' && !(top && field.mode !== 'REPEATED')) return path;
  for (const inner of field.fields ?? []) {
    const found = nestedBytes(inner, `${path}.${inner.name}`, false);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** A top-level column as the reader is told to read it, and how the SELECT turns that into the declared value. */
function textReadColumn(field: DeclaredField, format: DeclaredFormat, source: SourceDeclaration): { type: string; select: string } {
  const nested = nestedBytes(field, field.name, true);
  if (nested !== undefined) {
    throw new DataError('unsupported_table', `source ${source.name}: ${nested} is a BYTES field inside a RECORD or REPEATED column, which cannery loads only from Parquet, not ${format === 'csv' ? 'CSV' : 'NDJSON'}`, { field: nested });
  }
  const name = quoteIdentifier(field.name);
  // BigQuery's loads read BYTES as base64 text.
  if (field.type === 'BYTES') return { type: 'VARCHAR', select: `from_base64(${name}) AS ${name}` };
  // DuckDB's readers round `1.5` into a BIGINT; BigQuery's loads refuse it. Read as text, a value
  // that is not a whole number fails the cast (and is then found by line, inInputTerms).
  if (field.type === 'INT64' && field.mode !== 'REPEATED') {
    return { type: 'VARCHAR', select: `CAST(CASE WHEN ${notWhole(name)} THEN 'not a whole number' ELSE ${name} END AS BIGINT) AS ${name}` };
  }
  // The same within records and lists: their INT64s read as text, checked, then cast (a cast of
  // text rounds `1.5` too), so no nested value is rounded where BigQuery's load refuses it.
  const misfits = notWholeWithin(field, name);
  if (misfits !== undefined) {
    return { type: textIntegersType(field), select: `${storedList(field, `(CASE WHEN coalesce(${misfits}, false) THEN error(${quoteString(NESTED_NOT_WHOLE)}) ELSE CAST(${name} AS ${declaredDuckdbType(field)}) END)`)} AS ${name}` };
  }
  return { type: declaredDuckdbType(field), select: holdsRepeated(field) ? `${storedList(field, name)} AS ${name}` : name };
}

/**
 * A column's value as BigQuery stores it: a REPEATED field, at the top or inside a RECORD, is never
 * NULL, a missing or null array is an empty one (so ARRAY_LENGTH is 0 and IS NULL false, as
 * there). `sql` when the column holds no REPEATED field.
 */
function storedList(field: DeclaredField, sql: string, depth = 0): string {
  if (!holdsRepeated(field)) return sql;
  const record = (value: string): string => {
    if (field.type !== 'RECORD' || !(field.fields ?? []).some(holdsRepeated)) return value;
    const fields = (field.fields ?? []).map((inner) => `${quoteIdentifier(inner.name)} := ${storedList(inner, `struct_extract(${value}, ${quoteString(inner.name)})`, depth + 1)}`);
    return `CASE WHEN ${value} IS NULL THEN NULL ELSE struct_pack(${fields.join(', ')}) END`;
  };
  if (field.mode !== 'REPEATED') return record(sql);
  const variable = `__cannery_r${depth}`;
  const each = record(variable);
  const list = each === variable ? sql : `list_transform(${sql}, ${variable} -> ${each})`;
  return `coalesce(${list}, CAST([] AS ${declaredDuckdbType(field)}))`;
}

function holdsRepeated(field: DeclaredField): boolean {
  return field.mode === 'REPEATED' || (field.fields ?? []).some(holdsRepeated);
}

/** The error a nested INT64 that is not a whole number raises; the failing line is then found by reading the file. */
const NESTED_NOT_WHOLE = 'cannery: a nested INT64 value is not a whole number';

/** Whether some INT64 within `field`'s value `sql` (read as text) is not a whole number, or undefined when it holds none. */
function notWholeWithin(field: DeclaredField, sql: string, depth = 0): string | undefined {
  const element = (value: string): string | undefined => {
    if (field.type === 'INT64') return notWhole(value);
    if (field.type !== 'RECORD') return undefined;
    const inner = (field.fields ?? []).map((child) => notWholeWithin(child, `${value}.${quoteIdentifier(child.name)}`, depth + 1)).filter((found) => found !== undefined);
    return inner.length === 0 ? undefined : inner.map((found) => `coalesce(${found}, false)`).join(' OR ');
  };
  if (field.mode !== 'REPEATED') return element(sql);
  const variable = `__cannery_e${depth}`;
  const each = element(variable);
  return each === undefined ? undefined : `list_bool_or(list_transform(${sql}, ${variable} -> coalesce(${each}, false)))`;
}

/** The DuckDB type of `field` with every INT64 within it read as text. */
function textIntegersType(field: DeclaredField): string {
  const element =
    field.type === 'INT64'
      ? 'VARCHAR'
      : field.type === 'RECORD'
        ? `STRUCT(${(field.fields ?? []).map((inner) => `${quoteIdentifier(inner.name)} ${textIntegersType(inner)}`).join(', ')})`
        : declaredDuckdbType({ ...field, mode: 'NULLABLE' });
  return field.mode === 'REPEATED' ? `${element}[]` : element;
}

/** Whether the text of column `name` is not an INT64 as BigQuery writes one (NULL is not this). */
function notWhole(name: string): string {
  return `NOT regexp_full_match(trim(${name}), '[+-]?[0-9]+')`;
}

async function readerSql(connection: DuckDBConnection, source: SourceDeclaration, file: string, format: FileFormat): Promise<ReaderSql> {
  const compression = format.gzip ? 'gzip' : 'uncompressed';
  if (format.format === 'ndjson') {
    const reads = source.columns.map((column) => ({ column, ...textReadColumn(column, 'ndjson', source) }));
    const from = `read_json($file, format = 'newline_delimited', compression = $compression, columns = $columns)`;
    return {
      select: `SELECT ${reads.map((read) => read.select).join(', ')} FROM ${from}`,
      values: { file, compression, columns: structValue(Object.fromEntries(reads.map((read) => [read.column.name, read.type]))) },
      from,
      columns: source.columns,
      wholeColumns: wholeColumns(source.columns),
    };
  }
  if (format.format === 'csv') {
    const repeated = source.columns.find((column) => column.mode === 'REPEATED' || column.type === 'RECORD');
    if (repeated !== undefined) {
      throw new DataError('unsupported_table', `source ${source.name}: ${repeated.name} is ${repeated.mode === 'REPEATED' ? 'REPEATED' : 'a RECORD'}, which a CSV file cannot hold (as in BigQuery); load this source from NDJSON or Parquet`, { field: repeated.name });
    }
    const header = await csvHeader(connection, file, compression);
    const declared = new Map(source.columns.map((column) => [column.name.toLowerCase(), column]));
    const columns = header.map((name) => {
      const column = declared.get(name.toLowerCase());
      if (column === undefined) throw new DataError('invalid_event', `line 1: column ${name} of ${file} is not declared in source ${source.name} (declared: ${source.columns.map((c) => c.name).join(', ')})`, { line: 1, field: name });
      return column;
    });
    missingRequired(source, columns, 'line 1: the header');
    const reads = columns.map((column) => ({ column, ...textReadColumn(column, 'csv', source) }));
    // The header's names, in its order, with the declared types; the sniffer decides only the dialect (delimiter, quoting).
    const from = `read_csv($file, header = true, compression = $compression, columns = $columns)`;
    return {
      select: `SELECT ${reads.map((read) => read.select).join(', ')} FROM ${from}`,
      values: { file, compression, columns: structValue(Object.fromEntries(reads.map((read) => [read.column.name, read.type]))) },
      from,
      columns,
      wholeColumns: wholeColumns(columns),
    };
  }
  const probe = await connection.runAndReadAll(`SELECT * FROM read_parquet($file) LIMIT 0`, { file });
  const names = probe.columnNames();
  const types = probe.columnTypes();
  const declared = new Map(source.columns.map((column) => [column.name.toLowerCase(), column]));
  const columns: DeclaredField[] = [];
  const selects: string[] = [];
  names.forEach((name, index) => {
    const column = declared.get(name.toLowerCase());
    // A Parquet file's other columns are left out, as a SELECT of the declared ones would.
    if (column === undefined) return;
    const problem = parquetFits(types[index]!, column, column.mode === 'REPEATED', column.name);
    if (problem !== undefined) throw new DataError('invalid_event', `column ${problem.path}: ${problem.why} in ${file}, declared ${describeField(column)} in source ${source.name}`, { field: problem.path });
    columns.push(column);
    selects.push(`${storedList(column, `CAST(${quoteIdentifier(name)} AS ${declaredDuckdbType(column)})`)} AS ${quoteIdentifier(column.name)}`);
  });
  missingRequired(source, columns, `${file}`);
  return { select: `SELECT ${selects.join(', ')} FROM read_parquet($file)`, values: { file }, from: 'read_parquet($file)', columns };
}

function wholeColumns(columns: readonly DeclaredField[]): string[] {
  return columns.filter((column) => column.type === 'INT64' && column.mode !== 'REPEATED').map((column) => column.name);
}

function missingRequired(source: SourceDeclaration, present: readonly DeclaredField[], where: string): void {
  const missing = source.columns.find((column) => column.mode === 'REQUIRED' && !present.includes(column));
  if (missing !== undefined) throw new DataError('invalid_event', `${where} has no column ${missing.name}, which source ${source.name} declares REQUIRED`, { field: missing.name });
}

function describeField(field: DeclaredField): string {
  return field.mode === 'NULLABLE' ? field.type : `${field.mode} ${field.type}`;
}

/** The header of a CSV file, as DuckDB's sniffer reads it. */
async function csvHeader(connection: DuckDBConnection, file: string, compression: string): Promise<string[]> {
  const reader = await connection.runAndReadAll(`SELECT * FROM read_csv($file, header = true, all_varchar = true, compression = $compression) LIMIT 0`, { file, compression });
  return reader.columnNames();
}

const INTEGER_TYPES: ReadonlySet<DuckDBTypeId> = new Set([
  DuckDBTypeId.TINYINT,
  DuckDBTypeId.SMALLINT,
  DuckDBTypeId.INTEGER,
  DuckDBTypeId.BIGINT,
  DuckDBTypeId.UTINYINT,
  DuckDBTypeId.USMALLINT,
  DuckDBTypeId.UINTEGER,
]);

/**
 * Why a Parquet column's type cannot be read as the declared field without changing values, if it
 * cannot: the casts allowed are the exact ones (narrower integers, FLOAT to FLOAT64, a DECIMAL
 * NUMERIC holds, Parquet's timestamps to TIMESTAMP or DATETIME); any other is an error here, before
 * any row is read, not a value changed on the way in.
 */
function parquetFits(type: DuckDBType, field: DeclaredField, repeated: boolean, path: string): { path: string; why: string } | undefined {
  if (repeated) {
    if (!(type instanceof DuckDBListType)) return { path, why: `it is ${type.toString()}, not a list` };
    return parquetFits(type.valueType, field, false, path);
  }
  if (field.type === 'RECORD') {
    if (!(type instanceof DuckDBStructType)) return { path, why: `it is ${type.toString()}, not a struct` };
    for (const inner of field.fields ?? []) {
      const index = type.entryNames.findIndex((name) => name.toLowerCase() === inner.name.toLowerCase());
      // A field the file lacks is NULL, as BigQuery loads it; unless it is REQUIRED.
      if (index < 0) {
        if (inner.mode === 'REQUIRED') return { path: `${path}.${inner.name}`, why: 'it is missing' };
        continue;
      }
      const problem = parquetFits(type.entryTypes[index]!, inner, inner.mode === 'REPEATED', `${path}.${inner.name}`);
      if (problem !== undefined) return problem;
    }
    const unknown = type.entryNames.find((name) => !(field.fields ?? []).some((inner) => inner.name.toLowerCase() === name.toLowerCase()));
    if (unknown !== undefined) return { path: `${path}.${unknown}`, why: 'it is not declared, and a struct cast would drop it' };
    return undefined;
  }
  const id = type.typeId;
  const ok = ((): boolean => {
    switch (field.type) {
      case 'STRING':
        return id === DuckDBTypeId.VARCHAR && type.alias === undefined;
      case 'JSON':
        return id === DuckDBTypeId.VARCHAR;
      case 'BYTES':
        return id === DuckDBTypeId.BLOB;
      case 'INT64':
        return INTEGER_TYPES.has(id);
      case 'FLOAT64':
        return id === DuckDBTypeId.FLOAT || id === DuckDBTypeId.DOUBLE;
      case 'NUMERIC':
        return INTEGER_TYPES.has(id) || (type instanceof DuckDBDecimalType && type.scale <= 9 && type.width - type.scale <= 29);
      case 'BOOL':
        return id === DuckDBTypeId.BOOLEAN;
      case 'DATE':
        return id === DuckDBTypeId.DATE;
      case 'TIME':
        return id === DuckDBTypeId.TIME;
      case 'TIMESTAMP':
      case 'DATETIME':
        return [DuckDBTypeId.TIMESTAMP, DuckDBTypeId.TIMESTAMP_TZ, DuckDBTypeId.TIMESTAMP_MS, DuckDBTypeId.TIMESTAMP_S].includes(id);
      default:
        return false;
    }
  })();
  return ok ? undefined : { path, why: `it is ${type.alias ?? type.toString()}` };
}

/**
 * DuckDB's reader error, in the input's terms: the line (CSV, NDJSON) or row (Parquet) and the
 * field. CSV's message names both; NDJSON's names the line, whose field is found by reading that
 * line's values one by one; a NOT NULL failure names neither, so the first row without a value is found.
 */
async function inInputTerms(
  connection: DuckDBConnection,
  error: unknown,
  source: SourceDeclaration,
  path: string,
  format: FileFormat,
  reader: ReaderSql,
): Promise<unknown> {
  const message = (error as Error).message ?? '';
  const csv = /CSV Error on Line: (\d+)/.exec(message);
  if (format.format === 'csv' && csv) {
    const line = Number(csv[1]);
    const converting = /Error when converting column "([^"]+)"\.\s*([^\n]*)/.exec(message);
    if (converting) {
      const field = converting[1]!;
      const declared = reader.columns.find((column) => column.name === field);
      const value = /Could not convert string "(.*)" to/.exec(converting[2]!)?.[1];
      const reason =
        value !== undefined && declared !== undefined ? `"${value}" is not a valid ${declared.type}` : converting[2]!.trim().replace(/\.$/, '');
      return new DataError('invalid_event', `${path} line ${line}, column ${field}: ${reason}`, { line, field, cause: error });
    }
    const reason = message.split('\n').slice(1).find((text) => text.trim() !== '' && !/^Original Line/.test(text)) ?? message;
    return new DataError('invalid_event', `${path} line ${line}: ${reason.trim()}`, { line, cause: error });
  }
  const json = /in line (\d+): ([^\n]*)/.exec(message);
  if (format.format === 'ndjson' && json) {
    // DuckDB's line is off by some for a value inside a list: the line is found by reading the file.
    const found = await firstMisfitLine(connection, path, format.gzip, reader.columns);
    if (found === undefined) return new DataError('invalid_event', `${path} near line ${json[1]}: ${json[2]!.trim()}`, { cause: error });
    return new DataError('invalid_event', `${path} line ${found.line}, field ${found.path}: ${found.why}`, { line: found.line, field: found.path, cause: error });
  }
  if (message.includes(NESTED_NOT_WHOLE)) {
    const found = await firstMisfitLine(connection, path, format.gzip, reader.columns);
    if (found !== undefined) return new DataError('invalid_event', `${path} line ${found.line}, field ${found.path}: ${found.why}`, { line: found.line, field: found.path, cause: error });
    return new DataError('invalid_event', `${path}: a nested INT64 value is not a whole number (written with a fraction or an exponent), which BigQuery's load refuses`, { cause: error });
  }
  if (/Could not convert string 'not a whole number' to INT64/.test(message)) {
    for (const column of reader.wholeColumns ?? []) {
      const quoted = quoteIdentifier(column);
      const found = await firstRowWhere(connection, `SELECT * FROM ${reader.from}`, reader.values, `${quoted} IS NOT NULL AND ${notWhole(quoted)}`, quoted);
      if (found === undefined) continue;
      const line = format.format === 'csv' ? found.row + 1 : found.row;
      const where = format.format === 'csv' ? `line ${line}, column` : `line ${line} (not counting blank lines), field`;
      return new DataError('invalid_event', `${path} ${where} ${column}: "${found.value}" is not a valid INT64`, { line, field: column, cause: error });
    }
  }
  // `table.column`, where the table's name may hold dots itself.
  const failed = /NOT NULL constraint failed: (\S+)/.exec(message)?.[1];
  const column = failed === undefined ? undefined : source.columns.find((declared) => failed.endsWith(`.${declared.name}`))?.name;
  if (column !== undefined) {
    const row = (await firstRowWhere(connection, reader.select, reader.values, `${quoteIdentifier(column)} IS NULL`))?.row;
    const where = row === undefined ? '' : format.format === 'csv' ? ` line ${row + 1}` : format.format === 'ndjson' ? ` line ${row} (not counting blank lines)` : ` row ${row}`;
    return new DataError('invalid_event', `${path}${where}, column ${column}: no value, and source ${source.name} declares it REQUIRED`, { field: column, ...(row === undefined ? {} : { line: row }), cause: error });
  }
  return error;
}

/** The position (from 1) of the first row `select` yields where `condition` holds, and its value of `column`, if given. */
async function firstRowWhere(
  connection: DuckDBConnection,
  select: string,
  values: Record<string, DuckDBValue>,
  condition: string,
  column?: string,
): Promise<{ row: number; value: string } | undefined> {
  try {
    const result = await connection.runAndReadAll(
      // Named apart from any declared column.
      `SELECT __cannery_row${column === undefined ? '' : `, ${column} AS __cannery_value`} FROM (SELECT row_number() OVER () AS __cannery_row, * FROM (${select})) WHERE ${condition} ORDER BY __cannery_row LIMIT 1`,
      values,
    );
    const row = result.getRowObjectsJS()[0] as { __cannery_row: bigint; __cannery_value?: unknown } | undefined;
    return row === undefined ? undefined : { row: Number(row.__cannery_row), value: String(row.__cannery_value ?? '') };
  } catch {
    return undefined;
  }
}

/** The first line of an NDJSON file with a value its declared field cannot hold: where DuckDB's reader stopped. */
async function firstMisfitLine(
  connection: DuckDBConnection,
  path: string,
  gzip: boolean,
  columns: readonly DeclaredField[],
): Promise<{ line: number; path: string; why: string } | undefined> {
  const stream = gzip ? createReadStream(path).pipe(createGunzip()) : createReadStream(path);
  const lines = createInterface({ input: stream, crlfDelay: Infinity });
  let line = 0;
  try {
    for await (const text of lines) {
      line += 1;
      const found = await firstMisfit(connection, text, columns);
      if (found !== undefined) return { line, ...found };
    }
  } finally {
    lines.close();
    stream.destroy();
  }
  return undefined;
}

/** The first declared field of one NDJSON line whose value the declared type cannot hold, and why. */
async function firstMisfit(connection: DuckDBConnection, text: string, columns: readonly DeclaredField[]): Promise<{ path: string; why: string } | undefined> {
  let object: unknown;
  try {
    object = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof object !== 'object' || object === null || Array.isArray(object)) return undefined;
  const record = object as Record<string, unknown>;
  for (const column of columns) {
    const found = await misfit(connection, valueOf(record, column.name), column, column.mode === 'REPEATED', column.name);
    if (found !== undefined) return found;
  }
  return undefined;
}

function valueOf(record: Record<string, unknown>, name: string): unknown {
  if (name in record) return record[name];
  const key = Object.keys(record).find((other) => other.toLowerCase() === name.toLowerCase());
  return key === undefined ? undefined : record[key];
}

async function misfit(connection: DuckDBConnection, value: unknown, field: DeclaredField, repeated: boolean, path: string): Promise<{ path: string; why: string } | undefined> {
  if (value === null || value === undefined) return undefined;
  if (repeated) {
    if (!Array.isArray(value)) return { path, why: `${preview(value)} is not an array, and the field is REPEATED` };
    for (const [index, element] of value.entries()) {
      const found = await misfit(connection, element, field, false, `${path}[${index}]`);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  if (field.type === 'RECORD') {
    if (typeof value !== 'object' || Array.isArray(value)) return { path, why: `${preview(value)} is not an object, and the field is a RECORD` };
    for (const inner of field.fields ?? []) {
      const found = await misfit(connection, valueOf(value as Record<string, unknown>, inner.name), inner, inner.mode === 'REPEATED', `${path}.${inner.name}`);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  if (plainlyFits(value, field.type)) return undefined;
  // DuckDB's own transform rounds it; BigQuery refuses it.
  if (field.type === 'INT64' && typeof value === 'number' && !Number.isInteger(value)) return { path, why: `${preview(value)} is not a valid INT64` };
  const type = field.type === 'BYTES' ? 'VARCHAR' : declaredDuckdbType(field);
  try {
    await connection.run(`SELECT json_transform_strict($doc, ${quoteString(JSON.stringify(type))})`, { doc: JSON.stringify(value) });
    if (field.type === 'BYTES') await connection.run('SELECT from_base64($text)', { text: String(value) });
    return undefined;
  } catch {
    return { path, why: `${preview(value)} is not ${field.type === 'BYTES' ? 'base64 text, as a BYTES value is written in JSON' : `a valid ${field.type}`}` };
  }
}

/** Values DuckDB's reader surely takes for the type, told apart in JS: DuckDB is asked only about the rest, while the file is searched. */
function plainlyFits(value: unknown, type: DeclaredField['type']): boolean {
  switch (type) {
    case 'STRING':
    case 'JSON':
      return true;
    case 'INT64':
      return (typeof value === 'number' && Number.isSafeInteger(value)) || (typeof value === 'string' && /^-?\d{1,15}$/.test(value));
    case 'FLOAT64':
    case 'NUMERIC':
      return typeof value === 'number' && Math.abs(value) < 1e15;
    case 'BOOL':
      return typeof value === 'boolean';
    default:
      return false;
  }
}

function preview(value: unknown): string {
  const text = JSON.stringify(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

async function rollbackAfter(connection: DuckDBConnection): Promise<void> {
  try {
    await connection.run('ROLLBACK');
  } catch {
    // Already ended: by an earlier rollback, or by DuckDB itself (out of disk or memory). Nothing of it was written.
  }
}
