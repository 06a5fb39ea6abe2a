/**
 * BigQuery's `SAFE.` (and SAFE_ADD and its kind) turns the errors of the function itself into
 * NULL, never those of its arguments ("The SAFE. prefix only prevents errors from the prefixed
 * function itself: it doesn't prevent errors that occur while evaluating argument expressions").
 * DuckDB's TRY covers the whole expression inside it, arguments included, so an argument that may
 * raise is evaluated once outside the TRY too, where its error is raised: a `hash()` of it, which
 * is never NULL but which DuckDB cannot know, so the CASE always takes the TRY.
 */
import type { Expr } from '../../parse/tree.js';
import { repeatable } from './semantics.js';

/** An expression that cannot raise an error: a name, a literal, a parameter, and STRUCTs and arrays of them. */
function cannotRaise(expr: Expr): boolean {
  switch (expr.kind) {
    case 'column':
    case 'param':
    case 'literal':
    case 'date_part':
    case 'star_argument':
      return true;
    case 'field':
      return cannotRaise(expr.operand);
    case 'struct':
      return expr.fields.every((field) => cannotRaise(field.expr));
    case 'array':
      return expr.elements.every(cannotRaise);
    default:
      return false;
  }
}

/** `TRY(sql)` of a call, its arguments' errors raised as BigQuery raises them. */
export function trying(sql: string, args: readonly string[], argNodes: readonly Expr[], refuse: (what: string) => never): string {
  const raising = args.filter((_, index) => argNodes[index] === undefined || !cannotRaise(argNodes[index]!));
  if (raising.length === 0) return `TRY(${sql})`;
  return `(CASE WHEN hash(${raising.map((arg) => repeatable(arg, refuse)).join(', ')}) IS NULL THEN NULL ELSE TRY(${sql}) END)`;
}
