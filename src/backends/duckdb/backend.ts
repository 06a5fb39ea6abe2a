/**
 * The embedded backend: DuckDB running the translated BigQuery SQL.
 *
 * After set-up the instance is sealed: external access off (no file, network or extension
 * access) and configuration locked, so no query can re-open it. A query has a connection to
 * itself while it runs (connections.ts), which is what lets a timeout interrupt exactly that query.
 */
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { BIGINT, BOOLEAN, DOUBLE, DuckDBInstance, VARCHAR, type DuckDBConnection, type DuckDBType, type DuckDBValue } from '#duckdb-api';
import { CanneryError } from '../../core/errors.js';
import { withoutServerPaths } from '../../core/server-paths.js';
import { EXECUTION_TIME_PARAM } from '../../sql/language.js';
import { OUTPUT_BOUND_ERROR } from '../../sql/functions/output-bounds.js';
import { OVERFLOW_ERROR } from '../../sql/functions/overflow.js';
import { raisedMessage } from '../../sql/dialects/duckdb/semantics.js';
import { sqlMacroStatements } from '../../sql/dialects/duckdb/sql-macros.js';
import type { Dialect } from '../../sql/generator/dialect.js';
import { duckDbDialect } from '../../sql/dialects/duckdb/dialect.js';
import { quoteIdentifier, quoteString } from '../../sql/dialects/duckdb/quote.js';
import { sourceColumnsLookup, type Columns } from '../../sql/analyse/shapes.js';
import { BUILT_IN_SOURCES, type SourceDescriptor } from '../../config/sources.js';
import { DEFAULTS } from '../../config/settings.js';
import { CURRENT_LAYOUT } from './layout-version.js';
import { ensureSourceTables, readSourceTables, sourceTablesCurrent } from './source-tables.js';
import { declaredTablesCurrent, ensureDeclaredTables } from './declared-tables.js';
import type { SourceDeclaration } from '../../config/source-declaration.js';
import { databaseBusy } from './lock.js';
import { readWireRows, StreamFailed } from './result-rows.js';
import { openConnections, type Connections } from './connections.js';
import { NULL_ELEMENT, NUMERIC_OVERFLOW_ERROR } from './values.js';
import { writeBackType } from './write-back.js';
import { checkFileLength, readEveryTable } from './database-file.js';
import { readPresentRecords, tableColumns } from './table-columns.js';
import type { Backend, QueryRequest, QueryResult } from '../../engine/backend.js';
import { resultBudget } from '../../engine/serve/result-budget.js';
import type { ColumnField, ParamType } from '../../core/types.js';
import { columnTypeOf } from './contract-types.js';
import { registerHostFunctions } from './host-functions/register.js';
import { hostWatch, watchQuery, type HostWatch } from './host-functions/watch.js';
import { callsHostFunction, hostFunctionGate } from './host-function-gate.js';
import { inCallerTerms } from './caller-terms.js';

export interface DuckDbOptions {
  /** A database file, or ':memory:'. */
  path: string;
  sources?: readonly SourceDescriptor[];
  /** The project's own sources (sources/*.yaml), whose tables are created or migrated as the database opens. */
  declared?: readonly SourceDeclaration[];
  /** DuckDB memory_limit, e.g. '1GB'. */
  memoryLimit?: string;
  threads?: number;
  /** Queries that may run at once (CANNERY_MAX_CONCURRENT_QUERIES): the serving connections, one each. */
  connections?: number;
  /** Open without write access (what the service does once the tables exist). */
  readOnly?: boolean;
  /**
   * Serve with write access kept: the demo database, which the serving process itself keeps
   * current (src/demo/live.ts); DuckDB lets only one process open a file for writing.
   */
  writable?: boolean;
  /**
   * The one folder the sealed instance may still read files from: where serve's writer stages
   * events sent over HTTP for DuckDB's reader (ingest-target.ts). Absent: no file at all.
   */
  stagingDirectory?: string;
  /** Told what the operator should know about the database (a table in an older layout). */
  notice?: (message: string) => void;
  /** What the instance's host functions share with the query calling them (its deadline); none by default. */
  hostWatch?: HostWatch;
}

