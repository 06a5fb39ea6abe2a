/**
 * `cannery import --source NAME [FILE.ndjson | -] [--db FILE]`: NDJSON log events into a source's table;
 * for a source declared in sources/ (docs/sources.md), its NDJSON, CSV or Parquet file (declared-import.ts).
 *
 * The batch id is printed before anything is read, and the summary names it once committed: after a
 * crash, the user runs the same command again, which loads the input or says it is already in.
 */
import { randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream, existsSync } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { DuckDBInstance } from '#duckdb-api';
import { openDuckDb } from '../backends/duckdb/backend.js';
import { DatabaseBusy } from '../backends/duckdb/lock.js';
import { handImportOver, handoffSocketPath } from './import-handoff.js';
import { formatBytes } from '../backends/duckdb/import/bytes.js';
import { DEFAULT_MAX_LINE_BYTES, importNdjson, type ImportResult } from '../backends/duckdb/import/import.js';
import { fileFormat, importDeclared } from '../backends/duckdb/import/declared-import.js';
import { findImportOfFile } from '../backends/duckdb/import/input-digest.js';
import type { LedgerEntry } from '../backends/duckdb/import/ledger.js';
import { BUILT_IN_SOURCES, sourceNames } from '../config/sources.js';
import type { Command } from './command.js';
import { positiveInteger, settingsWithFlags } from './flags.js';
import { progressReporter } from './progress.js';
import { didYouMean } from '../config/spelling.js';
import type { SourceDeclaration } from '../config/source-declaration.js';
import { declaredSources } from './source-folder.js';

/** Reads of 1 MiB: a quarter of the per-chunk work of node's 64 KiB default, for the same memory. */
const READ_BYTES = 1 << 20;
/**
 * DuckDB's threads for an NDJSON import: every core but the one JS reads the input on. JS stages a
 * batch while DuckDB inserts the last (import.ts), so on two cores DuckDB's one thread and JS keep
 * both busy, and one thread spares the work DuckDB's threads spend sharing a file between them: on
 * 100K edge events a fifth of the import's CPU, for less wall time than two threads
 * (docs/benchmarks.md, "Loading data").
 */
const NDJSON_IMPORT_THREADS = Math.max(1, availableParallelism() - 1);
/** V8's longest string is about 512 MiB; a line must fit in one, and its staged form too. */
const LONGEST_LINE_LIMIT = 256 << 20;

