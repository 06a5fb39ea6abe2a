import { mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { importNdjson } from '../../../../src/backends/duckdb/import/import.js';
import { findImportOfFile } from '../../../../src/backends/duckdb/import/input-digest.js';
import { findImport, HEAD_BYTES } from '../../../../src/backends/duckdb/import/ledger.js';
import { connectDuckDB, rows } from '../../../support/duckdb.js';

const event = (id: string) => JSON.stringify({ id, timestamp: 0, event_message: 'x', metadata: { n: 1 } });

async function count(connection: Parameters<typeof importNdjson>[0], table: string): Promise<bigint> {
  return (await rows(connection, `SELECT count(*) AS n FROM "${table}"`))[0]!.n as bigint;
}

describe('the imports ledger', () => {
  it('makes importing the same bytes again a no-op that names the first import, in the same transaction as its rows', async () => {
    const { connection, close } = await connectDuckDB();
    try {
      const input = `${event('1')}\n${event('2')}\n`;
      const first = await importNdjson(connection, 'logs', Readable.from([input]), { batchId: 'first-batch' });
      expect(first).toMatchObject({ rows: 2, batchId: 'first-batch', bytes: input.length });
      expect(first.previous).toBeUndefined();
      const again = await importNdjson(connection, 'logs', Readable.from([input]), { batchId: 'second-batch' });
      expect(again).toMatchObject({ rows: 0, batchId: 'second-batch', previous: { batchId: 'first-batch', source: 'logs', events: 2, sha256: first.sha256 } });
      expect(await count(connection, 'logs')).toBe(2n);
      // Other bytes are another input, and the same bytes into another source another import.
      expect((await importNdjson(connection, 'logs', Readable.from([`${event('3')}\n`]))).rows).toBe(1);
      expect((await importNdjson(connection, 'other', Readable.from([input]))).rows).toBe(2);
      expect(await rows(connection, 'SELECT source, events FROM memory.cannery.imports ORDER BY committed_at, source')).toEqual([
        { source: 'logs', events: 2n },
        { source: 'logs', events: 1n },
        { source: 'other', events: 2n },
      ]);
    } finally {
      close();
    }
  });

  it('records nothing for an import that failed or wrote nothing', async () => {
    const { connection, close } = await connectDuckDB();
    try {
      await expect(importNdjson(connection, 'logs', Readable.from([`${event('1')}\n{"id": 2}\n`]))).rejects.toThrow(/^line 2: /);
      expect((await importNdjson(connection, 'logs', Readable.from(['\n\n']))).rows).toBe(0);
      expect((await importNdjson(connection, 'logs', Readable.from(['']))).rows).toBe(0);
      expect(await rows(connection, "SELECT count(*) AS n FROM duckdb_tables() WHERE schema_name = 'cannery'")).toEqual([{ n: 0n }]);
      // The failed import can run again once fixed.
      expect((await importNdjson(connection, 'logs', Readable.from([`${event('1')}\n`]))).rows).toBe(1);
    } finally {
      close();
    }
  });

  it('recognises a file already imported before reading it through, and only that file', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'cannery-ledger-'));
    const { connection, close } = await connectDuckDB();
    try {
      // Longer than the digest of its head, so a file that differs only at the end has the same head.
      const lines = Array.from({ length: Math.ceil(HEAD_BYTES / 60) + 10 }, (_, index) => event(`id-${index}`));
      const file = join(dir, 'events.ndjson');
      await writeFile(file, `${lines.join('\n')}\n`);
      expect(await findImportOfFile(connection, 'logs', file)).toBeUndefined();
      const { batchId } = await importNdjson(connection, 'logs', Readable.from([`${lines.join('\n')}\n`]));
      expect(await findImportOfFile(connection, 'logs', file)).toMatchObject({ batchId, source: 'logs', events: lines.length });
      expect(await findImportOfFile(connection, 'other', file)).toBeUndefined();
      const changed = join(dir, 'changed.ndjson');
      await writeFile(changed, `${[...lines.slice(0, -1), event('id-last')].join('\n')}\n`);
      expect(await findImportOfFile(connection, 'logs', changed)).toBeUndefined();
    } finally {
      close();
      await rm(dir, { recursive: true, force: true });
    }
  });

  // DuckDB names the catalog after the file, up to its first dot: `cannery.duckdb`, the default
  // database, is catalog `cannery`, where `cannery.imports` was ambiguous and every import failed.
  it('works in a database file of any name, the default one and those DuckDB renames among them', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'cannery-ledger-names-'));
    try {
      for (const name of ['cannery', 'CANNERY', 'main', 'temp', `my "cannery's" events`, 'cannery.backup']) {
        const { connection, close } = await connectDuckDB(join(dir, `${name}.duckdb`));
        try {
          const input = `${event('1')}\n${event('2')}\n`;
          const first = await importNdjson(connection, 'logs', Readable.from([input]));
          expect(first.rows, name).toBe(2);
          expect((await importNdjson(connection, 'logs', Readable.from([input]))).previous?.batchId, name).toBe(first.batchId);
          expect(await count(connection, 'logs'), name).toBe(2n);
        } finally {
          close();
        }
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('reads in place the ledger the release before wrote (schema cannery), in a file since named cannery.duckdb', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'cannery-ledger-old-'));
    try {
      const old = await connectDuckDB(join(dir, 'events.duckdb'));
      try {
        // As the release before wrote it, which worked in any file not named cannery.duckdb.
        await old.connection.run('CREATE SCHEMA IF NOT EXISTS cannery');
        await old.connection.run(
          `CREATE TABLE IF NOT EXISTS cannery.imports (
             batch_id VARCHAR PRIMARY KEY, source VARCHAR NOT NULL, sha256 VARCHAR NOT NULL, head_sha256 VARCHAR NOT NULL,
             bytes BIGINT NOT NULL, events BIGINT NOT NULL, committed_at TIMESTAMPTZ NOT NULL)`,
        );
        await old.connection.run("INSERT INTO cannery.imports VALUES ('old-batch', 'logs', 'abc', 'def', 10, 1, now())");
      } finally {
        old.close();
      }
      await rename(join(dir, 'events.duckdb'), join(dir, 'cannery.duckdb'));
      const { connection, close } = await connectDuckDB(join(dir, 'cannery.duckdb'));
      try {
        expect(await findImport(connection, 'logs', 'abc')).toMatchObject({ batchId: 'old-batch', events: 1 });
        const next = await importNdjson(connection, 'logs', Readable.from([`${event('1')}\n`]));
        expect(await rows(connection, 'SELECT batch_id FROM cannery.cannery.imports ORDER BY committed_at')).toEqual([{ batch_id: 'old-batch' }, { batch_id: next.batchId }]);
      } finally {
        close();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
