/**
 * The SQL macros of sql/dialects/duckdb/sql-macros.ts, defined on a connection. They are TEMP, so
 * each connection that runs generated SQL needs them (a read-only file takes no catalog entry).
 */
import type { DuckDBConnection } from '#duckdb-api';
import { sqlMacroStatements } from '../../sql/dialects/duckdb/sql-macros.js';

export async function defineSqlMacros(connection: DuckDBConnection): Promise<void> {
  for (const statement of sqlMacroStatements()) await connection.run(statement);
}
