/**
 * The table reads a query expands to when every WITH table is written out where it is read, and
 * the limit on them: the doubling chain of issue 38 (1.9 KB of SQL, 7 GB in DuckDB's planner) is
 * refused at compile by name, while wide but flat queries pass.
 */
import { describe, expect, it } from 'vitest';
import { checkCteExpansion, expandedReads, MAX_EXPANDED_READS } from '../../../src/sql/analyse/cte-expansion.js';
import { InvalidQuery } from '../../../src/sql/parse/errors.js';
import { parseQuery } from '../../../src/sql/parse/to-tree.js';

/** a1 .. a{n}, each reading the one before twice, and a count over the last. */
function doubling(n: number): string {
  const ctes = ['a1 as (select 1 as x)'];
  for (let index = 2; index <= n; index++) ctes.push(`a${index} as (select * from a${index - 1} union all select * from a${index - 1})`);
  return `with ${ctes.join(', ')} select count(*) from a${n}`;
}

describe('expandedReads', () => {
  it('counts a read of a WITH table as one read and the reads of its body, each WITH table worked out once', () => {
    expect(expandedReads(parseQuery('select 1'))).toBe(0);
    expect(expandedReads(parseQuery('select * from `t` join `u` using (x)'))).toBe(2);
    expect(expandedReads(parseQuery('with a as (select * from `t`) select * from a union all select * from a'))).toBe(4);
    // a1 is read twice by a2, a2 twice by a3: 1 + 2 * (1 + 2 * 1).
    expect(expandedReads(parseQuery(doubling(3)))).toBe(7);
    // In subqueries and in expressions too; a nested WITH sees the outer ones, and shadows them.
    expect(expandedReads(parseQuery('with a as (select * from `t`, `u`) select (select count(*) from a) as n from (with b as (select * from a) select * from b)'))).toBe(3 + (1 + 3));
    expect(expandedReads(parseQuery('with a as (select * from `t`, `u`) select * from (with a as (select 1 as x) select * from a)'))).toBe(1);
  });

  it('names the limit for the doubling chain, and stops counting past it', () => {
    const query = parseQuery(doubling(30));
    expect(expandedReads(query)).toBeGreaterThan(MAX_EXPANDED_READS);
    expect(expandedReads(query)).toBeLessThan(4 * MAX_EXPANDED_READS);
    expect(() => checkCteExpansion(query)).toThrow(InvalidQuery);
    expect(() => checkCteExpansion(query)).toThrow(/more than 10,000 tables once each WITH table is written out where it is read \(cannery's expansion limit\)/);
  });

  it('passes two thousand UNION ALL members over a WITH table, and a chain of twelve doublings', () => {
    const members = Array.from({ length: 2000 }, () => 'select * from a').join(' union all ');
    expect(() => checkCteExpansion(parseQuery(`with a as (select * from \`t\`) ${members}`))).not.toThrow();
    expect(() => checkCteExpansion(parseQuery(doubling(12)))).not.toThrow();
  });
});
