/**
 * `cannery import`: NDJSON log events -> a source table.
 *
 * Two passes, one over the input: JS validates and normalises each line into a temporary NDJSON
 * file while learning the schema (every record as a list of objects, whatever its layout), then
 * DuckDB widens the table and bulk-loads the file with `read_json` and explicit column types,
 * reading each record into the table's layout. DuckDB's JSON reader is far faster than any row-by-row
 * path from JS, and the data never passes through SQL text: the file path and the column types
 * are bound parameters.
 */
import { mkdtemp, open, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { structValue, type DuckDBConnection } from '@duckdb/node-api';
import { BUILT_IN_SOURCES, type SourceDescriptor } from '../../../config/sources.js';
import { quoteIdentifier } from '../../../sql/dialects/duckdb/quote.js';
import { EventNormaliser } from './event.js';
import { lineBatches, type TextInput } from './lines.js';
import { cloneShape, emptyRecord, fieldKey, mergeRecord, recordShapeToValueShape, type ScalarType } from '../value-shape.js';
import { ensureSourceTable, readSourceTable, type SourceTable } from '../source-tables.js';
import { stagedMetadata } from '../layout-sql.js';

export interface ImportOptions {
  /** Sources whose declared fields a newly created table gets too, so the shipped SQL can read it. */
  sources?: readonly SourceDescriptor[];
  /** Where the normalised copy of the input is staged; it can be as large as the input. */
  tempDirectory?: string;
}

export interface ImportResult {
  rows: number;
}

const FLUSH_BYTES = 1 << 20;

export async function importNdjson(
  connection: DuckDBConnection,
  sourceName: string,
  input: TextInput,
  options: ImportOptions = {},
): Promise<ImportResult> {
  if (sourceName.trim() === '') throw new RangeError('a source name is required');
  const existing = await readSourceTable(connection, sourceName);
  const metadata = existing === undefined ? emptyRecord() : cloneShape(existing.metadata);
  const declared = (options.sources ?? BUILT_IN_SOURCES).find((source) => source.name === sourceName);
  if (declared !== undefined) mergeRecord(metadata, recordShapeToValueShape(declared.metadata), 'metadata');
  const columns = declared?.columns ?? {};

  const directory = await mkdtemp(join(options.tempDirectory ?? tmpdir(), 'cannery-import-'));
  try {
    const file = join(directory, 'events.ndjson');
    const normaliser = new EventNormaliser(metadata, columns);
    const rows = await stage(input, normaliser, file);
    await load(connection, sourceName, normaliser, columns, file, rows);
    return { rows };
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}

/** Pass one: validate and normalise every line into `file`; returns the number of events. */
async function stage(input: TextInput, normaliser: EventNormaliser, file: string): Promise<number> {
  const handle = await open(file, 'w');
  try {
    let line = 0;
    let rows = 0;
    let buffered: string[] = [];
    let bufferedLength = 0;
    for await (const batch of lineBatches(input)) {
      for (const text of batch) {
        line += 1;
        if (text.trim() === '') continue;
        const json = JSON.stringify(normaliser.normalise(text, line));
        buffered.push(json);
        bufferedLength += json.length + 1;
        rows += 1;
      }
      if (bufferedLength >= FLUSH_BYTES) {
        await handle.write(`${buffered.join('\n')}\n`);
        buffered = [];
        bufferedLength = 0;
      }
    }
    if (buffered.length > 0) await handle.write(`${buffered.join('\n')}\n`);
    return rows;
  } finally {
    await handle.close();
  }
}

/** Pass two: widen the table to the learned schema and bulk-load the staged file, all or nothing. */
async function load(
  connection: DuckDBConnection,
  sourceName: string,
  normaliser: EventNormaliser,
  columns: Readonly<Record<string, ScalarType>>,
  file: string,
  rows: number,
): Promise<void> {
  await connection.run('BEGIN TRANSACTION');
  try {
    const { table } = await ensureSourceTable(connection, sourceName, normaliser.metadata, columns);
    if (rows > 0) await insertStaged(connection, table, columns, file);
    await connection.run('COMMIT');
  } catch (error) {
    await connection.run('ROLLBACK');
    throw error;
  }
}

async function insertStaged(
  connection: DuckDBConnection,
  table: SourceTable,
  own: Readonly<Record<string, ScalarType>>,
  file: string,
): Promise<void> {
  const metadataColumn = table.columns.get('metadata');
  const staged = metadataColumn && stagedMetadata(metadataColumn.type, table.metadata);
  const columns: Record<string, string> = { id: 'VARCHAR', timestamp: 'BIGINT', event_message: 'VARCHAR', project: 'VARCHAR' };
  for (const name of Object.keys(own)) {
    const type = table.columns.get(fieldKey(name))?.type;
    if (type !== undefined) columns[name] = type;
  }
  // No metadata column means no event had a metadata field: nothing staged is lost without it.
  if (staged !== undefined) columns.metadata = staged.type;
  const copied = Object.keys(columns).filter((name) => name !== 'timestamp' && name !== 'metadata').map(quoteIdentifier);
  // In time order, so each row group of the table covers a short span of time, which its zone maps
  // on `timestamp` tell every time-bounded or newest-first query (docs/storage.md).
  await connection.run(
    `INSERT INTO ${quoteIdentifier(table.name)} BY NAME
     SELECT make_timestamptz("timestamp") AS "timestamp", ${copied.join(', ')}${staged === undefined ? '' : `, ${staged.select} AS metadata`}
     FROM read_json($file, format = 'newline_delimited', columns = $columns, maximum_object_size = $maxObjectSize)
     ORDER BY "timestamp"`,
    {
      file,
      columns: structValue(columns),
      // DuckDB's default (16 MiB) would refuse a large event that JSON.parse just accepted.
      maxObjectSize: 1 << 30,
    },
  );
}
