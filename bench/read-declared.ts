/**
 * The baseline of `npm run bench:load` for a declared source: DuckDB's own `read_csv` or
 * `read_parquet` of a file into the table cannery creates for the same declaration (bench/load.ts
 * DECLARED_TABLE), with DuckDB's defaults (types sniffed), as a user would load it.
 *
 *   node dist/bench/read-declared.js csv|parquet FILE DB.duckdb
 */
import { DuckDBInstance } from '#duckdb-api';

const [format, file, db] = process.argv.slice(2);
if ((format !== 'csv' && format !== 'parquet') || !file || !db) throw new Error('usage: read-declared csv|parquet FILE DB.duckdb');
const instance = await DuckDBInstance.create(db);
const connection = await instance.connect();
await connection.run("SET TimeZone = 'UTC'");
await connection.run(
  'CREATE TABLE "bench.edge" (id VARCHAR NOT NULL, "timestamp" TIMESTAMPTZ NOT NULL, event_message VARCHAR, project VARCHAR, identifier VARCHAR)',
);
await connection.run(`INSERT INTO "bench.edge" BY NAME SELECT * FROM ${format === 'csv' ? 'read_csv' : 'read_parquet'}($file)`, { file });
connection.closeSync();
instance.closeSync();
