/**
 * `cannery import`: NDJSON log events -> a source table, in one transaction, in bounded memory.
 *
 * The input is read in batches. JS checks each line, learns the schema and writes the batch to a
 * staged file in the table's own layout (event.ts); DuckDB widens the table to the schema so far and
 * reads the file into it with `read_json` and the table's column types (insert-staged.ts), which is
 * DuckDB's native reader doing all the work. DuckDB inserts one batch while JS stages the next, in
 * a second file: the two overlap on two cores instead of taking turns. Memory holds a batch being
 * staged, whatever the input's size; DuckDB's share is capped by the connection's memory_limit (the
 * CLI sets it). Everything lands in one transaction with a row in the imports ledger (ledger.ts): a
 * failed or killed import leaves nothing, and a committed one is known by the input's bytes, so
 * loading it again is a no-op.
 */
import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DuckDBConnection } from '#duckdb-api';
import { BUILT_IN_SOURCES, type SourceDescriptor } from '../../../config/sources.js';
import { ensureSourceTable, readSourceTable, type SourceTable } from '../source-tables.js';
import { cloneShape, emptyRecord, mergeRecord, recordShapeToValueShape } from '../value-shape.js';
import { EventNormaliser } from './event.js';
import { insertStaged } from './insert-staged.js';
import { InputDigest } from './input-digest.js';
import { findImport, recordImport, type LedgerEntry } from './ledger.js';
import { lineBatches, newTally, type TextInput } from './lines.js';
import { StagedFile } from './staged-file.js';
import { TimeOrder } from './time-order.js';
import { createStagingFolder, removeStagingFolder } from './staging.js';

export interface ImportOptions {
  /** Sources whose declared fields a newly created table gets too, so the shipped SQL can read it. */
  sources?: readonly SourceDescriptor[];
  /** Where batches are staged (two at a time); default: the system's temporary folder. */
  tempDirectory?: string;
  /** Staged bytes per batch: what DuckDB reads at once. */
  batchBytes?: number;
  /** The longest line accepted, in bytes. */
  maxLineBytes?: number;
  /** `replace`: invalid UTF-8 becomes U+FFFD and the lines are counted, instead of stopping the import. */
  invalidUtf8?: 'error' | 'replace';
  /** Named before anything is read, so whoever prints it does so before a crash could happen. */
  batchId?: string;
  /** Called as the input is read: events and bytes so far. */
  onProgress?: (progress: { events: number; bytes: number }) => void;
  /**
   * Events sent over HTTP (engine/ingest), not a file: loaded even when the same bytes were loaded
   * before, since the same events sent twice are twice the events, as in any event API.
   */
  repeatable?: boolean;
  /**
   * The table as its one writer last committed it (`ImportResult.table`), so each of a stream of
   * small imports does not read the table's shape again: serve's ingest writer (ingest-target.ts),
   * which nothing else in the process widens. Read from the database when not given.
   */
  knownTable?: SourceTable;
}

export interface ImportResult {
  /** Events written; 0 when the input was imported before (`previous`). */
  rows: number;
  batchId: string;
  bytes: number;
  sha256: string;
  /** Lines whose invalid UTF-8 was replaced, and the first of them (`invalidUtf8: 'replace'`). */
  replacedLines: number;
  firstReplacedLine: number | undefined;
  /** The events were far from time order: time-bounded queries read more than they need until `cannery compact`. */
  farFromTimeOrder: boolean;
  /** The earlier import of these same bytes into this source, when there was one: nothing was written. */
  previous?: LedgerEntry;
  /** The table as this import committed it; undefined when it wrote nothing (`previous`) or there is none. */
  table?: SourceTable;
}

export const DEFAULT_BATCH_BYTES = 64 << 20;
export const DEFAULT_MAX_LINE_BYTES = 64 << 20;
const NEWLINE = Buffer.from('\n');

