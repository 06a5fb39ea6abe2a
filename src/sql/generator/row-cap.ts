/** The endpoint's row cap on the outermost query: the same on every backend. */
import type { Expr, Query } from '../parse/tree.js';

function capLiteral(cap: number): Expr {
  return { kind: 'literal', type: 'int64', value: String(cap) };
}

/** The query with at most `cap` rows: a larger (or absent) LIMIT becomes the cap, an OFFSET stays. */
export function applyRowCap(query: Query, cap: number): Query {
  const count = query.limit?.count;
  if (count === undefined) return { ...query, limit: { count: capLiteral(cap) } };
  const written = count.kind === 'literal' && count.type === 'int64' && /^\d+$/.test(String(count.value)) ? Number(count.value) : undefined;
  // A LIMIT that is not a whole number is left for the generator to refuse.
  if (written === undefined || written <= cap) return query;
  return { ...query, limit: { ...query.limit, count: capLiteral(cap) } };
}
