/** composeSandboxQuery: which names a sandbox query may read, and which of the endpoint's CTEs it keeps. */
import { describe, expect, it } from 'vitest';
import { parseQuery } from '../../../src/sql/parse/to-tree.js';
import { composeSandboxQuery, SandboxViolation } from '../../../src/sql/sandbox/rules.js';

const ENDPOINT = parseQuery(`
  with
    a as (select t.id, t.event_message from \`postgres.logs\` as t where t.project = @project),
    b as (select id from a),
    c as (select t.id from \`gotrue.logs.prod\` as t where t.project = @project),
    d as (select id from c)
  select id from a`);

const kept = (sql: string) => composeSandboxQuery(sql, { statement: ENDPOINT, declaredParams: ['project'] }).with.map((cte) => cte.name);

describe('the endpoint CTEs a sandbox query keeps', () => {
  it('are those it reads, and those they read, in the endpoint order, before its own', () => {
    expect(kept('select id from a')).toEqual(['a']);
    expect(kept('select id from b')).toEqual(['a', 'b']);
    expect(kept('select id from d union all select id from a')).toEqual(['a', 'c', 'd']);
    expect(kept('with mine as (select id from b) select id from mine')).toEqual(['a', 'b', 'mine']);
  });

  it('count a read at any depth, in any clause, and in any spelling of the name', () => {
    expect(kept('select 1 as x from unnest([1]) where exists (select 1 from (select id from C))')).toEqual(['c']);
    expect(kept('select (select count(*) from `a`) as n')).toEqual(['a']);
  });

  it('are none when it reads none', () => {
    expect(kept('select 1 as x')).toEqual([]);
  });

  it('are not those of a name its own nested CTE takes', () => {
    expect(kept('select id from (with a as (select 1 as id) select id from a)')).toEqual([]);
    expect(kept('select id from (with a as (select id from a) select id from a)')).toEqual(['a']);
  });

  it('are marked as the endpoint\'s, its own are not', () => {
    const composed = composeSandboxQuery('with mine as (select id from b) select id from mine', { statement: ENDPOINT, declaredParams: ['project'] });
    expect(composed.with.map((cte) => [cte.name, cte.endpoint === true])).toEqual([['a', true], ['b', true], ['mine', false]]);
  });
});

/** The violation `sql` raises, or undefined when it passes. */
function violation(sql: string): string | undefined {
  try {
    composeSandboxQuery(sql, { statement: ENDPOINT, declaredParams: ['project'] });
    return undefined;
  } catch (error) {
    if (error instanceof SandboxViolation) return error.message;
    throw error;
  }
}

describe('a name resolves as BigQuery resolves it (WITH without RECURSIVE)', () => {
  it.each([
    ['read before its CTE is defined (issue 38)', 'with q as (select project, count(*) as n from `cloudflare.logs.prod` group by project), `cloudflare.logs.prod` as (select 1 as x) select * from q', 'cloudflare.logs.prod'],
    ['read in its own CTE\'s body (issue 38)', 'with `gotrue.logs.prod` as (select project, event_message from `gotrue.logs.prod` where project != @project limit 3) select * from `gotrue.logs.prod`', 'gotrue.logs.prod'],
    ["a DuckDB catalog view read in its own CTE's body (issue 38)", 'with duckdb_databases as (select database_name, path from duckdb_databases) select * from duckdb_databases', 'duckdb_databases'],
    ['read before its CTE, in a subquery', 'select * from (with x as (select * from `postgres.logs`), `postgres.logs` as (select 1 as id) select * from x)', 'postgres.logs'],
    ['read in its own body, in a scalar subquery', 'select (with sqlite_master as (select sql from sqlite_master) select count(*) from sqlite_master) as n', 'sqlite_master'],
    ['read in its own body, at depth in it', 'with t as (select id from a where id in (select id from t)) select * from t', 't'],
    ['read in a later CTE of an inner WITH, in an earlier sibling', 'with x as (select 1 as id) select * from (with y as (select * from z), z as (select * from x) select * from y)', 'z'],
  ])('%s: refused, naming it', (_name, sql, table) => {
    const message = violation(sql);
    expect(message).toContain(`table \`${table}\``);
    expect(message).toContain('a CTE can be read only after its definition, never in its own body or before it');
  });

  it.each([
    ['a CTE read after it', 'with x as (select id from a), y as (select id from x) select id from y'],
    ["an endpoint CTE's name taken by a nested CTE that reads the endpoint's", 'select id from (with a as (select id from a where id is not null) select id from a)'],
    ['a source\'s name taken by a CTE that reads an endpoint CTE', 'with `cloudflare.logs.prod` as (select id from b) select id from `cloudflare.logs.prod`'],
    ['an outer CTE read in a nested one', 'with x as (select id from a) select * from (with y as (select id from x) select id from y)'],
  ])('%s: allowed', (_name, sql) => {
    expect(violation(sql)).toBeUndefined();
  });
});
