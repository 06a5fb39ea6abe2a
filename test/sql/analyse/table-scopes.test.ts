/**
 * tableReads: what each table name names, as GoogleSQL scopes a WITH without RECURSIVE (the
 * reference's "CTE visibility": B may read A before it, A may read neither itself nor B; a local
 * CTE overrides an outer CTE or table of the same name).
 */
import { describe, expect, it } from 'vitest';
import { tableReads } from '../../../src/sql/analyse/table-scopes.js';
import type { Cte, Query } from '../../../src/sql/parse/tree.js';
import { parseQuery } from '../../../src/sql/parse/to-tree.js';

/** Each reference as `name -> what it names`: `cte <name> @<depth of its WITH>`, or `table`. */
function resolved(sql: string, outer: readonly Cte[] = []): string[] {
  const query = parseQuery(sql);
  const depth = new Map<Cte, number>();
  const mark = (node: Query, level: number): void => {
    for (const cte of node.with) {
      depth.set(cte, level);
      mark(cte.query, level + 1);
    }
  };
  mark(query, 0);
  // Nested WITHs in subqueries: found by the reads themselves, named by their CTE's name alone.
  return tableReads(query, outer).map(({ table, cte }) => `${table.name} -> ${cte === undefined ? 'table' : outer.includes(cte) ? `outer ${cte.name}` : `cte ${cte.name}${depth.has(cte) ? ` @${depth.get(cte)}` : ''}`}`);
}

describe('a CTE of a WITH without RECURSIVE', () => {
  it('is read by the CTEs after it and by the query', () => {
    expect(resolved('with a as (select 1 as x), b as (select * from a) select * from a, b')).toEqual(['a -> cte a @0', 'a -> cte a @0', 'b -> cte b @0']);
  });

  it('is not read by the CTEs before it: the name there is a table', () => {
    expect(resolved('with a as (select * from b), b as (select 1 as x) select * from a')).toEqual(['b -> table', 'a -> cte a @0']);
  });

  it('is not read by its own body, at any depth in it', () => {
    expect(resolved('with t as (select * from t where x in (select x from t)) select * from t')).toEqual(['t -> table', 't -> table', 't -> cte t @0']);
  });

  it('hides an outer CTE of its name, except in its own body, where the name is still the outer one', () => {
    expect(resolved('with e as (select 1 as x) select * from (with e as (select * from e) select * from e)')).toEqual(['e -> cte e @0', 'e -> cte e']);
  });

  it('of a subquery is not read outside it', () => {
    expect(resolved('select * from (with x as (select 1 as y) select * from x), x')).toEqual(['x -> cte x', 'x -> table']);
  });

  it('is read in any case, in any clause, through any subquery', () => {
    expect(resolved('with Edge as (select 1 as x) select (select count(*) from EDGE) as n from unnest([1]) where exists (select 1 from `edge`)')).toEqual([
      'EDGE -> cte Edge @0',
      'edge -> cte Edge @0',
    ]);
  });

  it('is never a qualified name', () => {
    expect(resolved('with t as (select 1 as x) select * from d.t, t')).toEqual(['d.t -> table', 't -> cte t @0']);
  });
});

describe('CTEs around the query (an endpoint\'s, around a caller\'s query)', () => {
  const endpoint = parseQuery('with edge_logs as (select 1 as id), auth_logs as (select 2 as id) select 1').with;

  it('are read everywhere in it, unless one of its own CTEs hides them', () => {
    expect(resolved('with mine as (select * from edge_logs) select * from mine, auth_logs', endpoint)).toEqual(['edge_logs -> outer edge_logs', 'mine -> cte mine @0', 'auth_logs -> outer auth_logs']);
    expect(resolved('select * from (with edge_logs as (select * from edge_logs) select * from edge_logs)', endpoint)).toEqual(['edge_logs -> outer edge_logs', 'edge_logs -> cte edge_logs']);
  });
});
