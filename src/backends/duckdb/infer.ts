/**
 * `cannery sources infer FILE`: a source declaration for a sample file, from DuckDB's own sniffer
 * (the types read_csv, read_json and read_parquet detect), in BigQuery's terms as its schema
 * autodetect writes them: a JSON object is a RECORD, an array a REPEATED field (of RECORDs for
 * objects), every other column NULLABLE (a sample cannot prove a value is never missing).
 */
import { basename } from 'node:path';
import { DuckDBDecimalType, DuckDBListType, DuckDBStructType, DuckDBTypeId, type DuckDBConnection, type DuckDBType } from '#duckdb-api';
import type { DeclaredField, DeclaredType, SourceDeclaration } from '../../config/source-declaration.js';
import { DataError } from './data-error.js';
import type { FileFormat } from './import/declared-import.js';

const SCALARS: Partial<Record<DuckDBTypeId, DeclaredType>> = {
  [DuckDBTypeId.VARCHAR]: 'STRING',
  [DuckDBTypeId.UUID]: 'STRING',
  [DuckDBTypeId.ENUM]: 'STRING',
  [DuckDBTypeId.BLOB]: 'BYTES',
  [DuckDBTypeId.BOOLEAN]: 'BOOL',
  [DuckDBTypeId.TINYINT]: 'INT64',
  [DuckDBTypeId.SMALLINT]: 'INT64',
  [DuckDBTypeId.INTEGER]: 'INT64',
  [DuckDBTypeId.BIGINT]: 'INT64',
  [DuckDBTypeId.UTINYINT]: 'INT64',
  [DuckDBTypeId.USMALLINT]: 'INT64',
  [DuckDBTypeId.UINTEGER]: 'INT64',
  // Beyond INT64's range: NUMERIC holds them exactly (29 integer digits).
  [DuckDBTypeId.UBIGINT]: 'NUMERIC',
  [DuckDBTypeId.HUGEINT]: 'NUMERIC',
  [DuckDBTypeId.FLOAT]: 'FLOAT64',
  [DuckDBTypeId.DOUBLE]: 'FLOAT64',
  [DuckDBTypeId.DATE]: 'DATE',
  [DuckDBTypeId.TIME]: 'TIME',
  // Zone-less date-times read as instants in UTC, as BigQuery's autodetect makes them TIMESTAMP.
  [DuckDBTypeId.TIMESTAMP]: 'TIMESTAMP',
  [DuckDBTypeId.TIMESTAMP_TZ]: 'TIMESTAMP',
  [DuckDBTypeId.TIMESTAMP_MS]: 'TIMESTAMP',
  [DuckDBTypeId.TIMESTAMP_S]: 'TIMESTAMP',
  [DuckDBTypeId.TIMESTAMP_NS]: 'TIMESTAMP',
  // A JSON value the sniffer found no one shape for (or only nulls).
  [DuckDBTypeId.SQLNULL]: 'JSON',
};

function field(name: string, type: DuckDBType, repeated: boolean): DeclaredField {
  const mode = repeated ? 'REPEATED' : 'NULLABLE';
  if (type instanceof DuckDBListType) {
    // BigQuery has no array of arrays: an inner list stays a JSON value.
    if (repeated || type.valueType instanceof DuckDBListType) return { name, type: 'JSON', mode };
    return field(name, type.valueType, true);
  }
  if (type instanceof DuckDBStructType) {
    if (type.entryNames.length === 0) return { name, type: 'JSON', mode };
    return { name, type: 'RECORD', mode, fields: type.entryNames.map((entry, index) => field(entry, type.entryTypes[index]!, false)) };
  }
  if (type.alias === 'JSON') return { name, type: 'JSON', mode };
  if (type instanceof DuckDBDecimalType) return { name, type: type.scale <= 9 && type.width - type.scale <= 29 ? 'NUMERIC' : 'BIGNUMERIC', mode };
  const scalar = SCALARS[type.typeId];
  if (scalar === undefined) throw new DataError('unsupported_table', `column ${name} has DuckDB type ${type.toString()}, which has no BigQuery type to declare`, { field: name });
  return { name, type: scalar, mode };
}

