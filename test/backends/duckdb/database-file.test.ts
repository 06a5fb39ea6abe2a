/**
 * The start-up check of a database file (database-file.ts), on files DuckDB wrote: one it truncated
 * at a checkpoint, shorter than its header's block count and healthy, opens; a copy cut short
 * (even by one byte of a block in use) does not.
 */
import { copyFile, mkdtemp, readFile, rm, stat, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDuckDb, withConnection } from '../../../src/backends/duckdb/backend.js';
import { connectDuckDB, rows } from '../../support/duckdb.js';

/** DuckDB's three headers before the first block. */
const HEADER_BYTES = 3 * 4096;

async function open(path: string): Promise<bigint> {
  const instance = await openDuckDb({ path, readOnly: true });
  try {
    return await withConnection(instance, async (connection) => (await rows(connection, 'SELECT sum(n) AS total FROM kept'))[0]!.total as bigint);
  } finally {
    instance.closeSync();
  }
}

describe('a database file at start-up', () => {
  let dir: string;
  let healthy: string;
  let total: bigint;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'cannery-database-file-'));
    healthy = join(dir, 'truncated.duckdb');
    const { connection, close } = await connectDuckDB(healthy);
    try {
      // The blocks of the table dropped last are at the end: the checkpoint after the DROP writes
      // the header (counting them) and then truncates them off the file, as imports and compact do.
      await connection.run('CREATE TABLE kept AS SELECT range AS n, md5(range::VARCHAR) AS s FROM range(100000)');
      // A table outside the default schema, as the imports ledger is.
      await connection.run('CREATE SCHEMA cannery');
      await connection.run('CREATE TABLE cannery.imports AS SELECT 1 AS n');
      await connection.run('CHECKPOINT');
      await connection.run('CREATE TABLE dropped AS SELECT range AS n, md5(range::VARCHAR) AS s FROM range(100000)');
      await connection.run('CHECKPOINT');
      await connection.run('DROP TABLE dropped');
      await connection.run('CHECKPOINT');
    } finally {
      close();
    }
    total = (100000n * 99999n) / 2n;
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('opens a healthy file DuckDB truncated at a checkpoint, shorter than its header counts', async () => {
    const { connection, close } = await connectDuckDB(healthy);
    let counted: { block_size: bigint; total_blocks: bigint };
    try {
      counted = (await rows(connection, 'SELECT block_size, total_blocks FROM pragma_database_size()'))[0] as typeof counted;
    } finally {
      close();
    }
    // The state the check used to refuse: fewer bytes than the header's blocks take.
    expect((await stat(healthy)).size).toBeLessThan(HEADER_BYTES + Number(counted.block_size * counted.total_blocks));
    expect(await open(healthy)).toBe(total);
  });

  it('opens it under any name, which DuckDB makes its catalog: the default one, quotes, spaces, dots', async () => {
    for (const name of ['cannery', `my "cannery's" data`, 'main', 'cannery.backup']) {
      const copy = join(dir, `${name}.duckdb`);
      await copyFile(healthy, copy);
      expect(await open(copy), name).toBe(total);
    }
  });

  it('refuses a copy of it cut short, by a block or by one byte, naming the file and its size', async () => {
    const size = (await stat(healthy)).size;
    for (const cut of [1, 256 * 1024 + 100]) {
      const copy = join(dir, `cut-${cut}.duckdb`);
      await writeFile(copy, (await readFile(healthy)).subarray(0, size - cut));
      await expect(open(copy), `cut by ${cut}`).rejects.toThrow(`the DuckDB database ${copy} is cut short`);
      await expect(open(copy)).rejects.toThrow(`${size - cut} bytes`);
      // Refused before anything was written to it.
      expect((await stat(copy)).size).toBe(size - cut);
    }
  });

  it('refuses a file cut in its middle blocks, where the catalog says its tables are', async () => {
    const copy = join(dir, 'halved.duckdb');
    await writeFile(copy, await readFile(healthy));
    await truncate(copy, HEADER_BYTES + 256 * 1024 * 2);
    await expect(open(copy)).rejects.toThrow(copy);
  });

  // DuckDB's IO errors quote the file by its absolute path: the refusal names it once, as given.
  it("names the file as given, and in DuckDB's own message only by its name", async () => {
    const copy = join(dir, 'headers-only.duckdb');
    // Its headers alone: DuckDB cannot open it, and says which file it could not read.
    await writeFile(copy, (await readFile(healthy)).subarray(0, HEADER_BYTES));
    const message = await open(copy).then(
      () => '',
      (error: Error) => error.message,
    );
    expect(message).toMatch(/^cannot open DuckDB database .*IO Error: .*"headers-only\.duckdb"/);
    expect(message.split(dir)).toHaveLength(2);
  });
});
