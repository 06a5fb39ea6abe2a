/**
 * Digests of an input as the imports ledger keeps them (ledger.ts): of all its bytes, and of its
 * first HEAD_BYTES. Taken as the bytes stream past, and for a file before an import reads it, so that
 * loading a file that is already in costs a read of it, not an import rolled back at the end.
 */
import { createHash, type Hash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import type { DuckDBConnection } from '#duckdb-api';
import { findImportsLike, HEAD_BYTES, type LedgerEntry } from './ledger.js';

/** Both digests of a stream of bytes, fed chunk by chunk. */
export class InputDigest {
  private readonly all: Hash = createHash('sha256');
  private readonly head: Hash = createHash('sha256');
  private headBytes = 0;

  update(bytes: Buffer): void {
    this.all.update(bytes);
    if (this.headBytes < HEAD_BYTES) {
      const part = bytes.subarray(0, HEAD_BYTES - this.headBytes);
      this.head.update(part);
      this.headBytes += part.length;
    }
  }

  digest(): { sha256: string; headSha256: string } {
    return { sha256: this.all.digest('hex'), headSha256: this.head.digest('hex') };
  }
}

/** The committed import of exactly the file at `path` into `source`, if there is one. */
export async function findImportOfFile(connection: DuckDBConnection, source: string, path: string): Promise<LedgerEntry | undefined> {
  const handle = await open(path, 'r');
  let head: string;
  let size: number;
  try {
    size = (await handle.stat()).size;
    const start = Buffer.alloc(Math.min(size, HEAD_BYTES));
    await handle.read(start, 0, start.length, 0);
    head = createHash('sha256').update(start).digest('hex');
  } finally {
    await handle.close();
  }
  const candidates = await findImportsLike(connection, source, size, head);
  if (candidates.length === 0) return undefined;
  const all = createHash('sha256');
  for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20 })) all.update(chunk as Buffer);
  const sha256 = all.digest('hex');
  return candidates.find((candidate) => candidate.sha256 === sha256);
}
