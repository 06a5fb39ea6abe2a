/**
 * What each table name in a FROM names, by GoogleSQL's scoping of a WITH clause without RECURSIVE
 * (the reference's "CTE visibility" and "CTE rules and constraints"): a CTE is visible to the
 * CTEs after it in its WITH clause and to that clause's query, never to its own body nor to the
 * CTEs before it; a CTE of an inner WITH hides an outer CTE, or a table, of the same name; names
 * match case-insensitively; a qualified name (`d.t`) is never a CTE. A name no CTE in scope has
 * names a table.
 *
 * The one resolution that both the sandbox's checker and the generator use: the relation a name
 * was checked as is the relation the generator writes for it.
 */
import type { Cte, Query, TableRef } from '../parse/tree.js';
import { childrenOf, type TreeNode } from '../parse/walk.js';

export interface TableRead {
  table: TableRef;
  /** The CTE the name names; undefined when it names a table (or nothing at all). */
  cte: Cte | undefined;
  /** The CTEs whose bodies hold the reference, outermost first. */
  within: readonly Cte[];
}

/** CTEs visible at a point, innermost WITH first. */
interface Scope {
  ctes: ReadonlyMap<string, Cte>;
  parent: Scope | undefined;
}

export function cteKey(name: string): string {
  return name.toLowerCase();
}

function lookup(scope: Scope | undefined, name: string): Cte | undefined {
  for (let at = scope; at; at = at.parent) {
    const cte = at.ctes.get(name);
    if (cte) return cte;
  }
  return undefined;
}

/**
 * Every table reference of `query`, in the order of its text, with what it names. `outer` are CTEs
 * visible around the query, all of them everywhere in it (an endpoint's CTEs, around a caller's
 * sandbox query); the query's own CTEs hide them.
 */
export function tableReads(query: Query, outer: readonly Cte[] = []): TableRead[] {
  const reads: TableRead[] = [];
  const visit = (node: TreeNode, scope: Scope | undefined, within: readonly Cte[]): void => {
    if (node.kind === 'query') {
      const ctes = new Map<string, Cte>();
      const inner: Scope = { ctes, parent: scope };
      for (const cte of node.with) {
        // Its body sees the CTEs before it (and those around), not itself.
        visit(cte.query, inner, [...within, cte]);
        ctes.set(cteKey(cte.name), cte);
      }
      // The rest of a query's children (its body, ORDER BY, LIMIT) come after its CTEs' bodies.
      for (const child of childrenOf(node).slice(node.with.length)) visit(child, inner, within);
      return;
    }
    if (node.kind === 'table') reads.push({ table: node, cte: node.qualified ? undefined : lookup(scope, cteKey(node.name)), within });
    for (const child of childrenOf(node)) visit(child, scope, within);
  };
  const around: Scope | undefined = outer.length ? { ctes: new Map(outer.map((cte) => [cteKey(cte.name), cte])), parent: undefined } : undefined;
  visit(query, around, []);
  return reads;
}