/** Settings every connection needs for BigQuery semantics. */
export const BIGQUERY_COMPATIBLE_SETTINGS: Record<string, string> = {
  // BigQuery sorts NULLs first ascending and last descending; DuckDB's default is always last.
  default_null_order: 'nulls_first_on_asc_last_on_desc',
};

/**
 * Settings for the plans cannery's queries need (docs/storage.md). DuckDB reads the other columns
 * of a top-N only for the rows it keeps ("late materialization") up to LIMIT 50 by default; an
 * endpoint's row cap goes up to 100,000, and logs.all's newest 100 rows of nested metadata took
 * 3 to 6x the CPU without it.
 */
export const PLAN_SETTINGS: Record<string, string> = {
  late_materialization_max_rows: '100000',
};

/**
 * The storage format of a database file cannery creates (docs/storage.md, "The file's storage
 * format"). From v1.3.0 DuckDB may store a text column as a dictionary of FSST-compressed strings
 * (DICT_FSST), each distinct string once per segment, where the older format compressed every
 * row's string on its own: on the same 1M edge events, `usage.api-counts` daily (a search of
 * every URL of the week) took about half the CPU, and the file was a quarter smaller; the newest
 * 100 rows' `metadata` (logs.all) took a tenth to a fifth more (docs/benchmarks.md). DuckDB
 * before 1.3 cannot read such a file; the one cannery bundles reads both. The setting applies to
 * files created from now on: an existing file keeps the format it was written in.
 */
const STORAGE_SETTINGS: Record<string, string> = {
  storage_compatibility_version: 'v1.3.0',
};

export async function openDuckDb(options: DuckDbOptions): Promise<DuckDBInstance> {
  if (options.path !== ':memory:') await mkdir(dirname(options.path), { recursive: true });
  const config: Record<string, string> = { ...BIGQUERY_COMPATIBLE_SETTINGS, ...PLAN_SETTINGS, ...STORAGE_SETTINGS };
  if (options.memoryLimit) config.memory_limit = options.memoryLimit;
  if (options.threads) config.threads = String(options.threads);
  if (options.readOnly) config.access_mode = 'READ_ONLY';
  let instance: DuckDBInstance;
  try {
    instance = await DuckDBInstance.create(options.path, config);
  } catch (error) {
    throw databaseBusy(error, options.path, !options.readOnly) ?? new Error(`cannot open DuckDB database ${options.path}: ${withoutServerPaths((error as Error).message)}`, { cause: error });
  }
  try {
    await withConnection(instance, async (connection) => {
      // Before anything is written to a file that lacks blocks.
      if (options.path !== ':memory:') await checkFileLength(connection, options.path);
      // TimeZone needs the ICU extension, which is loaded only once the instance exists.
      await connection.run("SET GLOBAL TimeZone = 'UTC'");
      registerHostFunctions(connection, options.hostWatch);
    });
  } catch (error) {
    instance.closeSync();
    throw error;
  }
  return instance;
}

export interface DuckDbBackend extends Backend {
  /** A connection of the serving instance: for writes when opened `writable`. */
  connect(): Promise<DuckDBConnection>;
  redeclare(declared: readonly SourceDeclaration[]): Promise<void>;
}

/** What serves queries: the instance, its connections, and the dialect written for its tables. */
interface Serving {
  instance: DuckDBInstance;
  connections: Connections;
  dialect: Dialect;
}

