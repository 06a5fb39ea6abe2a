import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { importNdjson } from '../../../../src/backends/duckdb/import/import.js';
import { StagedFile } from '../../../../src/backends/duckdb/import/staged-file.js';
import { removeStaleStaging } from '../../../../src/backends/duckdb/import/staging.js';
import { connectDuckDB } from '../../../support/duckdb.js';

const EVENT = JSON.stringify({ id: '1', timestamp: 0, event_message: 'x' });

describe('the staged copy', () => {
  it('is removed when the import ends, committed or failed', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'cannery-staging-'));
    const { connection, close } = await connectDuckDB();
    try {
      await importNdjson(connection, 'logs', Readable.from([`${EVENT}\n`]), { tempDirectory: dir });
      expect(await readdir(dir)).toEqual([]);
      await expect(importNdjson(connection, 'logs', Readable.from([`${EVENT}\nnot json\n`]), { tempDirectory: dir })).rejects.toThrow(/^line 2: not valid JSON/);
      expect(await readdir(dir)).toEqual([]);
    } finally {
      close();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("left by a process that is gone is removed by the next import; a running process's is kept", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'cannery-staging-'));
    const { connection, close } = await connectDuckDB();
    try {
      // The process id of a process that has exited.
      const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout;
      const stale = join(dir, `cannery-import-${gone}-AbCdEf`);
      await mkdir(stale);
      await writeFile(join(stale, 'batch.ndjson'), `${EVENT}\n`);
      const running = join(dir, `cannery-import-${process.ppid}-GhIjKl`);
      await mkdir(running);
      const unrelated = join(dir, 'cannery-import-notes');
      await mkdir(unrelated);
      await importNdjson(connection, 'logs', Readable.from([`${EVENT}\n`]), { tempDirectory: dir });
      expect(existsSync(stale)).toBe(false);
      expect((await readdir(dir)).sort()).toEqual(['cannery-import-notes', `cannery-import-${process.ppid}-GhIjKl`].sort());
      expect(await removeStaleStaging(dir)).toEqual([]);
    } finally {
      close();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('says where and what to do when the disk is full', async () => {
    // Writes to /dev/full fail as a full disk does (ENOSPC).
    const staged = new StagedFile('/dev/full', 64 << 20);
    await staged.begin();
    const error = await staged
      .append(Buffer.alloc(8 << 20, 'x'))
      .then(() => staged.end())
      .catch((caught: unknown) => caught);
    await staged.abandon();
    expect((error as Error).message).toBe(
      'cannot write the staged copy of the input to /dev/full: no space left on device (ENOSPC). ' +
        'An import stages two batches at a time there (up to about 64.0 MiB each); free space, or set TMPDIR to a disk with room',
    );
  });
});
