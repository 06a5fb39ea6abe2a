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
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import type { DuckDBConnection } from '#duckdb-api';
import { CanneryError } from '../../core/errors.js';
import type { SourceDeclaration } from '../../config/source-declaration.js';
import type { SourceDescriptor } from '../../config/sources.js';
import type { IngestTarget } from '../../engine/ingest/queue.js';
import { DataError } from './data-error.js';
import { loadDeclaredBatch } from './import/declared-import.js';
import { importNdjson } from './import/import.js';
import { InputDigest } from './import/input-digest.js';
import { removeStagingFolder } from './import/staging.js';

export function duckDbIngestTarget(options: {
  connect: () => Promise<DuckDBConnection>;
  /** The folder the sealed instance may read; removed at close. */
  stagingDirectory: string;
  logSources: readonly SourceDescriptor[];
  declared: readonly SourceDeclaration[];
}): IngestTarget {
  let connection: DuckDBConnection | undefined;
  return {
    async write(source, lines, batchId) {
      connection ??= await options.connect();
      const text = Buffer.from(`${lines.join('\n')}\n`);
      try {
        const declared = options.declared.find((entry) => entry.name === source);
        if (declared === undefined) {
          await importNdjson(connection, source, Readable.from([text]), {
            sources: options.logSources,
            batchId,
            tempDirectory: options.stagingDirectory,
            repeatable: true,
          });
          return;
        }
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
    },
    async close() {
      connection?.closeSync();
      connection = undefined;
      await removeStagingFolder(options.stagingDirectory);
    },
  };
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