/**
 * The serving instance, read-only for a file (but the demo's, `writable`), and sealed: even a
 * query that slipped past the sandbox checks can then read only the database's own tables, and
 * write nothing to a read-only file.
 *
 * `redeclare` takes the project's declared sources anew (a source file changed while serving):
 * their tables are created or migrated as at start. A writable instance does that in place; a
 * read-only file, which cannot be written while it is open, is closed and opened again, the
 * queries running let finish first and new ones held until it is open. A refused migration is
 * found by reading alone, before anything is closed or changed.
 */
export async function createDuckDbBackend(options: DuckDbOptions): Promise<DuckDbBackend> {
  const sources = options.sources ?? BUILT_IN_SOURCES;
  const watch = hostWatch();
  let declared = options.declared ?? [];
  let serving = await openServing(options, sources, declared, watch);
  const gate = hostFunctionGate<QueryResult>();
  let reopening: Promise<void> | undefined;
  let running = 0;
  let idle: (() => void) | undefined;
  const inPlace = options.writable === true || options.path === ':memory:';
  // The start-up notices (a table in an older layout) are said once, not on every reopen.
  const again = { ...options, notice: undefined };

  const reopen = async (next: readonly SourceDeclaration[]) => {
    while (running > 0) await new Promise<void>((resolve) => (idle = resolve));
    await serving.connections.close();
    serving.instance.closeSync();
    try {
      serving = await openServing(again, sources, next, watch);
    } catch (error) {
      // A migration is one transaction: the file is as it was, and opens for the previous declarations.
      serving = await openServing(again, sources, declared, watch);
      throw error;
    }
  };

  return {
    name: 'duckdb',
    get dialect() {
      return serving.dialect;
    },
    async run(request) {
      // A reopen that failed opened the file again as it was: a query runs either way.
      while (reopening) await reopening.catch(() => undefined);
      running += 1;
      const current = serving;
      try {
        // The gate lets one host-function query run at a time: the watch is that query's.
        return await gate(request.sql, () => runDuckDbQuery(current.connections, request, callsHostFunction(request.sql) ? watch : undefined));
      } finally {
        running -= 1;
        if (running === 0) idle?.();
      }
    },
    connect: () => serving.instance.connect(),
    async redeclare(next) {
      while (reopening) await reopening.catch(() => undefined);
      if (inPlace) {
        await withConnection(serving.instance, (connection) => ensureDeclaredTables(connection, next));
      } else if (!(await withConnection(serving.instance, (connection) => declaredTablesCurrent(connection, next)))) {
        reopening = reopen(next).finally(() => (reopening = undefined));
        await reopening;
        declared = next;
        return;
      }
      const dialect = await withConnection(serving.instance, async (connection) => servedDialect(connection, options, sources, next));
      serving = { ...serving, dialect };
      declared = next;
    },
    async close() {
      while (reopening) await reopening.catch(() => undefined);
      await serving.connections.close();
      serving.instance.closeSync();
    },
  };
}

/** Opens the instance with the tables of `declared` made, its connections ready, sealed, and the dialect for its tables. */
async function openServing(options: DuckDbOptions, sources: readonly SourceDescriptor[], declared: readonly SourceDeclaration[], watch: HostWatch): Promise<Serving> {
  const instance = await openReadable({ ...options, hostWatch: watch }, sources, declared);
  const names = sources.map((source) => source.name);
  const declaredNames = declared.map((source) => source.name);
  let connections: Connections | undefined;
  try {
    const dialect = await withConnection(instance, async (connection) => {
      if (options.path !== ':memory:') await readEveryTable(connection, options.path, [...names, ...declaredNames]);
      if (options.notice) {
        for (const table of (await readSourceTables(connection, names)).values()) {
          if (table.layout < CURRENT_LAYOUT && (await hasRows(connection, table.name))) {
            options.notice(
              `table "${table.name}" is in storage layout ${table.layout} (every nested record a list), which reads correctly but slower; ` +
                `\`cannery compact --db ${options.path}\` rewrites it in layout ${CURRENT_LAYOUT} (with the server stopped)`,
            );
          }
        }
      }
      // Before the seal: they are set up with a setting the sealed instance no longer takes.
      connections = await openConnections(instance, options.connections ?? DEFAULTS.maxConcurrentQueries);
      if (options.stagingDirectory !== undefined) await connection.run(`SET allowed_directories = [${quoteString(`${options.stagingDirectory.replace(/\/+$/, '')}/`)}]`);
      await seal(connection);
      return servedDialect(connection, options, sources, declared);
    });
    return { instance, connections: connections!, dialect };
  } catch (error) {
    await connections?.close();
    instance.closeSync();
    throw error;
  }
}

