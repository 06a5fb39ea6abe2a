/**
 * The connections queries run on, made before the instance is sealed and reused, one query at a
 * time each (so a timeout still interrupts exactly its own query).
 *
 * Why not a fresh connection per query: a streamed answer needs a small streaming_buffer_size,
 * which is a connection's own setting, and the sealed instance's configuration is locked. DuckDB
 * computes a streamed result ahead of its reader until that buffer is full, counting only the
 * fixed-size part of each row (16 bytes for a string, however long): with the default (~1 MB) it
 * computed some 20 vectors of 2,048 rows before the first reached the byte budget, 900 MB for
 * rows of 20 kB. At 1 KiB it stays a vector ahead (0 KiB would end every answer at once).
 */
import type { DuckDBConnection, DuckDBInstance } from '#duckdb-api';

export const STREAMING_BUFFER_SIZE = '1KiB';

export interface Connections {
  /** Runs `work` on a free connection, waiting for one while all are busy. */
  use<T>(work: (connection: DuckDBConnection) => Promise<T>): Promise<T>;
  /** Closes every connection; the instance stays open. */
  close(): void;
}

/** `count` connections of `instance`, each set up for streamed answers; call before sealing it. */
export async function openConnections(instance: DuckDBInstance, count: number): Promise<Connections> {
  const idle: DuckDBConnection[] = [];
  try {
    for (let index = 0; index < count; index++) {
      const connection = await instance.connect();
      idle.push(connection);
      await connection.run(`SET streaming_buffer_size = '${STREAMING_BUFFER_SIZE}'`);
    }
  } catch (error) {
    for (const connection of idle) connection.closeSync();
    throw error;
  }
  const all = [...idle];
  const waiting: ((connection: DuckDBConnection) => void)[] = [];
  const release = (connection: DuckDBConnection) => {
    const next = waiting.shift();
    if (next) next(connection);
    else idle.push(connection);
  };
  return {
    async use(work) {
      const connection = idle.pop() ?? (await new Promise<DuckDBConnection>((resolve) => waiting.push(resolve)));
      try {
        return await work(connection);
      } finally {
        release(connection);
      }
    },
    close() {
      for (const connection of all) connection.closeSync();
    },
  };
}
