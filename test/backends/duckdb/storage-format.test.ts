/**
 * The storage format of the files cannery writes (backend.ts STORAGE_SETTINGS, docs/storage.md):
 * a file it creates stores repeated text as DICT_FSST, which the scans of `usage.api-counts` read
 * faster, and the start-up check of a file (database-file.ts) still refuses a copy of it cut short;
 * a file an older cannery (DuckDB's default format) wrote keeps its format, stays readable by
 * DuckDB's defaults, and answers the same.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDuckDb, withConnection } from '../../../src/backends/duckdb/backend.js';
import { connectDuckDB, rows } from '../../support/duckdb.js';

/** 100,000 URLs of 1,000 distinct ones, the shape of edge events' `request.url`. */
const URLS = `SELECT 'https://p' || (range % 4) || '.example.dev/rest/v1/t' || (range % 1000) || '?select=*' AS url FROM range(100000)`;

async function compressions(connection: Parameters<typeof rows>[0], table: string): Promise<string[]> {
  const found = await rows(connection, `SELECT DISTINCT compression FROM pragma_storage_info('${table}') WHERE segment_type = 'VARCHAR' ORDER BY 1`);
  return found.map((row) => String(row.compression));
}

async function storageVersion(connection: Parameters<typeof rows>[0]): Promise<string> {
  const [row] = await rows(connection, "SELECT tags['storage_version'] AS version FROM duckdb_databases() WHERE NOT internal AND database_name = current_database()");
  return String(row!.version);
}

describe('the storage format of a database file', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'cannery-storage-format-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('a file cannery creates is in the v1.3.0 format and stores repeated text as DICT_FSST', async () => {
    const path = join(dir, 'new.duckdb');
    const instance = await openDuckDb({ path });
    try {
      await withConnection(instance, async (connection) => {
        await connection.run(`CREATE TABLE t AS ${URLS}`);
        await connection.run('CHECKPOINT');
        expect(await storageVersion(connection)).toBe('v1.3.0+');
        expect(await compressions(connection, 't')).toEqual(['DICT_FSST']);
      });
    } finally {
      instance.closeSync();
    }
    // Read back as cannery serves it: read-only, every row.
    const reader = await openDuckDb({ path, readOnly: true });
    try {
      const [counted] = await withConnection(reader, (connection) => rows(connection, "SELECT count(*) AS n, count(DISTINCT url) AS urls, count(*) FILTER (WHERE contains(url, 'p1.')) AS p1 FROM t"));
      expect(counted).toEqual({ n: 100000n, urls: 1000n, p1: 25000n });
    } finally {
      reader.closeSync();
    }
    const size = (await readFile(path)).length;
    for (const cut of [1, 256 * 1024 + 100]) {
      const copy = join(dir, `cut-${cut}.duckdb`);
      await writeFile(copy, (await readFile(path)).subarray(0, size - cut));
      // By DuckDB's own open where the cut reaches the blocks it reads first (this file is small), else by the check.
      await expect(openDuckDb({ path: copy, readOnly: true }), `cut by ${cut}`).rejects.toThrow(cut === 1 ? `the DuckDB database ${copy} is cut short` : `DuckDB database ${copy}`);
    }
  });

  it('a file in the older format keeps it, new tables included, and stays readable by DuckDB alone', async () => {
    const path = join(dir, 'old.duckdb');
    const older = await connectDuckDB(path);
    try {
      await older.connection.run(`CREATE TABLE before AS ${URLS}`);
      await older.connection.run('CHECKPOINT');
    } finally {
      older.close();
    }
    const instance = await openDuckDb({ path });
    try {
      await withConnection(instance, async (connection) => {
        // Written by cannery now: an import into the older file.
        await connection.run(`CREATE TABLE after AS ${URLS}`);
        await connection.run('CHECKPOINT');
        expect(await storageVersion(connection)).toBe('v1.0.0+');
        expect(await compressions(connection, 'after')).not.toContain('DICT_FSST');
      });
    } finally {
      instance.closeSync();
    }
    const plain = await connectDuckDB(path);
    try {
      const counted = await rows(plain.connection, 'SELECT (SELECT count(*) FROM before) AS before, (SELECT count(*) FROM after) AS after');
      expect(counted).toEqual([{ before: 100000n, after: 100000n }]);
    } finally {
      plain.close();
    }
  });
});
