/**
 * The staged file of one batch: what DuckDB's reader loads into the table. Written as it is read
 * (a few MiB held at a time), mostly the input's own bytes, and rewritten whole only in the rare
 * case a record changed layout after some of the batch was written.
 */
import { open, readFile, rename, type FileHandle } from 'node:fs/promises';
import { formatBytes } from './bytes.js';

const WRITE_BYTES = 4 << 20;

export class StagedFile {
  readonly path: string;
  /** The batch size the import uses, for the message of a full disk. */
  private readonly batchBytes: number;
  /** Bytes written to this batch so far. */
  bytes = 0;
  private handle: FileHandle | undefined;
  private pending: Buffer[] = [];
  private pendingBytes = 0;

  constructor(path: string, batchBytes: number) {
    this.path = path;
    this.batchBytes = batchBytes;
  }

  /** Starts a new batch in the file, dropping what the last one held. */
  async begin(): Promise<void> {
    this.handle = await open(this.path, 'w');
    this.bytes = 0;
  }

  async append(data: Buffer | string): Promise<void> {
    const bytes = typeof data === 'string' ? Buffer.from(data) : data;
    this.pending.push(bytes);
    this.pendingBytes += bytes.length;
    this.bytes += bytes.length;
    if (this.pendingBytes >= WRITE_BYTES) await this.drain();
  }

  /** Writes what is held and closes the file, ready for DuckDB to read. */
  async end(): Promise<void> {
    await this.drain();
    await this.handle?.close();
    this.handle = undefined;
  }

  /** Closes the file without writing what is held: the import failed. */
  async abandon(): Promise<void> {
    this.pending = [];
    this.pendingBytes = 0;
    const handle = this.handle;
    this.handle = undefined;
    await handle?.close().catch(() => {});
  }

  /** Rewrites every line of the ended batch through `restage` (blank lines stay, so line numbers do). */
  async rewrite(restage: (json: string) => string): Promise<void> {
    const lines = (await readFile(this.path, 'utf8')).split('\n');
    if (lines.at(-1) === '') lines.pop();
    const next = `${this.path}.next`;
    const target = new StagedFile(next, this.batchBytes);
    await target.begin();
    for (const line of lines) await target.append(`${line.trim() === '' ? '' : restage(line)}\n`);
    await target.end();
    await rename(next, this.path);
    this.bytes = target.bytes;
  }

  private async drain(): Promise<void> {
    if (this.pending.length === 0) return;
    const buffers = this.pending;
    this.pending = [];
    this.pendingBytes = 0;
    let total = buffers.reduce((sum, buffer) => sum + buffer.length, 0);
    let rest = buffers;
    try {
      // A write cut short (the disk filling up) writes part and says how much: the rest is
      // written again, which then fails with the reason.
      for (;;) {
        const { bytesWritten } = await this.handle!.writev(rest);
        if (bytesWritten === 0) throw new Error(`writing ${this.path} made no progress`);
        total -= bytesWritten;
        if (total === 0) return;
        rest = [Buffer.concat(rest).subarray(bytesWritten)];
      }
    } catch (error) {
      throw noSpace(error, this.path, this.batchBytes) ?? error;
    }
  }
}

/** A full disk, said as what happened and what to do; undefined for any other failure. */
function noSpace(error: unknown, path: string, batchBytes: number): Error | undefined {
  const code = (error as NodeJS.ErrnoException).code;
  if (code !== 'ENOSPC' && code !== 'EDQUOT') return undefined;
  return new Error(
    `cannot write the staged copy of the input to ${path}: no space left on device (${code}). ` +
      `An import stages two batches at a time there (up to about ${formatBytes(batchBytes)} each); free space, or set TMPDIR to a disk with room`,
    { cause: error },
  );
}
