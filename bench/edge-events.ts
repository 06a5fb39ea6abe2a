/** The seeded edge events as a log shipper sends them: NDJSON objects in time order (bench:load, bench:ingest). */
import { DuckDBInstance } from '#duckdb-api';

export const EDGE_SOURCE = 'cloudflare.logs.prod';
const WEEK_US = 7n * 86_400_000_000n;

/** The edge events of the database `db`, as NDJSON into `file`; `later` moves them a week on, under other ids. */
export async function exportEdgeEvents(db: string, file: string, later: boolean): Promise<void> {
  const instance = await DuckDBInstance.create(db, { access_mode: 'READ_ONLY' });
  try {
    const connection = await instance.connect();
    try {
      const id = later ? "'b' || substr(id, 2)" : 'id';
      await connection.run(
        `COPY (SELECT ${id} AS id, epoch_us("timestamp") + $shift AS "timestamp", event_message, project, identifier, metadata
               FROM "${EDGE_SOURCE}" ORDER BY "timestamp") TO $file (FORMAT json)`,
        { file, shift: later ? WEEK_US : 0n },
      );
    } finally {
      connection.closeSync();
    }
  } finally {
    instance.closeSync();
  }
}
