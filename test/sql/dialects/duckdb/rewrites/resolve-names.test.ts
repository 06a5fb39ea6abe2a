/**
 * GoogleSQL name resolution on the live embedded backend (src/sql/dialects/duckdb/rewrites/resolve-names.ts), over
 * the real service: the tables' columns are all known there, so a name nothing has is the caller's
 * mistake, answered as BigQuery answers it (a 400 naming the name and where it was looked for),
 * never DuckDB's binder message. The rows of the alias rules are in test/sql/golden/names.yaml;
 * here, the same rules through logs.all's CTEs, rows worked out from ../sandbox/fixtures.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../../../../support/service.js';
import { FIXTURES, sandboxPath } from '../../../sandbox/fixtures.js';

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService({ fixtures: FIXTURES });
});
afterAll(() => svc?.close());

async function sandbox(sql: string): Promise<{ status: number; body: any }> {
  return svc.call(sandboxPath({ project: 'alpha', sql }));
}

describe('a name nothing in scope has', () => {
  it.each([
    ['an unknown column of a CTE', 'select foo from edge_logs', /^sql cannot run: Unrecognized name: foo \(not a column of edge_logs, nor a field of an UNNEST alias in scope\)/],
    [
      'an unknown field of an UNNEST alias, with the CTE and path it comes from',
      'select r.foo from edge_logs cross join unnest(metadata) as m cross join unnest(m.request) as r',
      /^sql cannot run: Field name foo does not exist in r \(an element of edge_logs\.metadata\.request\); its fields: .*\bpath\b/,
    ],
    [
      'a field read through a repeated record without UNNEST',
      'select m.request.path from edge_logs cross join unnest(metadata) as m',
      /^sql cannot run: Cannot access field path on m \(an element of edge_logs\.metadata\)\.request, an array: UNNEST it first/,
    ],
    ['an unknown column of a table alias', 'select t.foo from edge_logs as t', /^sql cannot run: Name foo not found inside t \(edge_logs\); its columns: id, timestamp, event_message, identifier, metadata/],
    ['a SELECT alias in WHERE, which sees FROM names only', "select id as x from edge_logs where x = 'e1'", /^sql cannot run: Unrecognized name: x/],
    ['the alias of an UNNEST of STRUCTs, which SELECT * reads as its fields', 'with t as (select * from unnest([struct(1 as width)]) as s) select s from t', /^sql cannot run: Unrecognized name: s \(not a column of t/],
    ['an unknown name in a correlated subquery', 'select id, (select count(*) from unnest(metadata) as m where m.nope = 1) as n from edge_logs', /^sql cannot run: Field name nope does not exist in m/],
  ])('%s is a 400 naming it', async (_what, sql, message) => {
    const { status, body } = await sandbox(sql);
    expect(status).toBe(400);
    expect(body.error).toMatchObject({ code: 'invalid_parameter', param: 'sql' });
    expect(body.error.message).toMatch(message);
    expect(body.error.message).not.toMatch(/Binder Error|_u_|"/);
  });
});

describe('names that resolve', () => {
  it('the chart idiom counts per hour: the alias wins over the column in GROUP BY and ORDER BY', async () => {
    // alpha's edge events: e1 10:00, e2 10:05 and e3 10:30 fall in hour 10, e4 11:15 in 11, e5 12:00 in 12 (fixtures.ts).
    const { status, body } = await sandbox('select timestamp_trunc(timestamp, hour) as timestamp, count(*) as count from edge_logs group by timestamp order by timestamp');
    expect(status).toBe(200);
    expect(body.result).toEqual([
      { timestamp: 1714557600000000, count: 3 },
      { timestamp: 1714561200000000, count: 1 },
      { timestamp: 1714564800000000, count: 1 },
    ]);
  });

  it("a CTE's SELECT * over an UNNEST of STRUCTs has their fields as columns (ZetaSQL's QUALIFY and PIVOT cases)", async () => {
    const { status, body } = await sandbox(
      "with t as (select * from unnest([struct(1 as i, 'A' as p, 2 as o), struct(2 as i, 'A' as p, 1 as o), struct(3 as i, 'B' as p, 1 as o)])) select i, p from t where true qualify row_number() over (partition by p order by o) = 1 order by i",
    );
    expect(status).toBe(200);
    expect(body.result).toEqual([
      { i: 2, p: 'A' },
      { i: 3, p: 'B' },
    ]);
  });

  it('a field of an outer UNNEST alias, unqualified, in a correlated subquery', async () => {
    const { status, body } = await sandbox(
      "select t.id, (select count(*) from unnest(r.headers) as h where h.x_real_ip is not null and method = 'GET') as n from edge_logs as t cross join unnest(t.metadata) as m cross join unnest(m.request) as r where t.id = 'e1'",
    );
    expect(status).toBe(200);
    expect(body.result).toEqual([{ id: 'e1', n: 1 }]);
  });
});
