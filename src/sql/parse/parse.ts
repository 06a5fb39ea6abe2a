/**
 * The one place SQL text becomes an AST: node-sql-parser's BigQuery grammar with cannery's patches
 * (grammar/bigquery.pegjs, compiled at build; docs/sql-parser.md lists the patches and their nodes).
 * Only that one parser is loaded, which keeps start-up fast.
 */
import { parse } from '#bigquery-grammar';
import { SqlSyntaxError } from './errors.js';

/** A parsed statement. node-sql-parser's typings do not cover its BigQuery AST, so nodes are walked structurally. */
export type AstNode = Record<string, unknown>;


interface PegError {
  message: string;
  location?: { start: { line: number; column: number } };
  found?: string | null;
}

/** Parses BigQuery SQL into statements; each node carries `loc` so problems can name a line. */
export function parseBigQuery(sql: string): AstNode[] {
  try {
    // Trimmed as node-sql-parser's astify trims, so every `loc` is what it was with the stock parser.
    const { ast } = parse(sql.trim(), { includeLocations: true });
    return (Array.isArray(ast) ? ast : [ast]) as unknown as AstNode[];
  } catch (error) {
    const peg = error as PegError;
    const start = peg.location?.start;
    const found = peg.found === undefined ? '' : peg.found === null ? 'end of input' : `"${peg.found}"`;
    const message = found ? `SQL syntax error near ${found}` : `SQL syntax error: ${peg.message}`;
    throw new SqlSyntaxError(message, start ? { line: start.line, column: start.column } : undefined);
  }
}
