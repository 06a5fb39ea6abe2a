/**
 * One staged batch into its table: DuckDB's `read_json` reads the file with the table's own column
 * types, so every value lands in its column as it is, with no expression per row but the timestamp's.
 * The file path and the column types are bound parameters: no data passes through SQL text.
 */
import { structValue, type DuckDBConnection } from '#duckdb-api';
import { quoteIdentifier } from '../../../sql/dialects/duckdb/quote.js';
import { DataError } from '../data-error.js';
import type { SourceTable } from '../source-tables.js';
import { fieldKey, type ScalarType } from '../value-shape.js';
import type { TimestampForm } from './event.js';

export interface StagedBatch {
  file: string;
  /** The input line of the staged file's first. */
  firstLine: number;
  /** Blank input lines from `firstLine` on, ascending: not staged, so line N of the file is the Nth other line. */
  blankLines: readonly number[];
  timestampForm: TimestampForm;
  /** At least the longest staged line's bytes: DuckDB's reader refuses an object longer than it is told. */
  longestLine: number;
}

export async function insertStaged(
  connection: DuckDBConnection,
  table: SourceTable,
  own: Readonly<Record<string, ScalarType>>,
  batch: StagedBatch,
): Promise<void> {
  const columns: Record<string, string> = {
    id: 'VARCHAR',
    timestamp: batch.timestampForm === 'micros' ? 'BIGINT' : 'TIMESTAMPTZ',
    event_message: 'VARCHAR',
    project: 'VARCHAR',
  };
  for (const name of Object.keys(own)) {
    const type = table.columns.get(fieldKey(name))?.type;
    if (type !== undefined) columns[name] = type;
  }
  // The table's own type, as DuckDB spells it: the staged records are already in its layout. No
  // metadata column means no event had a metadata field: nothing staged is lost without it.
  const metadata = table.columns.get('metadata');
  if (metadata !== undefined) columns.metadata = metadata.type;
  const selected = Object.keys(columns).map((name) =>
    name === 'timestamp' && batch.timestampForm === 'micros' ? 'make_timestamptz("timestamp") AS "timestamp"' : quoteIdentifier(name),
  );
  // In the input's order: sorting a batch cost a fifth to a third more CPU, and did not make up for
  // an input far from time order, which `cannery compact` does (docs/storage.md, Row order).
  try {
    await connection.run(
      `INSERT INTO ${quoteIdentifier(table.name)} BY NAME
       SELECT ${selected.join(', ')}
       FROM read_json($file, format = 'newline_delimited', columns = $columns, maximum_object_size = $maxObjectSize)`,
      {
        file: batch.file,
        columns: structValue(columns),
        maxObjectSize: Math.max(DUCKDB_DEFAULT_OBJECT_SIZE, batch.longestLine + 1),
      },
    );
  } catch (error) {
    throw inInputTerms(error, batch);
  }
}

const DUCKDB_DEFAULT_OBJECT_SIZE = 16 << 20;

/**
 * DuckDB's reader checks what JSON.parse lets through (a key given twice in one object, a lone
 * surrogate escape); its message names a line of the staged file, which is translated to the input's.
 */
function inInputTerms(error: unknown, batch: StagedBatch): unknown {
  const message = (error as Error).message ?? '';
  const match = /in file "[^"]*", (?:in|at byte \d+ in) line (\d+): ([^\n]*)/.exec(message);
  if (!match) return error;
  let line = batch.firstLine + Number(match[1]) - 1;
  for (const blank of batch.blankLines) if (blank <= line) line += 1;
  const reason = match[2]!.replace(/\s*$/, '');
  return new DataError('invalid_event', `line ${line}: ${reason}`, { line, cause: error });
}
