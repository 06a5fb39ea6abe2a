/** LIMIT / OFFSET of a query, with the endpoint's row cap applied; the same text on both backends. */
import { isNode } from './ast.js';
import type { AstNode } from './parse.js';

/** `refuse` raises the dialect's "unsupported construct" error for `owner`. */
export function limitClause(node: unknown, rowCap: number | undefined, refuse: (what: string) => never): string {
  const values = isNode(node) && Array.isArray(node.value) ? node.value.filter(isNode) : [];
  let count: string | undefined;
  let offset: string | undefined;
  if (values.length === 1) count = literalInteger(values[0]!, refuse);
  if (values.length === 2 && isNode(node) && node.seperator === 'offset') {
    count = literalInteger(values[0]!, refuse);
    offset = literalInteger(values[1]!, refuse);
  }
  if (values.length > 2 || (values.length === 2 && !offset)) refuse('LIMIT form (write LIMIT n OFFSET m)');
  if (rowCap !== undefined && (count === undefined || Number(count) > rowCap)) count = String(rowCap);
  return (count === undefined ? '' : ` LIMIT ${count}`) + (offset === undefined ? '' : ` OFFSET ${offset}`);
}

function literalInteger(node: AstNode, refuse: (what: string) => never): string {
  if (node.type === 'number' && /^\d+$/.test(String(node.value))) return String(node.value);
  return refuse('LIMIT/OFFSET other than a whole number');
}
