/**
 * How many table reads a query makes once every WITH table is written out where it is used, as a
 * planner that inlines them does: each read of a WITH table is one read and the reads of its body. Thirty
 * WITH tables each reading the one before twice (`a2 as (select * from a1 union all select * from
 * a1)`, ...) are 1.9 KB of SQL and 2^29 reads: DuckDB's planner took 7 GB on it before its first
 * row. The count is worked out once per WITH table, so it costs a walk of the tree, never the
 * expansion it measures.
 */
import { InvalidQuery } from '../parse/errors.js';
import type { Query } from '../parse/tree.js';

/**
 * Most table reads a query may expand to: far above what real queries make (logs.all's nine WITH
 * tables, a sandbox query of two thousand UNION ALL members over them), far below what strains a
 * planner.
 */
export const MAX_EXPANDED_READS = 10_000;

/** The reads `query` expands to (for the first MAX_EXPANDED_READS and a little past them). */
export function expandedReads(query: Query): number {
  return readsOf(query, new Map());
}

/** Refuses a query that expands to more than MAX_EXPANDED_READS table reads. */
export function checkCteExpansion(query: Query): void {
  const reads = expandedReads(query);
  if (reads > MAX_EXPANDED_READS) {
    throw new InvalidQuery(
      `the query reads more than ${MAX_EXPANDED_READS.toLocaleString('en-US')} tables once each WITH table is written out where it is read (cannery's expansion limit); compute a WITH table once and read it less often`,
      query.loc,
    );
  }
}

/** Reads of `query` where `visible` are the WITH tables in scope (lower-case names), with their reads. */
function readsOf(query: Query, visible: ReadonlyMap<string, number>): number {
  const scope = new Map(visible);
  // BigQuery's WITH without RECURSIVE: each table sees the ones before it (and those of outer queries).
  for (const cte of query.with) scope.set(cte.name.toLowerCase(), readsOf(cte.query, scope));
  return readsIn({ ...query, with: [] }, scope);
}

/** Reads in any part of a tree: nested queries open their own scope; a read of a WITH table is one read and its body's. */
function readsIn(node: unknown, scope: ReadonlyMap<string, number>): number {
  if (node === null || typeof node !== 'object') return 0;
  if (Array.isArray(node)) {
    let total = 0;
    for (const item of node) {
      total += readsIn(item, scope);
      // Past the limit the exact number matters no more, and it could pass what a double counts exactly.
      if (total > MAX_EXPANDED_READS) return total;
    }
    return total;
  }
  const record = node as { kind?: unknown; with?: unknown; name?: unknown; qualified?: unknown };
  if (record.kind === 'query' && Array.isArray(record.with) && record.with.length > 0) return readsOf(node as Query, scope);
  if (record.kind === 'table' && typeof record.name === 'string') {
    return 1 + ((record.qualified ? undefined : scope.get(record.name.toLowerCase())) ?? 0);
  }
  let total = 0;
  for (const [key, value] of Object.entries(node)) {
    if (key === 'loc') continue;
    total += readsIn(value, scope);
    if (total > MAX_EXPANDED_READS) return total;
  }
  return total;
}