/**
 * The generator writes each query for the tables as they are stored (docs/storage.md), and, for a
 * file no one writes while it is served, for the records every row holds. Declared tables hold
 * their columns as declared: no storage layout, no records stored as one STRUCT.
 */
async function servedDialect(connection: DuckDBConnection, options: DuckDbOptions, sources: readonly SourceDescriptor[], declared: readonly SourceDeclaration[]): Promise<Dialect> {
  const names = sources.map((source) => source.name);
  const declaredNames = declared.map((source) => source.name);
  const tables = await readSourceTables(connection, names);
  const declaredTables = await readSourceTables(connection, declaredNames);
  const present = options.path !== ':memory:' && !options.writable ? await readPresentRecords(connection, tables) : undefined;
  const sourceColumns = tableColumns(new Map([...tables, ...declaredTables]), present);
  return duckDbDialect([...names, ...declaredNames], { sourceColumns, strictNames: true });
}

/**
 * A file whose tables are all there, as this version needs them, is opened read-only at once: so
 * a second reader (`cannery run` beside a running `serve`) opens it too. Otherwise the tables are
 * made or widened with write access first, and the file then reopened read-only (unless `writable`).
 */
async function openReadable(options: DuckDbOptions, sources: readonly SourceDescriptor[], declared: readonly SourceDeclaration[]): Promise<DuckDBInstance> {
  const ensure = async (connection: DuckDBConnection) => {
    await ensureSourceTables(connection, sources);
    await ensureDeclaredTables(connection, declared);
  };
  if (options.path === ':memory:') {
    const instance = await openDuckDb(options);
    await withConnection(instance, ensure);
    return instance;
  }
  if (existsSync(options.path) && !options.writable) {
    const reader = await openDuckDb({ ...options, readOnly: true });
    let current = false;
    try {
      current = await withConnection(reader, async (connection) => (await sourceTablesCurrent(connection, sources)) && (await declaredTablesCurrent(connection, declared)));
    } finally {
      if (!current) reader.closeSync();
    }
    if (current) return reader;
  }
  const writer = await openDuckDb(options);
  try {
    await withConnection(writer, ensure);
  } catch (error) {
    writer.closeSync();
    throw error;
  }
  if (options.writable) return writer;
  writer.closeSync();
  return openDuckDb({ ...options, readOnly: true });
}

/** The DuckDB dialect for tables named after `sources`, knowing the fields they declare. */
export function sourceDialect(sources: readonly SourceDescriptor[]): Dialect {
  return duckDbDialect(sources.map((source) => source.name), { sourceColumns: sourceColumnsLookup(sources) });
}

/** External access off and configuration locked, for the whole instance: no query can open a file, the network or an extension. */
export async function seal(connection: DuckDBConnection): Promise<void> {
  await connection.run('SET enable_external_access = false');
  await connection.run('SET lock_configuration = true');
}

async function hasRows(connection: DuckDBConnection, table: string): Promise<boolean> {
  const reader = await connection.runAndReadAll(`SELECT EXISTS (SELECT 1 FROM ${quoteIdentifier(table)}) AS present`);
  return (reader.getRowObjectsJS()[0] as { present: boolean }).present;
}

export async function withConnection<T>(instance: DuckDBInstance, work: (connection: DuckDBConnection) => Promise<T>): Promise<T> {
  const connection = await instance.connect();
  try {
    return await work(connection);
  } finally {
    connection.closeSync();
  }
}

