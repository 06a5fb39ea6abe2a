/**
 * The baseline of `npm run bench:load`: DuckDB's own `read_json` of a file into a fresh table of a
 * new database, with DuckDB's defaults (types detected, its memory limit), as a user would load it.
 *
 *   node dist/bench/read-json.js FILE.ndjson DB.duckdb
 */
import { DuckDBInstance } from '#duckdb-api';

const [file, db] = process.argv.slice(2);
if (!file || !db) throw new Error('usage: read-json FILE.ndjson DB.duckdb');
const instance = await DuckDBInstance.create(db);
const connection = await instance.connect();
await connection.run('CREATE TABLE events AS SELECT * FROM read_json($file)', { file });
connection.closeSync();
instance.closeSync();
