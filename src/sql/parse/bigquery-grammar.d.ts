/**
 * Types of the parser that grammar/build.mjs generates from grammar/bigquery.pegjs into
 * dist/sql/parse/bigquery-grammar.js (package.json maps `#bigquery-grammar` to both).
 */
export interface GrammarLocation {
  start: { offset: number; line: number; column: number };
  end: { offset: number; line: number; column: number };
}

export interface GrammarResult {
  /** One statement, or an array when the text holds several. */
  ast: unknown;
  tableList: string[];
  columnList: string[];
}

export declare class SyntaxError extends Error {
  readonly location: GrammarLocation;
  /** The text found where the grammar stopped; null at the end of the input. */
  readonly found: string | null;
}

export declare function parse(input: string, options?: { includeLocations?: boolean }): GrammarResult;