/**
 * Runs `request` on a free connection, reading its streamed answer: an endpoint's own SQL on the
 * statement the connection holds of it (held-statements.ts). `watch`, for a query that
 * calls host functions, is what they share with it: its deadline, and the bound or timeout they
 * met, which fail the query even where SAFE. made the function's error a NULL.
 */
export function runDuckDbQuery(connections: Connections, request: QueryRequest, watch?: HostWatch): Promise<QueryResult> {
  return connections.use(async (connection, held) => {
    const started = performance.now();
    const stopWatching = watch ? watchQuery(watch, started + request.timeoutMs) : undefined;
    let timedOut = false;
    const timeout = () => new CanneryError('query_timeout', `${request.endpointName}: the query did not finish within ${request.timeoutMs} ms`);
    // An interrupt that lands while DuckDB is still starting a query is lost (and the query then
    // runs to its end, however long): so it is repeated until the query stops.
    let timer = setTimeout(function interrupt() {
      timedOut = true;
      connection.interrupt();
      timer = setTimeout(interrupt, INTERRUPT_AGAIN_MS);
    }, request.timeoutMs);
    try {
      const result = request.recurring ? await held.stream(request.sql, bindings(request)) : await connection.stream(request.sql, bindings(request));
      const rows = await readWireRows(result, request.maxRows, resultBudget(request.maxBytes), request.writeBack);
      if (watch?.bound !== undefined) throw boundPassed(request, watch.bound);
      if (watch?.expired) throw timeout();
      return { rows, backendMs: performance.now() - started };
    } catch (error) {
      if (request.recurring) held.forget(request.sql);
      if (watch?.bound !== undefined) throw boundPassed(request, watch.bound);
      if (error instanceof CanneryError) throw error;
      if (timedOut || watch?.expired) throw timeout();
      if (error instanceof StreamFailed) {
        // DuckDB's client gives no reason for a stream that failed; a host function's error is
        // one the watch saw. Anything else is a failure cannery cannot name.
        const failure = watch?.failure;
        throw new CanneryError('query_failed', `${request.endpointName}: the query failed: ${failure ?? error.message}`, { cause: error, queryRejected: failure !== undefined });
      }
      const message = firstLine((error as Error).message);
      const outputBound = OUTPUT_BOUND_ERROR.exec(message)?.[1];
      if (outputBound !== undefined) throw boundPassed(request, outputBound);
      // An overflow the generated SQL checks is BigQuery's error, in its words alone: not the cast that raised it.
      const overflow = OVERFLOW_ERROR.exec(message)?.[1];
      if (overflow !== undefined) throw new CanneryError('query_failed', `${request.endpointName}: the query failed: ${overflow}`, { cause: error, queryRejected: true });
      // So is any other error BigQuery raises at run time that the generated SQL or a macro raises (division by zero, a bad cast, an index past the array).
      const raised = raisedMessage(message, request.sql, macroDefinitions());
      if (raised !== undefined) throw new CanneryError('query_failed', `${request.endpointName}: the query failed: ${raised}`, { cause: error, queryRejected: true });
      const outOfMemory = OUT_OF_MEMORY.test(message);
      throw new CanneryError('query_failed', `${request.endpointName}: the query failed: ${inCallerTerms(message)}${outOfMemory ? OUT_OF_MEMORY_ADVICE : ''}`, {
        cause: error,
        queryRejected: outOfMemory || QUERY_REJECTIONS.test(message),
      });
    } finally {
      clearTimeout(timer);
      stopWatching?.();
      // A result read only in part (max_rows, or over the byte budget) still has DuckDB computing
      // ahead of it: stopped here, not left running until the connection's next query.
      connection.interrupt();
    }
  });
}

let macros: string | undefined;

