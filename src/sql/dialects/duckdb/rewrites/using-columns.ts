/**
 * BigQuery's `SELECT *` over `JOIN ... USING (c)` shows `c` once, first (the last join's columns
 * before the earlier ones'), then the other columns in FROM order; DuckDB shows it where the left
 * relation has it. The star is written out as BigQuery orders it: `c, * EXCEPT (c)`.
 */
import type { Rewrite } from '../../../generator/dialect.js';
import type { Expr, FromItem, Query, Select, SelectItem } from '../../../parse/tree.js';
import { mapExprChildren, mapQueryParts, mapSelectChildren, type ChildMap } from '../../../parse/walk.js';

/** The USING columns of a FROM list, in the order BigQuery's `*` shows them. */
function usingColumns(from: readonly FromItem[]): string[] {
  const names: string[] = [];
  for (const item of [...from].reverse()) {
    for (const name of item.kind === 'unknown' ? [] : (item.join?.using ?? [])) {
      if (!names.some((seen) => seen.toLowerCase() === name.toLowerCase())) names.push(name);
    }
  }
  return names;
}

function withUsingFirst(item: SelectItem, using: readonly string[]): SelectItem[] {
  if (item.kind !== 'star' || item.table !== undefined) return [item];
  const excluded = new Set(item.except.map((name) => name.toLowerCase()));
  const first = using.filter((name) => !excluded.has(name.toLowerCase()));
  if (first.length === 0) return [item];
  const replaced = (name: string) => item.replace.find((entry) => entry.alias.toLowerCase() === name.toLowerCase());
  const items: SelectItem[] = first.map((name) => ({ kind: 'item', expr: replaced(name)?.expr ?? { kind: 'column', name, fields: [], loc: item.loc }, alias: name, loc: item.loc }));
  const replace = item.replace.filter((entry) => !first.some((name) => name.toLowerCase() === entry.alias.toLowerCase()));
  return [...items, { ...item, except: [...item.except, ...first], replace }];
}

const map: ChildMap & { select(select: Select): Select } = {
  expr: (expr: Expr): Expr => mapExprChildren(expr, map),
  query: (query: Query): Query => mapQueryParts(query, map),
  select: (select: Select): Select => {
    const inner = mapSelectChildren(select, map);
    const using = usingColumns(inner.from);
    return using.length === 0 ? inner : { ...inner, items: inner.items.flatMap((item) => withUsingFirst(item, using)) };
  },
};

export const usingColumnsFirst: Rewrite = (query) => mapQueryParts(query, map);
