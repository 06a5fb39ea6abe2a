/** A structural walk over every node of a node-sql-parser AST, with the nearest known location. */
import { isNode, locationOf } from './ast.js';
import type { AstNode, SqlLocation } from './parse.js';

export type Visitor = (node: AstNode, location: SqlLocation | undefined) => void;

const SKIPPED_KEYS = new Set(['loc', 'tableList', 'columnList']);

export function walk(root: unknown, visit: Visitor, inherited?: SqlLocation): void {
  if (Array.isArray(root)) {
    for (const item of root) walk(item, visit, inherited);
    return;
  }
  if (!isNode(root)) return;
  const location = locationOf(root) ?? inherited;
  visit(root, location);
  for (const [key, value] of Object.entries(root)) {
    if (!SKIPPED_KEYS.has(key) && typeof value === 'object' && value !== null) walk(value, visit, location);
  }
}
