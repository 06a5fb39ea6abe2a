/** The DuckDB dialect: logical sources are tables of the same (quoted) name. */
import { EXECUTION_TIME_PARAM, type SqlDialect } from '../dialect.js';
import { quoteIdentifier } from './literals.js';
import type { Columns } from './shapes.js';
import { translateToDuckDb } from './translate.js';

/**
 * `sourceColumns` tells the translator the structure of each source, which BigQuery's
 * unqualified struct-field names need; without it those names are left to DuckDB.
 */
export function duckDbDialect(sources: readonly string[], sourceColumns?: (source: string) => Columns): SqlDialect {
  const known = new Set(sources);
  return {
    name: 'duckdb',
    compile(statement, { rowCap }) {
      const parameters = new Set<string>();
      const parameter = (name: string) => {
        parameters.add(name);
        return `$${name}`;
      };
      const sql = translateToDuckDb(statement, {
        relationFor: (source) => (known.has(source) ? quoteIdentifier(source) : undefined),
        parameter,
        now: () => `CAST(${parameter(EXECUTION_TIME_PARAM)} AS TIMESTAMPTZ)`,
        rowCap,
        sourceColumns,
      });
      return { sql, parameters: [...parameters] };
    },
  };
}
