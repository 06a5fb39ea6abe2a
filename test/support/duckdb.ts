import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';

/** A connection as the service opens them: DuckDB in UTC, so TIMESTAMPTZ text and date parts read as UTC. */
export async function connectDuckDB(path = ':memory:'): Promise<{ connection: DuckDBConnection; close: () => void }> {
  const instance = await DuckDBInstance.create(path);
  const connection = await instance.connect();
  await connection.run("SET TimeZone = 'UTC'");
  return {
    connection,
    close: () => {
      connection.closeSync();
      instance.closeSync();
    },
  };
}

export async function rows(connection: DuckDBConnection, sql: string, values?: Record<string, string>): Promise<Record<string, unknown>[]> {
  const reader = await connection.runAndReadAll(sql, values);
  return reader.getRowObjectsJS() as Record<string, unknown>[];
}