export const importCommand: Command = {
  options: {
    db: { type: 'string' },
    source: { type: 'string' },
    'max-line-bytes': { type: 'string' },
    'replace-invalid-utf8': { type: 'boolean' },
    'memory-limit': { type: 'string' },
    format: { type: 'string' },
    sources: { type: 'string' },
  },
  async run(flags, positionals) {
    const { dbPath, loadMemoryLimit, endpointsDir } = settingsWithFlags(flags);
    const source = flags.source;
    const declared = await declaredSources(flags, endpointsDir);
    const known = [...sourceNames(BUILT_IN_SOURCES), ...declared.map((entry) => entry.name)];
    if (typeof source !== 'string') throw new Error(`--source is required (one of: ${known.join(', ')})`);
    // Endpoints can only read known sources, so a table under any other name would be unreachable.
    if (!known.includes(source)) throw new Error(`unknown source "${source}"${didYouMean(source, known)}; known sources: ${known.join(', ')}`);
    const declaration = declared.find((entry) => entry.name === source);
    if (declaration !== undefined) return importDeclaredFile(declaration, positionals, flags.format, dbPath, loadMemoryLimit);
    const maxLineBytes = positiveInteger('max-line-bytes', flags['max-line-bytes'], DEFAULT_MAX_LINE_BYTES);
    if (maxLineBytes > LONGEST_LINE_LIMIT) throw new Error(`--max-line-bytes can be at most ${LONGEST_LINE_LIMIT} (${formatBytes(LONGEST_LINE_LIMIT)}), the most one event can hold here`);
    const [path = '-'] = positionals;
    const fromStdin = path === '-';
    const totalBytes = fromStdin ? undefined : (await stat(path)).size;
    const input = fromStdin ? process.stdin : createReadStream(path, { highWaterMark: READ_BYTES });

    stopCleanlyOnSignals();
    // Opened first: a database another process holds is the one thing said, before any batch.
    const instance = await openOrHandOver(dbPath, loadMemoryLimit, { source, path }, NDJSON_IMPORT_THREADS);
    if (instance === undefined) return 0;
    const connection = await instance.connect();
    const batchId = randomUUID();
    console.error(`import ${batchId}: ${fromStdin ? 'standard input' : path} -> ${source} in ${dbPath}`);
    const progress = progressReporter('importing');
    try {
      const previous = fromStdin ? undefined : await findImportOfFile(connection, source, path);
      if (previous !== undefined) {
        console.error(alreadyImported(previous, totalBytes!));
        return 0;
      }
      const result = await importNdjson(connection, source, input, {
        sources: BUILT_IN_SOURCES,
        batchId,
        maxLineBytes,
        invalidUtf8: flags['replace-invalid-utf8'] === true ? 'replace' : 'error',
        onProgress: ({ events, bytes }) => progress.update({ events, bytes, ...(totalBytes === undefined ? {} : { totalBytes }) }),
      });
      progress.done();
      console.error(summary(result, source, dbPath));
      return 0;
    } catch (error) {
      progress.done();
      const message = (error as Error).message;
      const advice = /no space left on device/i.test(message) ? '; free space where the message says, then run the same command again' : '';
      throw new Error(`${message}\nimport ${batchId} failed; nothing of it was written to ${dbPath}${advice}`, { cause: error });
    } finally {
      connection.closeSync();
      instance.closeSync();
    }
  },
};

