import { afterAll, beforeAll } from 'vitest';
import { DuckDBInstance, type DuckDBConnection, type DuckDBValue } from '#duckdb-api';
import { openDuckDb } from '../../src/backends/duckdb/backend.js';
import { writeBackRows } from '../../src/backends/duckdb/write-back.js';
import type { WireRow } from '../../src/core/types.js';
import type { QueryRequest } from '../../src/engine/backend.js';
import { readTableColumns } from '../../src/backends/duckdb/table-columns.js';
import { duckDbDialect } from '../../src/sql/dialects/duckdb/dialect.js';
import { generate } from '../../src/sql/generator/generate.js';
import { parseQuery } from '../../src/sql/parse/to-tree.js';
import { defineSqlMacros } from '../../src/backends/duckdb/sql-macros.js';

/** A connection as the service opens them: DuckDB in UTC, so TIMESTAMPTZ text and date parts read as UTC. */
export async function connectDuckDB(path = ':memory:'): Promise<{ connection: DuckDBConnection; close: () => void }> {
  const instance = await DuckDBInstance.create(path);
  const connection = await instance.connect();
  await defineSqlMacros(connection);
  await connection.run("SET TimeZone = 'UTC'");
  return {
    connection,
    close: () => {
      connection.closeSync();
      instance.closeSync();
    },
  };
}

/**
 * For the test file that calls it: DuckDB in memory as the service opens it (its host functions),
 * with the SQL macros, opened before the file's tests and closed after them.
 */
export function serviceDuckDbForFile(): { connection: () => DuckDBConnection } {
  let instance: DuckDBInstance | undefined;
  let connection: DuckDBConnection | undefined;
  beforeAll(async () => {
    instance = await openDuckDb({ path: ':memory:' });
    connection = await instance.connect();
    await defineSqlMacros(connection);
  });
  afterAll(() => {
    connection?.closeSync();
    instance?.closeSync();
  });
  return { connection: () => connection! };
}

export async function rows(connection: DuckDBConnection, sql: string, values?: Record<string, string>): Promise<Record<string, unknown>[]> {
  const reader = await connection.runAndReadAll(sql, values);
  return reader.getRowObjectsJS() as Record<string, unknown>[];
}

/**
 * Rows of a BigQuery query on the connection's tables as they are stored, compiled as the DuckDB
 * backend compiles it (the generator, with the tables' own description): what the tests of stored
 * data read through, whatever the storage layout.
 */
export async function bigQueryRows(connection: DuckDBConnection, sql: string, values: Record<string, DuckDBValue> = {}): Promise<Record<string, unknown>[]> {
  const tables = (await rows(connection, 'SELECT table_name FROM duckdb_tables()')).map((row) => String(row.table_name));
  const dialect = duckDbDialect(tables, { sourceColumns: await readTableColumns(connection, tables) });
  const compiled = generate(parseQuery(sql), dialect);
  const bound = Object.fromEntries(compiled.parameters.map((name) => [name, values[name] ?? null]));
  const reader = await connection.runAndReadAll(compiled.sql, bound);
  // As the backend answers: stored records written back into BigQuery's lists.
  return writeBackRows(reader.getRowObjectsJS() as WireRow[], compiled.writeBack) as Record<string, unknown>[];
}

/** A backend query of `sql` with no parameters, the service's default byte budget and a minute to run; `options` override. */
export function queryRequest(sql: string, options: Partial<QueryRequest> = {}): QueryRequest {
  return {
    sql,
    parameters: [],
    values: {},
    specs: {},
    now: new Date(),
    maxRows: 1000,
    maxBytes: 32 * 1024 * 1024,
    timeoutMs: 60_000,
    endpointName: 'test',
    ...options,
  };
}
