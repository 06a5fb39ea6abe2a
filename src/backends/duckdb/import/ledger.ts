/**
 * The imports a database has committed, one row per import, written in the import's own
 * transaction: after a crash, an import is in the table exactly when its row is, so re-running the
 * same input can tell whether it is already there instead of loading its events twice.
 *
 * An input is known by the SHA-256 of its bytes, per source. The digest of its first MiB and its
 * size let a file be recognised before it is read through (input-digest.ts). The table lives in
 * schema `cannery`, apart from the source tables, which are the only tables queries can name; it is
 * named with its catalog (catalog.ts): in `cannery.duckdb`, the catalog is `cannery` too.
 */
import type { DuckDBConnection } from '#duckdb-api';
import { qualifiedName } from '../catalog.js';

export interface LedgerEntry {
  batchId: string;
  source: string;
  sha256: string;
  /** SHA-256 of the first HEAD_BYTES (or fewer) bytes. */
  headSha256: string;
  bytes: number;
  events: number;
  committedAt: Date;
}

/** How much of the start of an input `headSha256` covers. */
export const HEAD_BYTES = 1 << 20;

const SCHEMA = 'cannery';
const TABLE = 'imports';

export async function ensureLedger(connection: DuckDBConnection): Promise<void> {
  await connection.run(`CREATE SCHEMA IF NOT EXISTS ${await qualifiedName(connection, SCHEMA)}`);
  await connection.run(
    `CREATE TABLE IF NOT EXISTS ${await qualifiedName(connection, SCHEMA, TABLE)} (
       batch_id VARCHAR PRIMARY KEY, source VARCHAR NOT NULL, sha256 VARCHAR NOT NULL, head_sha256 VARCHAR NOT NULL,
       bytes BIGINT NOT NULL, events BIGINT NOT NULL, committed_at TIMESTAMPTZ NOT NULL)`,
  );
}

/** The committed import of the same bytes into the same source, if there is one. */
export async function findImport(connection: DuckDBConnection, source: string, sha256: string): Promise<LedgerEntry | undefined> {
  return (await entries(connection, 'source = $source AND sha256 = $sha256', { source, sha256 }))[0];
}

/** Committed imports into `source` of inputs of this size that began with these bytes: candidates for the same input. */
export async function findImportsLike(connection: DuckDBConnection, source: string, bytes: number, headSha256: string): Promise<LedgerEntry[]> {
  return entries(connection, 'source = $source AND bytes = $bytes AND head_sha256 = $head', { source, bytes: BigInt(bytes), head: headSha256 });
}

async function entries(connection: DuckDBConnection, where: string, values: Record<string, string | bigint>): Promise<LedgerEntry[]> {
  const exists = await connection.runAndReadAll(
    `SELECT count(*) AS n FROM duckdb_tables() WHERE database_name = current_database() AND schema_name = $schema AND table_name = $table`,
    { schema: SCHEMA, table: TABLE },
  );
  if ((exists.getRowObjectsJS()[0] as { n: bigint }).n === 0n) return [];
  const reader = await connection.runAndReadAll(
    `SELECT batch_id, source, sha256, head_sha256, bytes, events, epoch_ms(committed_at) AS at FROM ${await qualifiedName(connection, SCHEMA, TABLE)} WHERE ${where} ORDER BY committed_at`,
    values,
  );
  const rows = reader.getRowObjectsJS() as { batch_id: string; source: string; sha256: string; head_sha256: string; bytes: bigint; events: bigint; at: bigint }[];
  return rows.map((row) => ({
    batchId: row.batch_id,
    source: row.source,
    sha256: row.sha256,
    headSha256: row.head_sha256,
    bytes: Number(row.bytes),
    events: Number(row.events),
    committedAt: new Date(Number(row.at)),
  }));
}

export async function recordImport(connection: DuckDBConnection, entry: Omit<LedgerEntry, 'committedAt'>): Promise<void> {
  await ensureLedger(connection);
  await connection.run(`INSERT INTO ${await qualifiedName(connection, SCHEMA, TABLE)} VALUES ($batchId, $source, $sha256, $headSha256, $bytes, $events, now())`, {
    batchId: entry.batchId,
    source: entry.source,
    sha256: entry.sha256,
    headSha256: entry.headSha256,
    bytes: BigInt(entry.bytes),
    events: BigInt(entry.events),
  });
}

/** Forgets every import into `source`, whose table is being dropped: loading the same files again is then a new import. */
export async function forgetImports(connection: DuckDBConnection, source: string): Promise<void> {
  await ensureLedger(connection);
  await connection.run(`DELETE FROM ${await qualifiedName(connection, SCHEMA, TABLE)} WHERE source = $source`, { source });
}
