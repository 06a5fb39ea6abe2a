/**
 * The one place SQL text becomes an AST: node-sql-parser's BigQuery grammar with cannery's patches
 * (grammar/bigquery.pegjs, compiled at build; docs/sql-parser.md lists the patches and their nodes).
 * Only that one parser is loaded, which keeps start-up fast.
 */
import { parse } from '#bigquery-grammar';
import { SqlSyntaxError } from './errors.js';
import { syntaxErrorText, type Expectation } from './syntax-message.js';

/** A parsed statement. node-sql-parser's typings do not cover its BigQuery AST, so nodes are walked structurally. */
export type AstNode = Record<string, unknown>;

interface PegError {
  message: string;
  location?: { start: { offset: number; line: number; column: number } };
  expected?: Expectation[] | null;
}

/** Parses BigQuery SQL into statements; each node carries `loc` so problems can name a line. */
export function parseBigQuery(sql: string): AstNode[] {
  // Trimmed as node-sql-parser's astify trims, so every `loc` is what it was with the stock parser.
  const text = sql.trim();
  try {
    const { ast } = parse(text, { includeLocations: true });
    return (Array.isArray(ast) ? ast : [ast]) as unknown as AstNode[];
  } catch (error) {
    const peg = error as PegError;
    const start = peg.location?.start;
    if (!start || !peg.expected) throw new SqlSyntaxError(`SQL syntax error: ${peg.message}`, start);
    throw new SqlSyntaxError(syntaxErrorText(text, start, peg.expected), { line: start.line, column: start.column });
  }
}
