/**
 * The prepared statements a serving connection keeps of endpoints' own SQL, one per text, so that
 * a request of an endpoint run before on that connection is bound and executed, not parsed and
 * prepared again.
 *
 * What it saves, and why no more: run as text, a query is parsed and bound without its values
 * (prepared), then bound again with them and planned (DuckDB 1.5's ClientContext: a prepared
 * statement with parameters whose plan reads a table is never planned ahead,
 * PreparedStatement::CanCachePlan, so `always_require_rebind` makes every execution bind and
 * optimise it anew with the values as constants, which the scan's filters and zone maps need).
 * Typing the parameters does not change that. Holding the statement leaves out the parse and the
 * first bind: about 2 ms of `logs.all`'s CPU per request and 5 to 6 ms of `usage.api-counts`' at
 * 1M edge events (docs/benchmarks.md, 2026-11-29, 10:05 to 11:20).
 *
 * Why an answer is the text's: every execution binds the held statement again against the catalog
 * as it is then (a column an ingest added, a type it widened, a table dropped or made again), and
 * plans it against the data and statistics as they are then; what the statement keeps between
 * requests is the parsed SQL. That holds for a statement with parameters only: one without any is
 * planned once and that plan reused, against the statistics of the rows there were (DuckDB 1.5
 * then answered a GROUP BY on a text column wrongly after an insert of longer strings: its
 * compressed materialization cut them to the old maximum length), so SQL without parameters is
 * never held. A text is held only while the same text is asked again: SQL compiled for a changed
 * catalog is another text, and the old one ages out. Bindings are cleared before each request's
 * are bound, so a value never carries over.
 */
import type { DuckDBConnection, DuckDBPreparedStatement, DuckDBResult, DuckDBValue } from '#duckdb-api';

/**
 * Texts a connection holds at most, the least recently run dropped first: about 70 KiB each (the
 * parsed shipped endpoints), so at most some 2 MiB a connection, 36 MiB for the default 16.
 */
const MAX_HELD_STATEMENTS = 32;

export interface HeldStatements {
  /** Runs `sql` with `values` on its held statement, prepared on the first run (and not held when it has no parameter). */
  stream(sql: string, values: Record<string, DuckDBValue>): Promise<DuckDBResult>;
  /** Drops the statement of `sql`: after a run that failed, the next one prepares it anew. */
  forget(sql: string): void;
}

export function heldStatements(connection: DuckDBConnection, max = MAX_HELD_STATEMENTS): HeldStatements {
  // A Map iterates in insertion order: a statement run is moved to the end, so the first is the least recent.
  const held = new Map<string, DuckDBPreparedStatement>();
  const forget = (sql: string) => {
    held.get(sql)?.destroySync();
    held.delete(sql);
  };
  return {
    forget,
    async stream(sql, values) {
      let statement = held.get(sql);
      if (statement) {
        held.delete(sql);
      } else {
        statement = await connection.prepare(sql);
        if (statement.parameterCount === 0) {
          // DuckDB keeps the plan of a statement without parameters, and reuses it after rows are
          // added: run once, as the text would be.
          try {
            return await statement.stream();
          } finally {
            statement.destroySync();
          }
        }
        const oldest = held.size >= max ? held.keys().next().value : undefined;
        if (oldest !== undefined) forget(oldest);
      }
      held.set(sql, statement);
      statement.clearBindings();
      statement.bind(values);
      return statement.stream();
    },
  };
}
