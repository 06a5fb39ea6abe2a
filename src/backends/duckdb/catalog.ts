/**
 * Names of our objects outside the default schema, written so no catalog can capture them.
 *
 * DuckDB names a database file's catalog after the file, up to its first dot (`data/cannery.duckdb`
 * is catalog `cannery`, `my.events.duckdb` is `my`), and reads a two-part name `a.b` as schema `a`
 * or catalog `a`: once a catalog and a schema share a name, `cannery.imports` is "ambiguous", and
 * every import into the default database failed so. A one-part name (a source table) is looked up
 * in the current schema only, and a three-part one is whole; so every object of ours outside the
 * current schema is named by all three parts, the first being the connection's own catalog, quoted
 * (a file name may hold spaces, quotes or dots).
 */
import type { DuckDBConnection } from '#duckdb-api';
import { quoteIdentifier } from '../../sql/dialects/duckdb/quote.js';

/** The catalog the connection's unqualified names resolve in: the database file's. */
export async function currentCatalog(connection: DuckDBConnection): Promise<string> {
  const reader = await connection.runAndReadAll('SELECT current_database() AS catalog');
  return (reader.getRowObjectsJS()[0] as { catalog: string }).catalog;
}

/** `schema` (and `name` in it) in the connection's own catalog, every part quoted. */
export async function qualifiedName(connection: DuckDBConnection, schema: string, name?: string): Promise<string> {
  const parts = [await currentCatalog(connection), schema, ...(name === undefined ? [] : [name])];
  return parts.map(quoteIdentifier).join('.');
}
