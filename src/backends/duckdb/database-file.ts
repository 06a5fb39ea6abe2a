/**
 * A database file that cannot be read whole stops start-up, rather than opening and failing each
 * query that reaches the missing or damaged part (a file cut short by an interrupted copy once
 * served /health "ok", then answered every query 502).
 *
 * Two cheap checks. The length: DuckDB's file is three 4 KiB headers (storage/single_file_block_manager:
 * BLOCK_START = 3 x FILE_HEADER_SIZE) and then blocks of `block_size` bytes, block N at
 * BLOCK_START + N x block_size. The header's `total_blocks` is not the file's length: a checkpoint
 * writes the header, then truncates the file after its last block in use, so the free blocks that
 * were at the end are still counted and no longer in the file (two imports into a seeded file were
 * enough, and a start-up check on `total_blocks` then refused a healthy database for good). What
 * must be in the file is every block in use, which DuckDB itself lists: its metadata blocks
 * (pragma_metadata_info) and every table's segments (pragma_storage_info), read only when the file
 * is shorter than the header counts. Then one row of every source table, every column, is read:
 * DuckDB checks each block's checksum as it reads it, so a damaged catalog or first block of a table
 * fails here. Reading every block would find damage anywhere, at the cost of reading the whole file
 * at each start.
 */
import { stat } from 'node:fs/promises';
import type { DuckDBConnection } from '#duckdb-api';
import { withoutServerPaths } from '../../core/server-paths.js';
import { quoteIdentifier } from '../../sql/dialects/duckdb/quote.js';

/** DuckDB's main header and its two database headers, before the first block. */
const HEADER_BYTES = 3 * 4096;

/** Throws, naming the file and what is wrong, when `path` lacks a block DuckDB uses. */
export async function checkFileLength(connection: DuckDBConnection, path: string): Promise<void> {
  const reader = await connection.runAndReadAll(
    'SELECT block_size, total_blocks, used_blocks FROM pragma_database_size() WHERE database_name = current_database()',
  );
  const row = reader.getRowObjectsJS()[0] as { block_size: bigint; total_blocks: bigint; used_blocks: bigint } | undefined;
  if (row === undefined) return;
  const blockSize = Number(row.block_size);
  const { size } = await stat(path);
  if (size >= HEADER_BYTES + blockSize * Number(row.total_blocks)) return;
  let highest: number;
  try {
    highest = await highestBlockInUse(connection);
  } catch (error) {
    if (!/^IO Error/.test((error as Error).message)) throw error;
    // Where its blocks are is itself kept in blocks: those are what is missing or damaged.
    throw new Error(
      `the DuckDB database ${path} is cut short or damaged: ${size} bytes, in which DuckDB cannot read where its blocks are (${duckDbSays(error)}); ${ADVICE}`,
      { cause: error },
    );
  }
  // However DuckDB placed them, `used_blocks` blocks need that many block slots: blocks it does not
  // list (an index's) are counted there.
  const needed = HEADER_BYTES + blockSize * Math.max(highest + 1, Number(row.used_blocks));
  if (size < needed) {
    throw new Error(`the DuckDB database ${path} is cut short: ${size} bytes, where the blocks it uses take ${needed} bytes; ${ADVICE}`);
  }
}

const ADVICE = 'it was likely copied or written only in part: restore a whole copy, or load the data again';

/** The highest block id any metadata or table segment of the connection's database uses; -1 for none. */
async function highestBlockInUse(connection: DuckDBConnection): Promise<number> {
  const tables = await connection.runAndReadAll(
    'SELECT database_name, schema_name, table_name FROM duckdb_tables() WHERE database_name = current_database() AND NOT temporary',
  );
  // pragma_storage_info reads its argument as a dotted name, with no way to spell a quote inside a
  // quoted part, so the catalog (named after the file, whatever it holds) is named only where the
  // schema alone would be taken for it: a schema of the catalog's own name (`cannery` in cannery.duckdb).
  const names = (tables.getRowObjectsJS() as { database_name: string; schema_name: string; table_name: string }[]).map((table) =>
    (table.schema_name.toLowerCase() === table.database_name.toLowerCase() ? [table.database_name, table.schema_name, table.table_name] : [table.schema_name, table.table_name])
      .map(quoteIdentifier)
      .join('.'),
  );
  // A segment's own block, and the blocks its long strings overflow into.
  const segments = names.map(
    (_, index) => `SELECT max(greatest(block_id, coalesce(list_max(additional_block_ids), -1))) AS id FROM pragma_storage_info($t${index}) WHERE persistent`,
  );
  const reader = await connection.runAndReadAll(
    `SELECT max(id) AS highest FROM (SELECT max(block_id) AS id FROM pragma_metadata_info()${segments.map((sql) => ` UNION ALL ${sql}`).join('')})`,
    Object.fromEntries(names.map((name, index) => [`t${index}`, name])),
  );
  const highest = (reader.getRowObjectsJS()[0] as { highest: bigint | null }).highest;
  return highest === null ? -1 : Number(highest);
}

/** Reads one row of each table (every column); throws naming the file and the table that cannot be read. */
export async function readEveryTable(connection: DuckDBConnection, path: string, tables: readonly string[]): Promise<void> {
  for (const table of tables) {
    try {
      await connection.run(`SELECT * FROM ${quoteIdentifier(table)} LIMIT 1`);
    } catch (error) {
      throw new Error(`the DuckDB database ${path} cannot be read (table "${table}"): ${duckDbSays(error)}`, { cause: error });
    }
  }
}

/**
 * The first line of DuckDB's error, its absolute paths cut to file names (server-paths.ts): the
 * message names the file as the operator gave it, and no error of ours names the server's folders.
 */
function duckDbSays(error: unknown): string {
  return withoutServerPaths((error as Error).message.split('\n')[0]!);
}
