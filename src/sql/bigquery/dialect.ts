/**
 * The BigQuery dialect: the endpoint's own SQL, re-emitted with sources mapped to their tables
 * and the row cap applied. CURRENT_TIMESTAMP stays native (BigQuery fixes it per query), so no
 * execution-time parameter is bound.
 */
import type { SqlDialect } from '../dialect.js';
import { emitBigQuery } from './emit.js';
import { tablePathSql, type TablePath } from './tables.js';

export function bigQueryDialect(tables: ReadonlyMap<string, TablePath>): SqlDialect {
  return {
    name: 'bigquery',
    compile(statement, { rowCap }) {
      return emitBigQuery(statement, {
        tableFor: (source) => {
          const path = tables.get(source);
          return path && tablePathSql(path);
        },
        rowCap,
      });
    },
  };
}