/** A declared source's file, read by DuckDB's reader for its format with the declared types. */
async function importDeclaredFile(
  source: SourceDeclaration,
  positionals: string[],
  format: string | boolean | undefined,
  dbPath: string,
  memoryLimit: string,
): Promise<number> {
  const [path] = positionals;
  if (path === undefined || path === '-') throw new Error(`give the file to load into ${source.name}: DuckDB's readers read a file, not standard input`);
  const fileFormatOf = fileFormat(path, typeof format === 'string' ? format : undefined);
  const totalBytes = (await stat(path)).size;
  stopCleanlyOnSignals();
  const instance = await openOrHandOver(dbPath, memoryLimit, { source: source.name, path, format: typeof format === 'string' ? format : undefined });
  if (instance === undefined) return 0;
  const connection = await instance.connect();
  const batchId = randomUUID();
  console.error(`import ${batchId}: ${path} (${fileFormatOf.format}${fileFormatOf.gzip ? ', gzip' : ''}) -> ${source.name} in ${dbPath}`);
  const progress = progressReporter('importing');
  try {
    const result = await importDeclared(connection, source, path, {
      format: fileFormatOf,
      batchId,
      onProgress: ({ events, bytes }) => progress.update({ events, bytes, totalBytes }),
    });
    progress.done();
    if (result.previous !== undefined) console.error(alreadyImported(result.previous, result.bytes));
    else console.error(`committed import ${result.batchId}: ${result.rows.toLocaleString('en-US')} row(s) (${formatBytes(result.bytes)}) into ${source.name} in ${dbPath}`);
    return 0;
  } catch (error) {
    progress.done();
    throw new Error(`${(error as Error).message}\nimport ${batchId} failed; nothing of it was written to ${dbPath}`, { cause: error });
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

/**
 * The database for writing; or, when a `serve` holds it and takes files (CANNERY_INGEST=true), the
 * file handed to that server, which loads it (import-handoff.ts): undefined once it has. Standard
 * input (`-`) is handed over as a file too: written first to an owner-only file the server reads
 * (the server loads files by path, between its commits), removed once it has answered.
 */
async function openOrHandOver(
  dbPath: string,
  memoryLimit: string,
  file: { source: string; path: string; format?: string | undefined },
  threads?: number,
): Promise<DuckDBInstance | undefined> {
  try {
    return await openDuckDb({ path: dbPath, memoryLimit, ...(threads === undefined ? {} : { threads }) });
  } catch (error) {
    // No server there takes files (no socket): the holder's own words (database-busy.ts), before standard input is read.
    if (!(error instanceof DatabaseBusy) || !existsSync(handoffSocketPath(dbPath))) throw error;
    const batchId = randomUUID();
    const fromStdin = file.path === '-';
    const spooled = fromStdin ? await spoolStdin() : undefined;
    const path = spooled?.path ?? resolve(file.path);
    const handed = await handImportOver(dbPath, { source: file.source, path, batchId, ...(file.format === undefined ? {} : { format: file.format }) })
      .catch((failed: Error) => {
        throw new Error(`${failed.message}\nimport ${batchId} failed; nothing of it was written to ${dbPath}`, { cause: failed });
      })
      .finally(() => spooled?.remove());
    if (handed === undefined) throw error;
    const input = fromStdin ? 'standard input' : file.path;
    console.error(`import ${batchId}: ${input} -> ${file.source} in ${dbPath}, handed to the \`cannery serve\` that holds it${error.holder === undefined ? '' : ` (PID ${error.holder})`}`);
    if (handed.previous !== undefined) console.error(alreadyImported(handed.previous, handed.bytes));
    else console.error(`committed import ${handed.batchId}: ${handed.rows.toLocaleString('en-US')} row(s) (${formatBytes(handed.bytes)}) into ${file.source} in ${dbPath}`);
    return undefined;
  }
}

/** Standard input, whole, in a folder of its own that only this user may read. */
async function spoolStdin(): Promise<{ path: string; remove: () => Promise<void> }> {
  const folder = await mkdtemp(join(tmpdir(), 'cannery-import-'));
  const path = join(folder, 'stdin.ndjson');
  try {
    await pipeline(process.stdin, createWriteStream(path, { mode: 0o600 }));
  } catch (error) {
    await rm(folder, { recursive: true, force: true });
    throw error;
  }
  return { path, remove: () => rm(folder, { recursive: true, force: true }) };
}

function alreadyImported(previous: LedgerEntry, bytes: number): string {
  return (
    `already imported: these ${formatBytes(bytes)} went into ${previous.source} as import ${previous.batchId} at ${previous.committedAt.toISOString()} ` +
    `(${previous.events.toLocaleString('en-US')} events); nothing was written this time`
  );
}

function summary(result: ImportResult, source: string, dbPath: string): string {
  if (result.previous !== undefined) return alreadyImported(result.previous, result.bytes);
  const size = formatBytes(result.bytes);
  const lines = [`committed import ${result.batchId}: ${result.rows.toLocaleString('en-US')} event(s) (${size}) into ${source} in ${dbPath}`];
  if (result.farFromTimeOrder) {
    lines.push(
      `its events were far from time order, so queries over a time range now read more of ${source} than they need; ` +
        `\`cannery compact --db ${dbPath}\` (with the server stopped) rewrites the table in time order`,
    );
  }
  if (result.replacedLines > 0) {
    lines.push(`${result.replacedLines.toLocaleString('en-US')} line(s) had invalid UTF-8, stored with U+FFFD in place of the bad bytes (the first: line ${result.firstReplacedLine})`);
  }
  return lines.join('\n');
}

/**
 * Ctrl-C or a service manager's SIGTERM: exit, which removes the staged batch (staging.ts); the
 * transaction was never committed, so DuckDB keeps nothing of it.
 */
function stopCleanlyOnSignals(): void {
  for (const [signal, code] of [['SIGINT', 130], ['SIGTERM', 143]] as const) {
    process.once(signal, () => {
      console.error(`\ncannery: ${signal}: import stopped; nothing of it was written`);
      process.exit(code);
    });
  }
}