/** The SQL of every macro defined on a connection, where an error they raise is written. */
function macroDefinitions(): string {
  return (macros ??= sqlMacroStatements().join('\n'));
}

/** A host function's bound, or a bound the generated SQL checks (REPEAT's output, GENERATE_ARRAY's elements), passed: the caller's query asks for more than the engine builds at once. */
function boundPassed(request: QueryRequest, bound: string): CanneryError {
  return new CanneryError('resources_exceeded', `${request.endpointName}: ${bound}`);
}

/**
 * The columns `request` would return, by running it with each parameter's value bound as its
 * declared type (so `select @n as n` is typed as BigQuery types it; a NULL is bound untyped
 * whatever the type given). On empty tables no row is read.
 */
export async function describeDuckDbQuery(instance: DuckDBInstance, request: QueryRequest): Promise<ColumnField[]> {
  const connection = await instance.connect();
  try {
    const types: Record<string, DuckDBType> = {};
    for (const name of request.parameters) {
      const spec = request.specs[name];
      types[name] = spec ? PARAM_TYPES[spec.type] : VARCHAR;
    }
    const result = await connection.run(request.sql, bindings(request), types);
    const names = result.columnNames();
    return result.columnTypes().map((type, index) => {
      const name = names[index]!;
      const stored = request.writeBack?.[name];
      return { name, type: stored ? writeBackType(columnTypeOf(type), stored) : columnTypeOf(type) };
    });
  } catch (error) {
    throw new CanneryError('query_failed', `${request.endpointName}: the query cannot be described: ${inCallerTerms(firstLine((error as Error).message))}`, { cause: error });
  } finally {
    closeQuietly(connection);
  }
}

const PARAM_TYPES: Record<ParamType, DuckDBType> = { string: VARCHAR, integer: BIGINT, number: DOUBLE, boolean: BOOLEAN };
/** How often a timed-out query is interrupted again until it stops. */
const INTERRUPT_AGAIN_MS = 50;

function bindings(request: QueryRequest): Record<string, DuckDBValue> {
  const values: Record<string, DuckDBValue> = {};
  for (const name of request.parameters) {
    values[name] = name === EXECUTION_TIME_PARAM ? request.now.toISOString() : (request.values[name] ?? null);
  }
  return values;
}

/**
 * DuckDB's error classes that mean "this query (or a value in it) is wrong", not "the database
 * failed". The client splits the SQL into statements first, and prefixes what fails there (an
 * expression nested past DuckDB's depth limit) with "Failed to extract statements:".
 */
const QUERY_REJECTIONS = new RegExp(`^(?:(?:Failed to extract statements: )?(Binder|Parser|Catalog|Conversion|Invalid Input|Out of Range|Not implemented) Error|${NULL_ELEMENT}|${NUMERIC_OVERFLOW_ERROR})`);

/**
 * A query that needs more memory than the instance may use (CANNERY_DUCKDB_MEMORY_LIMIT), as one
 * whose rows are each hundreds of kB does: DuckDB computes a vector of up to 2,048 rows at once,
 * before any row reaches the byte budget, so this limit is what bounds it. It is refused like a
 * query DuckDB cannot run as written: a caller's sandbox query gets a 400.
 */
const OUT_OF_MEMORY = /^Out of Memory Error/;
const OUT_OF_MEMORY_ADVICE = ' (the most DuckDB may use is CANNERY_DUCKDB_MEMORY_LIMIT); ask for fewer rows, or smaller values';

/**
 * DuckDB appends the offending SQL (translated, with our internal names) after the first line;
 * callers get the cause only, without the server's paths (and in their own terms: caller-terms.ts).
 */
function firstLine(message: string): string {
  return withoutServerPaths(message.split('\n')[0]!.trim());
}

function closeQuietly(connection: DuckDBConnection): void {
  try {
    connection.closeSync();
  } catch {
    // Closing after an interrupt can report the interrupt again; the connection is gone either way.
  }
}
