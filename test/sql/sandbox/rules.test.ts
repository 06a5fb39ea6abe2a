/** composeSandboxQuery: which of the endpoint's CTEs a sandbox query keeps. */
import { describe, expect, it } from 'vitest';
import { parseQuery } from '../../../src/sql/parse/to-tree.js';
import { composeSandboxQuery } from '../../../src/sql/sandbox/rules.js';

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
});
