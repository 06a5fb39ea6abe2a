/** Small readers for the parser tests: the one statement of a text and its select items. */
import { expect } from 'vitest';
import type { AstNode } from '../../../src/sql/parse/parse.js';
import { SqlSyntaxError } from '../../../src/sql/parse/errors.js';
import { parseBigQuery } from '../../../src/sql/parse/parse.js';

/** The statement, with `loc` dropped so expectations stay readable. */
export function statement(sql: string): AstNode {
  const statements = parseBigQuery(sql);
  expect(statements).toHaveLength(1);
  return withoutLocations(statements[0]) as AstNode;
}

/** The expression of each select item of a single SELECT. */
export function selected(sql: string): AstNode[] {
  return (statement(sql).columns as AstNode[]).map((column) => column.expr as AstNode);
}

/** The expression of the only select item. */
export function only(sql: string): AstNode {
  const items = selected(sql);
  expect(items).toHaveLength(1);
  return items[0]!;
}

export function refused(sql: string): SqlSyntaxError {
  try {
    parseBigQuery(sql);
  } catch (error) {
    if (error instanceof SqlSyntaxError) return error;
    throw error;
  }
  throw new Error(`parsed, but should be refused: ${sql}`);
}

function withoutLocations(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutLocations);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(Object.entries(value).filter(([key]) => key !== 'loc').map(([key, child]) => [key, withoutLocations(child)]));
}
