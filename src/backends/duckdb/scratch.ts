/**
 * Scratch DuckDB databases, in memory and thrown away after one use: an endpoint test runs on
 * one holding its events (loaded by `cannery import`'s own code, so they mean what an import
 * would make of them: a log source's by the log import, a declared source's by the declared
 * one), and contracts are described on one holding none.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InvalidEvent, type ScratchBackend, type ScratchEngine, type SourceEvents } from '../../engine/backend.js';
import { BUILT_IN_SOURCES, type SourceDescriptor } from '../../config/sources.js';
import { describeDuckDbQuery, openDuckDb, runDuckDbQuery, seal, sourceDialect, withConnection } from './backend.js';
import { openConnections, type Connections } from './connections.js';
import { DataError } from './data-error.js';
import { importNdjson } from './import/import.js';
import { importDeclared } from './import/declared-import.js';
import { createSourceTables } from './source-tables.js';
import { Readable } from 'node:stream';
import type { DuckDBConnection } from '#duckdb-api';
import { duckDbDialect } from '../../sql/dialects/duckdb/dialect.js';
import type { Dialect } from '../../sql/generator/dialect.js';
import { readTableColumns } from './table-columns.js';
import { hostWatch } from './host-functions/watch.js';
import type { SourceDeclaration } from '../../config/source-declaration.js';
import { sourceColumnsLookup } from '../../sql/analyse/shapes.js';
import { ensureDeclaredTables } from './declared-tables.js';

export function duckDbScratchEngine(sources: readonly SourceDescriptor[] = BUILT_IN_SOURCES, declared: readonly SourceDeclaration[] = []): ScratchEngine {
  const dialect =
    declared.length === 0
      ? sourceDialect(sources)
      : duckDbDialect([...sources.map((source) => source.name), ...declared.map((source) => source.name)], { sourceColumns: sourceColumnsLookup(sources, declared) });
  return {
    dialect,
    async open(events: SourceEvents): Promise<ScratchBackend> {
      // One thread: a scratch database holds a handful of rows, and threads cost time to start.
      // Its one connection runs one query at a time: the watch is that query's.
      const watch = hostWatch();
      const instance = await openDuckDb({ path: ':memory:', threads: 1, hostWatch: watch });
      let stored: Dialect;
      let connections: Connections | undefined;
      try {
        stored = await withConnection(instance, async (connection) => {
          await createSourceTables(connection, sources);
          await ensureDeclaredTables(connection, declared);
          // A declared source's table is there, empty: what describing a contract needs.
          for (const [source, list] of Object.entries(events)) await importEvents(connection, source, list, sources, declared);
          // Events with several objects in a record store it as a list: SQL for this database is
          // written for its tables as they are stored (docs/storage.md).
          const names = [...sources.map((known) => known.name), ...declared.map((known) => known.name)];
          return duckDbDialect(names, { sourceColumns: await readTableColumns(connection, names) });
        });
        // One: a scratch database answers one test's queries, one after another.
        connections = await openConnections(instance, 1);
        await withConnection(instance, seal);
      } catch (error) {
        await connections?.close();
        instance.closeSync();
        throw error;
      }
      const serving = connections;
      return {
        name: 'duckdb',
        dialect: stored,
        run: (request) => runDuckDbQuery(serving, request, watch),
        describe: (request) => describeDuckDbQuery(instance, request),
        async close() {
          await serving.close();
          instance.closeSync();
        },
      };
    },
  };
}

async function importEvents(
  connection: DuckDBConnection,
  source: string,
  events: readonly unknown[],
  sources: readonly SourceDescriptor[],
  declared: readonly SourceDeclaration[],
): Promise<void> {
  const declaration = declared.find((known) => known.name === source);
  if (!declaration && !sources.some((known) => known.name === source)) {
    const names = [...sources, ...declared].map((known) => known.name).join(', ');
    throw new InvalidEvent(source, 0, `"${source}" is not a source; sources: ${names}`);
  }
  if (events.length === 0) return;
  // One event per line: JSON.stringify writes no newline, so line N is events[N - 1].
  const text = events.map((event) => JSON.stringify(event)).join('\n');
  try {
    if (declaration) await importRows(connection, declaration, text);
    else await importNdjson(connection, source, Readable.from([text]), { sources });
  } catch (error) {
    if (error instanceof DataError && error.line !== undefined) {
      throw new InvalidEvent(source, error.line - 1, error.message.replace(/^.*?line \d+(: |, )/, ''), { cause: error });
    }
    throw error;
  }
}

/**
 * A declared source's rows, by the import of `cannery import --source` (DuckDB's NDJSON reader
 * told the declared types), which reads a file: the rows are written to one for it.
 */
async function importRows(connection: DuckDBConnection, declaration: SourceDeclaration, text: string): Promise<void> {
  const folder = await mkdtemp(join(tmpdir(), 'cannery-test-rows-'));
  try {
    const file = join(folder, 'rows.ndjson');
    await writeFile(file, text);
    await importDeclared(connection, declaration, file, { format: { format: 'ndjson', gzip: false } });
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}
