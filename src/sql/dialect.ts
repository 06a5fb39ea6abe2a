/** What a backend's SQL dialect must provide to the compile step. */
import type { AstNode } from './parse.js';

/** Name of the hidden parameter that carries the query's execution time (BigQuery's CURRENT_TIMESTAMP). */
export const EXECUTION_TIME_PARAM = '__cannery_now';

export interface CompiledSql {
  /** Executable SQL, parameters as placeholders. */
  sql: string;
  /** Names of the parameters the SQL binds (a subset of the declared ones, plus EXECUTION_TIME_PARAM if used). */
  parameters: string[];
}

export interface SqlDialect {
  readonly name: string;
  /** Throws UnsupportedConstruct for what it cannot express. */
  compile(statement: AstNode, options: { rowCap: number }): CompiledSql;
}
