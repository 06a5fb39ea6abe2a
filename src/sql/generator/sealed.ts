/**
 * Sealed generation, for a caller's sandbox query joined to an endpoint's CTEs: what it reads is
 * decided by construction, not by the names DuckDB or BigQuery would look up. Every CTE is written
 * under a generated name, and a table reference only from what it was resolved to
 * (analyse/table-scopes.ts): a CTE in scope, written under that CTE's generated name, or a source
 * table, written only inside the body of one of the endpoint's own CTEs (`Cte.endpoint`).
 *
 * A generated name is the CTE's name with every character but a letter, a digit or `_` made `_`,
 * then `__` and the count of CTEs so named so far (`edge_logs__1`): unique in the query, and no
 * table, view or catalog relation of either backend is so named (the sources' names hold dots or
 * dashes; DuckDB's catalog views, `duckdb_*`, `sqlite_*`, `pragma_*` and `information_schema`,
 * none ends in `__` and a number). So where a backend's scoping differed from GoogleSQL's, a name
 * would find nothing, never a table.
 */
import { LocatedSqlError, type SqlLocation } from '../parse/errors.js';
import type { Cte } from '../parse/tree.js';

/** A sealed query's reference to a table outside the endpoint's CTEs: what the sandbox refuses. */
export class UnsealedRead extends LocatedSqlError {
  constructor(table: string, location: SqlLocation | undefined) {
    super(`table \`${table}\` is not a CTE in scope where it is read: a sandbox query reads only the endpoint's CTEs and its own`, location);
  }
}

/** The generated names of one query's CTEs, given as each definition is written. */
export function sealedNames(): { define(cte: Cte): string; of(cte: Cte): string | undefined } {
  const names = new Map<Cte, string>();
  const counts = new Map<string, number>();
  return {
    define(cte) {
      const base = cte.name.replace(/[^A-Za-z0-9_]/g, '_');
      const count = (counts.get(base.toLowerCase()) ?? 0) + 1;
      counts.set(base.toLowerCase(), count);
      const name = `${base}__${count}`;
      names.set(cte, name);
      return name;
    },
    of: (cte) => names.get(cte),
  };
}