export async function importNdjson(
  connection: DuckDBConnection,
  sourceName: string,
  input: TextInput,
  options: ImportOptions = {},
): Promise<ImportResult> {
  if (sourceName.trim() === '') throw new RangeError('a source name is required');
  const batchId = options.batchId ?? randomUUID();
  const existing = options.knownTable ?? (await readSourceTable(connection, sourceName));
  const metadata = existing === undefined ? emptyRecord() : cloneShape(existing.metadata);
  const declared = (options.sources ?? BUILT_IN_SOURCES).find((source) => source.name === sourceName);
  if (declared !== undefined) mergeRecord(metadata, recordShapeToValueShape(declared.metadata), 'metadata');
  const columns = declared?.columns ?? {};
  const normaliser = new EventNormaliser(metadata, columns);
  const digest = new InputDigest();
  const tally = newTally();
  const batchBytes = options.batchBytes ?? DEFAULT_BATCH_BYTES;

  const order = new TimeOrder();
  const folder = await createStagingFolder(options.tempDirectory ?? tmpdir());
  // Two staged files in turn: DuckDB inserts one batch while JS reads and stages the next.
  const files = [0, 1].map((index) => new StagedFile(join(folder, `batch-${index}.ndjson`), batchBytes));
  let staged = files[0]!;
  let rows = 0;
  // The table as this transaction has it: what the last batch widened it to, or as it was.
  let table = existing;
  // The insert of the batch before this one, settled to its failure (or undefined), so that a
  // failure no one awaits yet is not an unhandled rejection.
  let inserting: Promise<{ failure: unknown } | undefined> | undefined;
  // The connection runs one statement at a time; a failed insert holds the earliest bad line.
  const inserted = async () => {
    const settled = await inserting;
    inserting = undefined;
    if (settled !== undefined) throw settled.failure;
  };
  await connection.run('BEGIN TRANSACTION');
  try {
    // The batch being staged: its events, its first input line and the blank ones (which DuckDB's
    // reader would not count, so they are not staged), the longest line.
    let events = 0;
    let firstLine = 1;
    let blankLines: number[] = [];
    let longestLine = 0;

    const load = async () => {
      await staged.end();
      if (events > 0) {
        // A record became a list after some lines of this batch held it as one object. Restaged
        // now, before a line of the next batch can widen the shapes further.
        if (normaliser.layoutChanged) await staged.rewrite((json) => normaliser.restage(json));
        await inserted();
        ({ table } = await ensureSourceTable(connection, sourceName, normaliser.metadata, columns, table));
        // Not awaited: the statement's text and types are fixed before insertStaged first awaits,
        // so the shapes the next batch widens do not reach it (they reach the table at its load).
        inserting = insertStaged(connection, table, columns, {
          file: staged.path,
          firstLine,
          blankLines,
          timestampForm: normaliser.batchTimestampForm,
          // A rewritten line is longer than it was read by a few bytes per field at most.
          longestLine: normaliser.layoutChanged ? staged.bytes : 2 * longestLine,
        }).then(
          () => undefined,
          (failure: unknown) => ({ failure }),
        );
        rows += events;
        staged = files[staged === files[0] ? 1 : 0]!;
      }
      events = 0;
      blankLines = [];
      longestLine = 0;
      normaliser.startBatch();
    };

    await staged.begin();
    normaliser.startBatch();
    const lineOptions = { maxLineBytes: options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES, invalidUtf8: options.invalidUtf8 ?? 'error', digest };
    for await (const batch of lineBatches(input, lineOptions, tally)) {
      const { lines } = batch;
      // Lines DuckDB reads as they are keep their bytes: the chunk is written as it was read.
      let unchanged = batch.raw !== undefined;
      let chunkEvents = 0;
      for (let index = 0; index < lines.length; index += 1) {
        const text = lines[index]!;
        if (text.trim() === '') {
          blankLines.push(batch.firstLine + index);
          unchanged = false;
          continue;
        }
        const { json, micros } = normaliser.normalise(text, batch.firstLine + index);
        if (json !== text) {
          lines[index] = json;
          unchanged = false;
        }
        chunkEvents += 1;
        order.add(micros);
      }
      if (chunkEvents > 0) {
        await staged.append(unchanged ? batch.raw! : (chunkEvents < lines.length ? lines.filter((line) => line.trim() !== '') : lines).join('\n'));
        await staged.append(NEWLINE);
        events += chunkEvents;
      }
      longestLine = Math.max(longestLine, batch.longestLine);
      if (staged.bytes >= batchBytes) {
        await load();
        await staged.begin();
        firstLine = tally.lines + 1;
      }
      options.onProgress?.({ events: rows + events, bytes: tally.bytes });
    }
    await load();
    await inserted();

    const { sha256, headSha256 } = digest.digest();
    const result: ImportResult = {
      rows,
      batchId,
      bytes: tally.bytes,
      sha256,
      replacedLines: tally.replacedLines,
      firstReplacedLine: tally.firstReplacedLine,
      farFromTimeOrder: order.farFromOrder,
    };
    const previous = rows === 0 || options.repeatable ? undefined : await findImport(connection, sourceName, sha256);
    if (previous !== undefined) {
      await connection.run('ROLLBACK');
      return { ...result, rows: 0, previous };
    }
    // An empty input writes nothing, and would make every later empty input look like a repeat.
    if (rows > 0) await recordImport(connection, { batchId, source: sourceName, sha256, headSha256, bytes: tally.bytes, events: rows });
    await connection.run('COMMIT');
    return table === undefined ? result : { ...result, table };
  } catch (error) {
    // A batch still being inserted holds earlier lines than the one that failed here: its failure is the one to tell.
    const earlier = await inserting;
    await rollbackAfter(connection);
    throw earlier === undefined ? error : earlier.failure;
  } finally {
    for (const file of files) await file.abandon();
    await removeStagingFolder(folder);
  }
}

/**
 * ROLLBACK after a failure. DuckDB ends a transaction itself when a write fails for want of disk
 * or memory, and then refuses the ROLLBACK ("no transaction is active"): that refusal would hide
 * the real cause, which the caller rethrows.
 */
async function rollbackAfter(connection: DuckDBConnection): Promise<void> {
  try {
    await connection.run('ROLLBACK');
  } catch {
    // The transaction is already gone: nothing of it was written.
  }
}