/** Names a time column is likely to have, most likely first. */
const TIME_NAMES = [/^(timestamp|event_time|time|ts|created_at|created|occurred_at|date)$/i, /_(at|time|ts|timestamp)$/i, /(time|date)/i];
const TIME_TYPES: ReadonlySet<DeclaredType> = new Set(['TIMESTAMP', 'DATETIME', 'DATE']);

function guessTimeColumn(columns: readonly DeclaredField[]): string | undefined {
  const candidates = columns.filter((column) => column.mode !== 'REPEATED' && TIME_TYPES.has(column.type));
  for (const pattern of TIME_NAMES) {
    const found = candidates.find((column) => pattern.test(column.name));
    if (found !== undefined) return found.name;
  }
  return candidates[0]?.name;
}

/** A source name from a file's name: `orders.csv.gz` -> `orders`. */
export function nameFromFile(path: string): string {
  const stem = basename(path).replace(/(\.(gz|gzip))?$/i, '').replace(/\.[^.]*$/, '');
  const name = stem.replace(/[^A-Za-z0-9_.-]+/g, '_').replace(/^[.-]+|[.-]+$/g, '').replace(/([.-])[.-]+/g, '$1');
  return name === '' ? 'my_source' : name;
}

export async function inferSource(connection: DuckDBConnection, path: string, format: FileFormat, name = nameFromFile(path)): Promise<SourceDeclaration> {
  const compression = format.gzip ? 'gzip' : 'uncompressed';
  const reader =
    format.format === 'csv'
      ? 'read_csv($file, compression = $compression)'
      : format.format === 'ndjson'
        ? "read_json($file, format = 'newline_delimited', compression = $compression)"
        : 'read_parquet($file)';
  if (format.format === 'parquet' && format.gzip) throw new DataError('unsupported_table', 'infer reads a Parquet file as it is, not gzipped: gunzip it first');
  const values: Record<string, string> = format.format === 'parquet' ? { file: path } : { file: path, compression };
  const probe = await connection.runAndReadAll(`SELECT * FROM ${reader} LIMIT 0`, values);
  const types = probe.columnTypes();
  const columns = probe.columnNames().map((column, index) => field(column, types[index]!, false));
  const timeColumn = guessTimeColumn(columns);
  return { name, columns, ...(timeColumn === undefined ? {} : { timeColumn }) };
}

const PLAIN = /^[A-Za-z_][A-Za-z0-9_.-]*$/;

function scalar(text: string): string {
  return PLAIN.test(text) && !/^(true|false|null|yes|no|on|off|y|n)$/i.test(text) ? text : JSON.stringify(text);
}

function fieldYaml(entry: DeclaredField, indent: string): string[] {
  const mode = entry.mode === 'NULLABLE' ? '' : `, mode: ${entry.mode}`;
  if (entry.type !== 'RECORD') return [`${indent}- { name: ${scalar(entry.name)}, type: ${entry.type}${mode} }`];
  return [
    `${indent}- name: ${scalar(entry.name)}`,
    `${indent}  type: RECORD`,
    ...(entry.mode === 'NULLABLE' ? [] : [`${indent}  mode: ${entry.mode}`]),
    `${indent}  fields:`,
    ...(entry.fields ?? []).flatMap((inner) => fieldYaml(inner, `${indent}    `)),
  ];
}

/**
 * The declaration as a source file, with the editor hint endpoint files have; ready to redirect into
 * sources/, from where `schema` is the path to schemas/source.schema.json.
 */
export function sourceFileText(source: SourceDeclaration, sample: string, schema: string): string {
  return [
    `# yaml-language-server: $schema=${schema}`,
    `# Inferred by \`cannery sources infer\` from ${basename(sample)}: check the types, and mark REQUIRED what is never missing.`,
    `name: ${scalar(source.name)}`,
    ...(source.timeColumn === undefined ? [] : [`time_column: ${scalar(source.timeColumn)}`]),
    'columns:',
    ...source.columns.flatMap((column) => fieldYaml(column, '  ')),
    '',
  ].join('\n');
}
