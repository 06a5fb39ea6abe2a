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
import { defineSqlMacros } from './sql-macros.js';
import { heldStatements, type HeldStatements } from './held-statements.js';

export const STREAMING_BUFFER_SIZE = '1KiB';

export interface Connections {
  /** Runs `work` on a free connection, with the statements it holds, waiting for one while all are busy. */
  use<T>(work: (connection: DuckDBConnection, held: HeldStatements) => Promise<T>): Promise<T>;
  /**
   * Interrupts the queries running, refuses new ones, waits until every connection is free, then
   * closes them all; the instance stays open. A stop (SIGTERM past its grace) never waits for a
   * query to run to its end, nor closes a connection under one.
   */
  close(): Promise<void>;
}

/** How often running queries are interrupted again while a close waits for them. */
const INTERRUPT_AGAIN_MS = 50;

/** `count` connections of `instance`, each set up for streamed answers; call before sealing it. */
export async function openConnections(instance: DuckDBInstance, count: number): Promise<Connections> {
  const idle: DuckDBConnection[] = [];
  try {
    for (let index = 0; index < count; index++) {
      const connection = await instance.connect();
      idle.push(connection);
      await connection.run(`SET streaming_buffer_size = '${STREAMING_BUFFER_SIZE}'`);
      await defineSqlMacros(connection);
    }
  } catch (error) {
    for (const connection of idle) connection.closeSync();
    throw error;
  }
  const all = [...idle];
  // Closing a connection destroys the statements prepared on it.
  const held = new Map(all.map((connection) => [connection, heldStatements(connection)]));
  const busy = new Set<DuckDBConnection>();
  const waiting: { resolve: (connection: DuckDBConnection) => void; reject: (error: Error) => void }[] = [];
  let closing = false;
  const release = (connection: DuckDBConnection) => {
    busy.delete(connection);
    const next = waiting.shift();
    if (next) next.resolve(connection);
    else idle.push(connection);
  };
  return {
    async use(work) {
      if (closing) throw new Error('the database is closing');
      const connection = idle.pop() ?? (await new Promise<DuckDBConnection>((resolve, reject) => waiting.push({ resolve, reject })));
      busy.add(connection);
      try {
        return await work(connection, held.get(connection)!);
      } finally {
        release(connection);
      }
    },
    async close() {
      closing = true;
      for (const waiter of waiting.splice(0)) waiter.reject(new Error('the database is closing'));
      while (busy.size > 0) {
        for (const connection of busy) connection.interrupt();
        await new Promise((resolve) => setTimeout(resolve, INTERRUPT_AGAIN_MS));
      }
      for (const connection of all) connection.closeSync();
    },
  };
}
