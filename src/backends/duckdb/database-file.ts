/**
 * A database file that cannot be read whole stops start-up, rather than opening and failing each
 * query that reaches the missing or damaged part (a file cut short by an interrupted copy once
 * served /health "ok", then answered every query 502).
 *
 * Two cheap checks. The length: DuckDB's file is three 4 KiB headers (storage/single_file_block_manager:
 * BLOCK_START = 3 x FILE_HEADER_SIZE) and then `total_blocks` blocks of `block_size` bytes, each
 * block at BLOCK_START + id x block_size, so a file shorter than that has lost blocks it still
 * refers to (checkpointing truncates a file only past its last used block). Then one row of every
 * source table, every column, is read: DuckDB checks each block's checksum as it reads it, so a
 * damaged catalog or first block of a table fails here. Reading every block would find damage
 * anywhere, at the cost of reading the whole file at each start.
 */
import { stat } from 'node:fs/promises';
import type { DuckDBConnection } from '#duckdb-api';
import { quoteIdentifier } from '../../sql/dialects/duckdb/quote.js';

/** DuckDB's main header and its two database headers, before the first block. */
const HEADER_BYTES = 3 * 4096;

/** Throws, naming the file and what is wrong, when `path` is shorter than the blocks DuckDB says it holds. */
export async function checkFileLength(connection: DuckDBConnection, path: string): Promise<void> {
  const reader = await connection.runAndReadAll('SELECT block_size, total_blocks FROM pragma_database_size() WHERE database_name = current_database()');
  const row = reader.getRowObjectsJS()[0] as { block_size: bigint; total_blocks: bigint } | undefined;
  if (row === undefined) return;
  const expected = HEADER_BYTES + Number(row.block_size) * Number(row.total_blocks);
  const { size } = await stat(path);
  if (size < expected) {
    throw new Error(
      `the DuckDB database ${path} is cut short: ${size} bytes, where its header counts ${row.total_blocks} blocks (${expected} bytes); ` +
        'it was likely copied or written only in part: restore a whole copy, or load the data again',
    );
  }
}

/** Reads one row of each table (every column); throws naming the file and the table that cannot be read. */
export async function readEveryTable(connection: DuckDBConnection, path: string, tables: readonly string[]): Promise<void> {
  for (const table of tables) {
    try {
      await connection.run(`SELECT * FROM ${quoteIdentifier(table)} LIMIT 1`);
    } catch (error) {
      throw new Error(`the DuckDB database ${path} cannot be read (table "${table}"): ${(error as Error).message.split('\n')[0]}`, { cause: error });
    }
  }
}
