/**
 * A WHERE condition that reads nothing of a table but fields of one of its STRUCT columns
 * (`t.metadata.request.url`, a stored record's field), tested above the table scan rather than in it.
 *
 * DuckDB (1.5) pushes a condition on one column into the scan as a filter on that column, and to
 * test a filter on a STRUCT column the scan reads every field of the STRUCT, where a test above the
 * scan reads only the fields it names: `contains(t.metadata.request.url, ...)` over 1M edge events
 * costs ~9x as much in the scan (the metadata record has ~100 fields; docs/storage.md). A condition
 * that also names a second column is on two columns and stays above the scan: `c OR t.ts < t.ts`,
 * with `ts` the table's NOT NULL time column (any column but a FLOAT64, for NaN, would do). `x < x`
 * is never TRUE (FALSE, or NULL on a row an outer join pads with NULLs), so a WHERE keeps exactly
 * the rows c keeps. (The row's `rowid` would read cheaper, but DuckDB fails to bind it in a CTE it
 * materialises.)
 *
 * Only conditions of the WHERE's top-level AND are changed, and only over a table the source
 * declares (not a CTE).
 */
import type { Rewrite } from '../../../generator/dialect.js';
import type { Columns } from '../../../analyse/shapes.js';
import type { Expr, FromItem, Query, Select } from '../../../parse/tree.js';
import { mapExprChildren, mapQueryParts, mapSelectChildren, walkTree, type ChildMap } from '../../../parse/walk.js';

function and(conditions: readonly Expr[]): Expr {
  return conditions.reduce((left, right) => ({ kind: 'binary', operator: 'AND', left, right }));
}

function conjuncts(expr: Expr): Expr[] {
  return expr.kind === 'binary' && expr.operator === 'AND' ? [...conjuncts(expr.left), ...conjuncts(expr.right)] : [expr];
}

/** The one table alias and column a condition reads fields of, or undefined when it reads anything else. */
function structColumnRead(condition: Expr): { table: string; column: string } | undefined {
  // DuckDB tests a NULL in the scan from the column's validity alone, which costs next to nothing;
  // above it, a STRUCT-valued field would be read whole.
  if (condition.kind === 'binary' && (condition.operator === 'IS' || condition.operator === 'IS NOT')) return undefined;
  let read: { table: string; column: string } | undefined;
  let other = false;
  walkTree(condition, (node) => {
    if (other) return;
    if (node.kind === 'column') {
      if (node.table === undefined || node.fields.length === 0) other = true;
      else if (read === undefined) read = { table: node.table.toLowerCase(), column: node.name.toLowerCase() };
      else other = read.table !== node.table.toLowerCase() || read.column !== node.name.toLowerCase();
    } else if (node.kind === 'query' || node.kind === 'field' || node.kind === 'unknown') other = true;
  });
  return other ? undefined : read;
}

export function recordFiltersAboveScan(sourceColumns?: (source: string) => Columns): Rewrite {
  /** The STRUCT columns and a NOT NULL column of the declared tables in `from`, by alias (lower case). */
  function structColumns(from: readonly FromItem[], ctes: ReadonlySet<string>): Map<string, { alias: string; columns: Set<string>; notNull: string }> {
    const tables = new Map<string, { alias: string; columns: Set<string>; notNull: string }>();
    for (const item of from) {
      if (item.kind !== 'table' || (!item.qualified && ctes.has(item.name.toLowerCase()))) continue;
      const columns = sourceColumns?.(item.name);
      const notNull = columns && [...columns].find(([, shape]) => shape.kind === 'scalar' && shape.notNull && !shape.float64)?.[0];
      if (columns === undefined || notNull === undefined) continue;
      const structs = new Set([...columns].filter(([, shape]) => shape.kind === 'struct' || (shape.kind === 'array' && shape.stored === 'struct')).map(([name]) => name));
      const alias = item.alias ?? item.name.slice(item.name.lastIndexOf('.') + 1);
      tables.set(alias.toLowerCase(), { alias, columns: structs, notNull });
    }
    return tables;
  }

  function rewriteSelect(select: Select, ctes: ReadonlySet<string>): Select {
    const mapped = mapSelectChildren(select, childMap(ctes));
    if (mapped.where === undefined) return mapped;
    const tables = structColumns(mapped.from, ctes);
    if (tables.size === 0) return mapped;
    // A table's conditions are tested together, at the place of its first.
    const groups = new Map<string, Expr[]>();
    const order: (Expr | string)[] = [];
    for (const condition of conjuncts(mapped.where)) {
      const read = structColumnRead(condition);
      if (read === undefined || !tables.get(read.table)?.columns.has(read.column)) {
        order.push(condition);
        continue;
      }
      if (!groups.has(read.table)) order.push(read.table);
      groups.set(read.table, [...(groups.get(read.table) ?? []), condition]);
    }
    if (groups.size === 0) return mapped;
    const where = and(
      order.map((entry): Expr => {
        if (typeof entry !== 'string') return entry;
        const table = tables.get(entry)!;
        const column: Expr = { kind: 'column', table: table.alias, name: table.notNull, fields: [] };
        const never: Expr = { kind: 'binary', operator: '<', left: column, right: column };
        return { kind: 'binary', operator: 'OR', left: and(groups.get(entry)!), right: never };
      }),
    );
    return { ...mapped, where };
  }

  function rewriteQuery(query: Query, outer: ReadonlySet<string>): Query {
    const ctes = new Set([...outer, ...query.with.map((cte) => cte.name.toLowerCase())]);
    return mapQueryParts(query, { ...childMap(ctes), select: (select) => rewriteSelect(select, ctes) });
  }

  function childMap(ctes: ReadonlySet<string>): ChildMap {
    const map: ChildMap = {
      expr: (expr) => mapExprChildren(expr, map),
      query: (query) => rewriteQuery(query, ctes),
    };
    return map;
  }

  return (query) => rewriteQuery(query, new Set());
}
