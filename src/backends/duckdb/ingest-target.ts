/**
 * Where serve's writer (engine/ingest/queue.ts) commits on DuckDB: a group of events is staged as
 * one NDJSON file and loaded by the import's own path, in one transaction with a ledger row: a log
 * source's through importNdjson (its storage layout, its metadata learned), a declared source's
 * through DuckDB's reader with the declared types (declared-import.ts). DuckDB syncs its
 * write-ahead log at COMMIT, so a batch acknowledged is a batch a crash keeps.
 *
 * The serving instance is sealed (no file access for queries): the staging folder is the one
 * folder it may read (allowed_directories, set before the seal in backend.ts), and nothing but
 * this writer puts files there.
 */
import { createReadStream } from 'node:fs';
import { copyFile, writeFile } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { Readable } from 'node:stream';
import type { DuckDBConnection } from '#duckdb-api';
import { CanneryError } from '../../core/errors.js';
import type { SourceDeclaration } from '../../config/source-declaration.js';
import type { SourceDescriptor } from '../../config/sources.js';
import type { IngestTarget } from '../../engine/ingest/queue.js';
import { DataError } from './data-error.js';
import { fileFormat, importDeclared, loadDeclaredBatch } from './import/declared-import.js';
import { importNdjson } from './import/import.js';
import { findImportOfFile, InputDigest } from './import/input-digest.js';
import type { LedgerEntry } from './import/ledger.js';
import { removeStagingFolder } from './import/staging.js';
import type { SourceTable } from './source-tables.js';

/** What a file handed over by `cannery import` (import-handoff.ts) came to. */
export interface HandedImport {
  rows: number;
  batchId: string;
  bytes: number;
  /** Loaded before (the imports ledger knows its bytes): nothing was written. */
  previous?: LedgerEntry;
  farFromTimeOrder?: boolean;
}

export interface DuckDbIngestTarget extends IngestTarget {
  /**
   * A file into `source`, as `cannery import` loads it (its ledger, one transaction), between the
   * writer's commits: the serving process is the one that may write the file.
   */
  importFile(source: string, path: string, format: string | undefined, batchId: string): Promise<HandedImport>;
}

export function duckDbIngestTarget(options: {
  connect: () => Promise<DuckDBConnection>;
  /** The folder the sealed instance may read; removed at close. */
  stagingDirectory: string;
  logSources: readonly SourceDescriptor[];
  /** The project's sources as served now: a hot reload changes them. */
  declared: () => readonly SourceDeclaration[];
}): DuckDbIngestTarget {
  let connection: DuckDBConnection | undefined;
  // Each log source's table as this writer last committed it: read once, not at every group (two
  // catalog queries, a seventh of a 1,000-event group's time). Only this writer changes a log
  // source's table while serving (the demo's live feed inserts rows of its existing shape); a
  // failed write forgets it, as does a file handed over, so a shape is never trusted past a doubt.
  const tables = new Map<string, SourceTable>();
  // One transaction at a time on the one connection: a handed-over file waits for the commit in
  // progress, and the next group waits for it (a table widened under a concurrent append would
  // conflict).
  let turn: Promise<unknown> = Promise.resolve();
  const inTurn = <T>(work: (connection: DuckDBConnection) => Promise<T>): Promise<T> => {
    const next = turn.then(async () => work((connection ??= await options.connect())));
    turn = next.catch(() => undefined);
    return next;
  };
  return {
    importFile(source, path, format, batchId) {
      return inTurn(async (connection) => {
        const declared = options.declared().find((entry) => entry.name === source);
        if (declared === undefined) {
          tables.delete(source);
          const previous = await findImportOfFile(connection, source, path);
          if (previous !== undefined) return { rows: 0, batchId, bytes: previous.bytes, previous };
          const result = await importNdjson(connection, source, createReadStream(path, { highWaterMark: 1 << 20 }), {
            sources: options.logSources,
            batchId,
            tempDirectory: options.stagingDirectory,
          });
          return { rows: result.rows, batchId, bytes: result.bytes, farFromTimeOrder: result.farFromTimeOrder, ...(result.previous ? { previous: result.previous } : {}) };
        }
        // DuckDB's readers read the file itself: a copy in the one folder the sealed instance may read.
        const copy = join(options.stagingDirectory, `${batchId}${extname(path.replace(/\.(gz|gzip)$/i, ''))}${/\.(gz|gzip)$/i.test(path) ? '.gz' : ''}`);
        await copyFile(path, copy);
        try {
          const result = await importDeclared(connection, declared, copy, { format: fileFormat(path, format), batchId, tempDirectory: options.stagingDirectory });
          return { rows: result.rows, batchId, bytes: result.bytes, ...(result.previous ? { previous: result.previous } : {}) };
        } finally {
          await removeStagingFolder(copy);
        }
      });
    },
    write(source, lines, batchId) {
      return inTurn((connection) => writeLines(connection, source, lines, batchId));
    },
    async close() {
      await turn;
      connection?.closeSync();
      connection = undefined;
      await removeStagingFolder(options.stagingDirectory);
    },
  };

  async function writeLines(connection: DuckDBConnection, source: string, lines: readonly string[], batchId: string): Promise<void> {
    try {
      const declared = options.declared().find((entry) => entry.name === source);
      if (declared === undefined) {
        const known = tables.get(source);
        tables.delete(source);
        const { table } = await importNdjson(connection, source, Readable.from(inSlices(lines)), {
          sources: options.logSources,
          batchId,
          tempDirectory: options.stagingDirectory,
          repeatable: true,
          ...(known === undefined ? {} : { knownTable: known }),
        });
        if (table !== undefined) tables.set(source, table);
        return;
      }
      const text = Buffer.from(`${lines.join('\n')}\n`);
      const digest = new InputDigest();
      digest.update(text);
      const file = join(options.stagingDirectory, `${batchId}.ndjson`);
      await writeFile(file, text);
      try {
        await loadDeclaredBatch(connection, declared, file, { batchId, ...digest.digest(), bytes: text.length });
      } finally {
        await removeStagingFolder(file);
      }
    } catch (error) {
      throw inRequestTerms(error);
    }
  }
}

/** Lines a slice of a log source's group holds: a few hundred KB of the seed's edge events. */
const SLICE_LINES = 200;

/**
 * A group's lines for the log import (which reads each line in JS), a slice at a time with a turn
 * of the event loop between: a group read as one chunk held every other request for its whole length.
 */
async function* inSlices(lines: readonly string[]): AsyncGenerator<Buffer> {
  for (let at = 0; at < lines.length; at += SLICE_LINES) {
    yield Buffer.from(`${lines.slice(at, at + SLICE_LINES).join('\n')}\n`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/**
 * A value the checks let through and DuckDB refused, as the caller's error: a line of the staged
 * file is an event of the group, which the queue then writes request by request, so the request
 * that holds it is the one told.
 */
function inRequestTerms(error: unknown): unknown {
  if (!(error instanceof DataError)) return error;
  const where = error.line === undefined ? '' : `event ${error.line - 1}${error.field === undefined ? '' : `, field ${error.field}`}: `;
  const reason = error.message.replace(/^.*?(line \d+[^:]*: )/, '');
  return new CanneryError('invalid_event', `${where}${reason}; nothing of this request was written`, { cause: error });
}
