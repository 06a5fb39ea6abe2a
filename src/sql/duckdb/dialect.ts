/** The DuckDB dialect: logical sources are tables of the same (quoted) name. */
import { EXECUTION_TIME_PARAM, type SqlDialect } from '../dialect.js';
import { quoteIdentifier } from './literals.js';
import { translateToDuckDb } from './translate.js';

export function duckDbDialect(sources: readonly string[]): SqlDialect {
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
      });
      return { sql, parameters: [...parameters] };
    },
  };
}
