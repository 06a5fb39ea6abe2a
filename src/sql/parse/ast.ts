/**
 * Small readers over node-sql-parser's BigQuery AST, whose shapes vary by context
 * (a column may be a string or `{ expr: { value } }`, a function name a schema or a name list),
 * for the reader (to-tree.ts), the one module that turns that AST into the query tree.
 */
import type { SqlLocation } from './errors.js';
import type { AstNode } from './parse.js';

export function isNode(value: unknown): value is AstNode {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Reads an identifier that may be a plain string or a `{ type, value }` / `{ expr: { value } }` wrapper. */
export function identifierText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (!isNode(value)) return undefined;
  if (typeof value.value === 'string') return value.value;
  if (isNode(value.expr)) return identifierText(value.expr);
  return undefined;
}

/** The lower-case name of a `function` node (`regexp_contains`, `current_timestamp`). */
export function functionName(node: AstNode): string {
  const name = node.name;
  if (typeof name === 'string') return name.toLowerCase();
  if (isNode(name)) {
    const parts: string[] = [];
    if (isNode(name.schema)) parts.push(identifierText(name.schema) ?? '');
    if (Array.isArray(name.name)) for (const part of name.name) parts.push(identifierText(part) ?? '');
    return parts.filter(Boolean).join('.').toLowerCase();
  }
  return '';
}

/** The argument list of a `function` node (never undefined). */
export function functionArgs(node: AstNode): AstNode[] {
  const args = node.args;
  if (isNode(args) && Array.isArray(args.value)) return args.value.filter(isNode);
  return [];
}

export function locationOf(node: AstNode): SqlLocation | undefined {
  const loc = node.loc;
  if (isNode(loc) && isNode(loc.start) && typeof loc.start.line === 'number' && typeof loc.start.column === 'number') {
    return { line: loc.start.line, column: loc.start.column };
  }
  return undefined;
}

/** Every statement of a set operation (`a UNION ALL b ...`), in order. */
export function setOperationMembers(select: AstNode): AstNode[] {
  const members: AstNode[] = [];
  for (let current: unknown = select; isNode(current); current = current._next) members.push(current);
  return members;
}

/** The CTE list of a select, as name + statement pairs. */
export function withClauses(select: AstNode): { name: string; stmt: AstNode; node: AstNode }[] {
  if (!Array.isArray(select.with)) return [];
  return select.with.filter(isNode).flatMap((cte) => {
    const name = identifierText(cte.name);
    const stmt = isNode(cte.stmt) ? (isNode(cte.stmt.ast) ? cte.stmt.ast : cte.stmt) : undefined;
    return name && stmt ? [{ name, stmt, node: cte }] : [];
  });
}
