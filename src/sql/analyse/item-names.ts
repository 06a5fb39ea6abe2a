/** Names GoogleSQL gives SELECT items. */
import type { Expr } from '../parse/tree.js';

/** The name BigQuery gives a select item without an alias, when it gives one: a column's or field's own. */
export function impliedName(expr: Expr): string | undefined {
  if (expr.kind === 'column') return expr.fields[expr.fields.length - 1] ?? expr.name;
  if (expr.kind === 'field') return expr.name;
  return undefined;
}
