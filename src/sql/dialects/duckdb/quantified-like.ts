/**
 * LIKE, and quantified LIKE (`x [NOT] LIKE ANY | SOME | ALL (...)`), which DuckDB lacks, as
 * DuckDB writes them with BigQuery's answers.
 */
import type { Printer } from '../../generator/dialect.js';
import type { QuantifiedLike } from '../../parse/tree.js';
import { computedOnce } from './semantics.js';

/** A string literal holding no quote or backslash: a pattern that needs no ESCAPE. */
const PLAIN_PATTERN = /^'[^'\\]*'$/;

/**
 * `value [NOT] LIKE pattern`. BigQuery's LIKE treats a backslash as the escape character; DuckDB's
 * has none unless told. A literal pattern without a backslash needs no ESCAPE, and without one
 * DuckDB rewrites LIKE '%x%' as contains() (usage.api-counts' four LIKEs: about a third of the cost).
 */
export function likeSql(value: string, operator: 'LIKE' | 'NOT LIKE', pattern: string): string {
  const escape = PLAIN_PATTERN.test(pattern) ? '' : " ESCAPE '\\'";
  return `(${value} ${operator} ${pattern}${escape})`;
}

/**
 * A list of patterns is LIKE's answers joined by OR (ANY, SOME) or AND (ALL), whose three values
 * are GoogleSQL's rule: one TRUE (ANY) or FALSE (ALL) decides, else a NULL makes it NULL. An
 * array's patterns are matched in a lambda, each answer a number ordered as ANY prefers them
 * (FALSE 0, NULL 1, TRUE 2), so the largest is ANY's answer and the smallest ALL's; an empty or
 * NULL array has none: FALSE for ANY, TRUE for ALL, as BigQuery answers.
 */
export function quantifiedLike(node: QuantifiedLike, printer: Printer): string {
  const operator = node.not ? 'NOT LIKE' : 'LIKE';
  // Each quantifier by name: one the reader did not write is no silent ANY.
  const all = { ANY: false, SOME: false, ALL: true }[node.quantifier];
  if (all === undefined) return printer.refuse(`LIKE ${String(node.quantifier)}`, node);
  return computedOnce(printer.expr(node.operand), (value) => {
    if (node.array === undefined) {
      return `(${node.list.map((pattern) => likeSql(value, operator, printer.expr(pattern))).join(all ? ' AND ' : ' OR ')})`;
    }
    const answers = `list_transform(${printer.expr(node.array)}, __p -> COALESCE(CAST(${likeSql(value, operator, '__p')} AS INTEGER) * 2, 1))`;
    return all
      ? `(CASE list_min(${answers}) WHEN 0 THEN false WHEN 1 THEN NULL ELSE true END)`
      : `(CASE list_max(${answers}) WHEN 2 THEN true WHEN 1 THEN NULL ELSE false END)`;
  });
}
