/**
 * Sandbox queries as log clients write them, over logs.all's CTEs, on the fixture of
 * ./fixtures.ts. Every expected row is worked out by hand from that fixture (the arithmetic is
 * written beside it), never by running SQL: DuckDB must give BigQuery's answers.
 *
 * Unless a case says otherwise it runs for project "alpha" with no time bounds.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../../support/service.js';
import { FIXTURES, sandboxPath } from './fixtures.js';

type Row = Record<string, unknown>;

interface Case {
  name: string;
  sql: string;
  /** Declared parameters of logs.all; default `{ project: 'alpha' }`. */
  params?: Record<string, string>;
  /** The expected result, in order (or as a multiset with `unordered`). */
  rows?: Row[];
  unordered?: boolean;
  /** For results too long to write out. */
  check?: (rows: Row[]) => void;
  /** `todo`: an idiom being implemented. */
  mode?: 'todo';
}

// Wire values of fixture timestamps (Unix microseconds).
const T = {
  p2: 1714558800000000, // 10:20:00
  p3: 1714563600000000, // 11:40:00
  f1: 1714557720000000, // 10:02:00
  a4: 1714563000000000, // 11:30:00
  h10: 1714557600000000, // 10:00:00
  h11: 1714561200000000, // 11:00:00
};

const CASES: Case[] = [
  // --- the example of DESIGN.md, and project isolation through the CTEs -----------------------
  {
    name: 'the DESIGN.md example: postgres errors',
    sql: "select id, timestamp, event_message from postgres_logs where regexp_contains(event_message, 'ERROR') limit 20",
    unordered: true,
    rows: [
      { id: 'p2', timestamp: T.p2, event_message: 'ERROR: relation "foo" does not exist' },
      { id: 'p3', timestamp: T.p3, event_message: 'ERROR: permission denied for table secrets' },
    ],
  },
  {
    name: 'project isolation: beta sees only its own rows, in every CTE (top-level project and metadata.project_ref)',
    sql: `select 'edge' as source, id from edge_logs
          union all select 'postgres', id from postgres_logs
          union all select 'functions', id from function_logs
          union all select 'function_edge', id from function_edge_logs
          union all select 'auth', id from auth_logs
          order by id`,
    params: { project: 'beta' },
    rows: [
      { source: 'auth', id: 'ba1' },
      { source: 'edge', id: 'be1' },
      { source: 'edge', id: 'be2' },
      { source: 'functions', id: 'bf1' },
      { source: 'function_edge', id: 'bfe1' },
      { source: 'postgres', id: 'bp1' },
    ],
  },
  {
    name: 'UNION ALL of counts per CTE for alpha, ordered by count then name',
    sql: `select 'edge' as source, count(*) as n from edge_logs
          union all select 'postgres', count(*) from postgres_logs
          union all select 'auth', count(*) from auth_logs
          union all select 'functions', count(*) from function_logs
          union all select 'function_edge', count(*) from function_edge_logs
          order by n desc, source`,
    rows: [
      { source: 'edge', n: 5 },
      { source: 'auth', n: 4 },
      { source: 'postgres', n: 4 },
      { source: 'functions', n: 3 },
      { source: 'function_edge', n: 2 },
    ],
  },
  {
    name: "UNPIVOT of two values columns over the project's postgres errors, the columns cast where the subquery names them",
    sql: `select n, id, message from (
            select cast(id as string) as id, cast(event_message as string) as message, 'none' as no_id, cast(null as string) as no_message
            from postgres_logs where regexp_contains(event_message, 'ERROR'))
          unpivot ((id, message) for n in ((id, message) as 'logged', (no_id, no_message)))
          order by n, id`,
    rows: [
      { n: 'logged', id: 'p2', message: 'ERROR: relation "foo" does not exist' },
      { n: 'logged', id: 'p3', message: 'ERROR: permission denied for table secrets' },
      { n: 'no_id_no_message', id: 'none', message: null },
      { n: 'no_id_no_message', id: 'none', message: null },
    ],
  },
  {
    name: 'a project with no rows counts zero',
    sql: 'select count(*) as n from edge_logs',
    params: { project: 'gamma' },
    rows: [{ n: 0 }],
  },
  {
    name: '@project in the consumer SQL is the bound project',
    sql: 'select @project as project, count(*) as n from function_logs cross join unnest(metadata) as m where m.project_ref = @project',
    params: { project: 'beta' },
    rows: [{ project: 'beta', n: 1 }],
  },

  // --- UNNEST idioms --------------------------------------------------------------------------
  {
    name: 'LEFT JOIN UNNEST(..) AS a ON TRUE keeps a row whose array is NULL',
    sql: `select t.id, h.cf_cache_status
          from edge_logs t
          cross join unnest(t.metadata) as m
          cross join unnest(m.response) as r
          left join unnest(r.headers) as h on true
          order by t.id`,
    // e4's response has no headers record.
    rows: [
      { id: 'e1', cf_cache_status: 'HIT' },
      { id: 'e2', cf_cache_status: 'MISS' },
      { id: 'e3', cf_cache_status: 'DYNAMIC' },
      { id: 'e4', cf_cache_status: null },
      { id: 'e5', cf_cache_status: 'BYPASS' },
    ],
  },
  {
    name: 'CROSS JOIN UNNEST of the same NULL array drops the row',
    sql: `select count(*) as n from edge_logs t
          cross join unnest(t.metadata) as m
          cross join unnest(m.response) as r
          cross join unnest(r.headers) as h`,
    rows: [{ n: 4 }], // e1, e2, e3, e5
  },
  {
    name: 'comma-joined UNNEST',
    sql: "select t.id, r.method from edge_logs t, unnest(t.metadata) m, unnest(m.request) r where r.method != 'GET' order by t.id",
    rows: [
      { id: 'e2', method: 'POST' },
      { id: 'e5', method: 'DELETE' },
    ],
  },
  {
    name: 'three levels of UNNEST, newest first',
    sql: `select t.id, h.user_agent
          from edge_logs t
          cross join unnest(t.metadata) m
          cross join unnest(m.request) r
          cross join unnest(r.headers) h
          where h.x_real_ip = '10.0.0.1'
          order by t.timestamp desc`,
    rows: [
      { id: 'e3', user_agent: 'curl/8.5.0' },
      { id: 'e1', user_agent: 'curl/8.5.0' },
    ],
  },
  {
    name: 'an UNNEST alias that shadows the column it unnests (unnest(metadata) as metadata)',
    sql: "select id, metadata.level, metadata.status from auth_logs cross join unnest(metadata) as metadata where metadata.level != 'info' order by id",
    rows: [
      { id: 'a2', level: 'error', status: 400 },
      { id: 'a4', level: 'warning', status: 429 },
    ],
  },
  {
    name: 'unqualified struct fields through an UNNEST alias',
    sql: "select id, path from edge_logs t cross join unnest(t.metadata) as m cross join unnest(m.request) as r where path like '%rest%' order by id",
    rows: [
      { id: 'e1', path: '/rest/v1/items' },
      { id: 'e2', path: '/rest/v1/items' },
      { id: 'e5', path: '/rest/v1/items' },
    ],
  },
  {
    name: 'SELECT * from a CTE returns its four columns, metadata as a repeated record',
    sql: "select * from function_edge_logs where id = 'fe1'",
    rows: [
      {
        id: 'fe1',
        timestamp: 1714557750000000, // 10:02:30
        event_message: 'POST | 200 | https://alpha.functions.dev/hello',
        metadata: [
          {
            project_ref: 'alpha',
            function_id: 'fn-hello',
            execution_id: 'exec-1',
            deployment_id: null,
            execution_time_ms: 35,
            // Every field the source declares is there; those the event lacks are NULL, its records [].
            request: [
              { method: 'POST', url: 'https://alpha.functions.dev/hello', pathname: '/hello', headers: [], host: null, protocol: null, sb: [], search: null },
            ],
            response: [{ status_code: 200, headers: [] }],
            version: null,
          },
        ],
      },
    ],
  },

  // --- literals, casts, NULL handling ----------------------------------------------------------
  {
    name: 'double-quoted string literals',
    sql: 'select id, m.msg from auth_logs cross join unnest(metadata) as m where m.path = "/token" and m.method = "POST" order by id',
    rows: [
      { id: 'a1', msg: 'Login' },
      { id: 'a2', msg: 'Invalid login credentials' },
    ],
  },
  {
    name: 'CAST to DATETIME, STRING, INT64, FLOAT64 and BOOL',
    sql: `select cast(timestamp as datetime) as dt, cast(m.status as string) as status_text, cast("42" as int64) as n,
                 cast(m.status as float64) / 8 as ratio, cast("true" as bool) as flag
          from auth_logs cross join unnest(metadata) m where id = 'a4'`,
    // a4: 11:30:00, status 429; 429 / 8 = 53.625.
    rows: [{ dt: '2024-05-01T11:30:00', status_text: '429', n: 42, ratio: 53.625, flag: true }],
  },
  {
    name: 'CAST(timestamp AS STRING) in BigQuery\'s canonical form',
    sql: "select cast(timestamp as string) as at from auth_logs where id = 'a4'",
    rows: [{ at: '2024-05-01 11:30:00+00' }],
  },
  {
    name: 'SAFE_CAST gives NULL where CAST would fail',
    sql: "select id, safe_cast(m.msg as int64) as n, safe_cast('12' as int64) as twelve, safe_cast('not a time' as timestamp) as ts from auth_logs cross join unnest(metadata) as m where m.path = '/otp'",
    rows: [{ id: 'a4', n: null, twelve: 12, ts: null }],
  },
  {
    name: 'IFNULL over a field never given',
    sql: "select id, ifnull(p.user_name, 'unknown') as who from postgres_logs cross join unnest(metadata) m cross join unnest(m.parsed) p where p.error_severity = 'LOG' order by id",
    rows: [
      { id: 'p1', who: 'postgres' },
      { id: 'p4', who: 'unknown' },
    ],
  },
  {
    name: 'ORDER BY puts NULL first ascending, as BigQuery does',
    sql: 'select p.user_name as who from postgres_logs cross join unnest(metadata) m cross join unnest(m.parsed) p order by who',
    rows: [{ who: null }, { who: 'anon' }, { who: 'authenticator' }, { who: 'postgres' }],
  },
  {
    name: 'IF and CASE-like classification grouped by alias',
    sql: `select if(r.status_code >= 500, 'server', if(r.status_code >= 400, 'client', 'ok')) as kind, count(*) as n
          from edge_logs t, unnest(t.metadata) m, unnest(m.response) r
          group by kind order by kind`,
    // statuses 200, 201, 401, 404, 500
    rows: [
      { kind: 'client', n: 2 },
      { kind: 'ok', n: 2 },
      { kind: 'server', n: 1 },
    ],
  },

  // --- predicates ---------------------------------------------------------------------------------
  {
    name: 'STARTS_WITH',
    sql: "select id from postgres_logs where starts_with(event_message, 'ERROR') order by id",
    rows: [{ id: 'p2' }, { id: 'p3' }],
  },
  {
    name: 'LIKE on a nested field',
    sql: "select t.id from edge_logs t cross join unnest(t.metadata) m cross join unnest(m.request) r where r.path like '/rest/%' order by t.id",
    rows: [{ id: 'e1' }, { id: 'e2' }, { id: 'e5' }],
  },
  {
    name: 'NOT before a function call, and NOT LIKE',
    sql: "select id from postgres_logs where not regexp_contains(event_message, 'ERROR') and event_message not like 'connection%' order by id",
    rows: [{ id: 'p4' }],
  },
  {
    name: 'IN with a list',
    sql: "select id, m.level from function_logs cross join unnest(metadata) as m where m.level in ('error', 'warning') order by id",
    rows: [
      { id: 'f2', level: 'error' },
      { id: 'f3', level: 'warning' },
    ],
  },
  {
    name: 'IN with a subquery over another CTE',
    sql: `select t.id from edge_logs t cross join unnest(t.metadata) m cross join unnest(m.request) r cross join unnest(r.headers) h
          where h.x_real_ip in (select am.remote_addr from auth_logs a cross join unnest(a.metadata) am)
          order by t.id`,
    // auth remote_addr: 10.0.0.1, 10.0.0.9, 10.0.0.3, NULL; edge ips .1 (e1, e3), .3 (e4)
    rows: [{ id: 'e1' }, { id: 'e3' }, { id: 'e4' }],
  },
  {
    name: 'BETWEEN on an integer field',
    sql: 'select t.id from edge_logs t cross join unnest(t.metadata) m cross join unnest(m.response) r where r.status_code between 400 and 499 order by t.id',
    rows: [{ id: 'e3' }, { id: 'e4' }],
  },
  {
    name: 'BETWEEN on DATETIME casts',
    sql: "select id from auth_logs where cast(timestamp as datetime) between cast('2024-05-01 10:00:00' as datetime) and cast('2024-05-01 10:30:00' as datetime) order by id",
    rows: [{ id: 'a1' }, { id: 'a2' }],
  },
  {
    name: 'a TIMESTAMP literal in a comparison',
    sql: "select id from edge_logs where timestamp >= timestamp '2024-05-01 11:00:00+00' order by timestamp",
    rows: [{ id: 'e4' }, { id: 'e5' }],
  },
  {
    name: 'REGEXP_CONTAINS with a raw string pattern',
    sql: "select t.id from edge_logs t cross join unnest(t.metadata) m cross join unnest(m.request) r cross join unnest(r.headers) h where regexp_contains(h.user_agent, r'^(curl|python)') order by t.id",
    rows: [{ id: 'e1' }, { id: 'e3' }, { id: 'e5' }],
  },
  {
    name: 'LOWER and UPPER',
    sql: "select upper(m.level) as level, lower(m.method) as method from auth_logs cross join unnest(metadata) m where id = 'a3'",
    rows: [{ level: 'INFO', method: 'get' }],
  },

  // --- aggregates --------------------------------------------------------------------------------
  {
    name: 'COUNT(DISTINCT)',
    sql: 'select count(distinct h.user_agent) as agents, count(distinct h.x_real_ip) as ips from edge_logs t cross join unnest(t.metadata) m cross join unnest(m.request) r cross join unnest(r.headers) h',
    // agents: curl, Mozilla, python-requests; ips: 10.0.0.1 .. 10.0.0.4
    rows: [{ agents: 3, ips: 4 }],
  },
  {
    name: 'SUM, AVG, MIN and MAX',
    sql: 'select sum(r.origin_time) as total, avg(r.origin_time) as mean, min(r.status_code) as lo, max(r.status_code) as hi from edge_logs t cross join unnest(t.metadata) m cross join unnest(m.response) r',
    // 120 + 300 + 50 + 80 + 900 = 1450; / 5 = 290
    rows: [{ total: 1450, mean: 290, lo: 200, hi: 500 }],
  },
  {
    name: 'COUNTIF beside COUNT(*)',
    sql: 'select countif(m.status >= 400) as failures, count(*) as total from auth_logs, unnest(metadata) m',
    rows: [{ failures: 2, total: 4 }], // 400 (a2), 429 (a4)
  },
  {
    name: 'GROUP BY alias, ORDER BY aggregate alias then group alias',
    sql: 'select m.level as level, count(*) as n from auth_logs cross join unnest(metadata) m group by level order by n desc, level',
    rows: [
      { level: 'info', n: 2 },
      { level: 'error', n: 1 },
      { level: 'warning', n: 1 },
    ],
  },
  {
    name: 'HAVING',
    sql: 'select m.path, count(*) as n from auth_logs cross join unnest(metadata) m group by m.path having count(*) > 1',
    rows: [{ path: '/token', n: 2 }],
  },
  {
    name: 'an aggregate over a subquery in FROM',
    sql: 'select level, n from (select m.level as level, count(*) as n from function_logs, unnest(metadata) m group by 1) as levels where n >= 1 order by level',
    rows: [
      { level: 'error', n: 1 },
      { level: 'info', n: 1 },
      { level: 'warning', n: 1 },
    ],
  },

  // --- time --------------------------------------------------------------------------------------
  {
    name: 'EXTRACT(HOUR) grouped and ordered by alias',
    sql: 'select extract(hour from timestamp) as hour, count(*) as n from edge_logs group by hour order by hour',
    // 10:00, 10:05, 10:30 | 11:15 | 12:00
    rows: [
      { hour: 10, n: 3 },
      { hour: 11, n: 1 },
      { hour: 12, n: 1 },
    ],
  },
  {
    name: 'EXTRACT(DAYOFWEEK) counts Sunday as 1',
    sql: 'select distinct extract(dayofweek from timestamp) as dow from auth_logs',
    rows: [{ dow: 4 }], // 2024-05-01 is a Wednesday
  },
  {
    name: 'TIMESTAMP_TRUNC grouped and ordered by ordinal',
    sql: 'select timestamp_trunc(timestamp, hour) as hour, count(*) as n from auth_logs group by 1 order by 1',
    // 10:06, 10:07, 10:50 | 11:30
    rows: [
      { hour: T.h10, n: 3 },
      { hour: T.h11, n: 1 },
    ],
  },
  {
    name: 'TIMESTAMP_SUB and TIMESTAMP_ADD',
    sql: "select id, timestamp_sub(timestamp, interval 1 hour) as before, timestamp_add(timestamp, interval 30 minute) as after from postgres_logs where id = 'p3'",
    // 11:40 - 1h = 10:40; 11:40 + 30min = 12:10
    rows: [{ id: 'p3', before: 1714560000000000, after: 1714565400000000 }],
  },
  {
    name: 'UNIX_MICROS and TIMESTAMP_MICROS',
    sql: "select unix_micros(timestamp) as us, timestamp_micros(unix_micros(timestamp) + 1000000) as plus_one from function_logs where id = 'f1'",
    rows: [{ us: T.f1, plus_one: T.f1 + 1_000_000 }],
  },
  {
    name: 'FORMAT_TIMESTAMP, ordered by its alias',
    sql: "select id, format_timestamp('%Y-%m-%d %H:%M:%S', timestamp) as at from function_edge_logs order by at desc",
    rows: [
      { id: 'fe2', at: '2024-05-01 10:41:00' },
      { id: 'fe1', at: '2024-05-01 10:02:30' },
    ],
  },

  // --- shape of the query ------------------------------------------------------------------------
  {
    name: 'LIMIT with OFFSET',
    sql: 'select id from edge_logs order by timestamp desc limit 2 offset 1',
    rows: [{ id: 'e4' }, { id: 'e3' }], // e5, [e4, e3], e2, e1
  },
  {
    name: 'comments and a trailing semicolon',
    sql: `-- newest postgres error
select id /* the log id */
from postgres_logs
where event_message like 'ERROR%' -- errors only
order by timestamp desc
limit 1;`,
    rows: [{ id: 'p3' }],
  },
  {
    name: 'consumer CTEs combined with UNION ALL',
    sql: `with errors as (select id from postgres_logs where starts_with(event_message, 'ERROR')),
               failures as (select id from auth_logs cross join unnest(metadata) m where m.status >= 400)
          select 'postgres' as source, id from errors
          union all
          select 'auth', id from failures
          order by id`,
    rows: [
      { source: 'auth', id: 'a2' },
      { source: 'auth', id: 'a4' },
      { source: 'postgres', id: 'p2' },
      { source: 'postgres', id: 'p3' },
    ],
  },
  {
    name: 'a consumer CTE joined to another CTE on an unnested field',
    sql: `with executions as (select fm.execution_id, fm.level from function_logs f cross join unnest(f.metadata) fm)
          select fe.id, x.level
          from function_edge_logs fe
          cross join unnest(fe.metadata) em
          join executions x on x.execution_id = em.execution_id
          order by fe.id`,
    rows: [
      { id: 'fe1', level: 'info' },
      { id: 'fe2', level: 'error' },
    ],
  },
  {
    name: 'unaliased expressions are named f0_, f1_, as in BigQuery',
    sql: 'select m.level, count(*), max(timestamp) from auth_logs cross join unnest(metadata) as m group by 1 order by 1',
    rows: [
      { level: 'error', f0_: 1, f1_: 1714558020000000 }, // a2 10:07
      { level: 'info', f0_: 2, f1_: 1714560600000000 }, // a1 10:06, a3 10:50
      { level: 'warning', f0_: 1, f1_: T.a4 },
    ],
  },
  {
    // BigQuery numbers only the unaliased expressions: f0_, f1_, named, f2_.
    name: 'an aliased expression does not take a number from the f0_, f1_, ... sequence',
    sql: "select count(*), max(timestamp), 'x' as named, min(id) from auth_logs",
    rows: [{ f0_: 4, f1_: T.a4, named: 'x', f2_: 'a1' }],
    check: (rows) => expect(Object.keys(rows[0]!)).toEqual(['f0_', 'f1_', 'named', 'f2_']),
  },

  // --- idioms the corpus found broken, now fixed ---------------------------------------------------
  {
    name: 'NOT applied to a parenthesised condition',
    sql: "select id from postgres_logs where not (event_message like 'ERROR%') order by id",
    rows: [{ id: 'p1' }, { id: 'p4' }],
  },
  {
    name: 'NOT EXISTS over a correlated UNNEST',
    sql: "select t.id from edge_logs t where not exists (select 1 from unnest(t.metadata) m, unnest(m.request) r where r.method = 'GET') order by t.id",
    rows: [{ id: 'e2' }, { id: 'e5' }], // methods: e1 GET, e2 POST, e3 GET, e4 GET, e5 DELETE
  },
  {
    // DuckDB's TRY_CAST('1.5' AS BIGINT) would round to 2; BigQuery's SAFE_CAST reads integers only.
    name: 'SAFE_CAST of a decimal string to INT64 is NULL',
    sql: "select safe_cast('1.5' as int64) as n, safe_cast(m.status as string) as s from auth_logs cross join unnest(metadata) m where id = 'a1'",
    rows: [{ n: null, s: '200' }],
  },
  {
    name: 'SELECT * REPLACE',
    sql: "with s as (select id, event_message from auth_logs) select * replace (upper(event_message) as event_message) from s where id = 'a1'",
    rows: [{ id: 'a1', event_message: 'LOGIN' }],
  },
  {
    name: 'UNNEST ... WITH OFFSET',
    sql: "select t.id, m.level, i from auth_logs t cross join unnest(t.metadata) as m with offset as i where t.id = 'a1'",
    rows: [{ id: 'a1', level: 'info', i: 0 }],
  },
  {
    // BigQuery treats position 0 as 1 ('ERROR'); DuckDB's substring starts before the string ('ERRO').
    name: 'SUBSTR from position 0',
    sql: "select substr(event_message, 0, 5) as head from postgres_logs where id = 'p2'",
    rows: [{ head: 'ERROR' }],
  },

  // --- the endpoint's parameters and cap still apply -----------------------------------------------
  {
    name: 'iso_timestamp bounds apply through the CTE: (start, end]',
    sql: 'select id from postgres_logs order by timestamp',
    // p1 at 10:01 sits on the excluded start; p3 at 11:40 on the included end.
    params: { project: 'alpha', iso_timestamp_start: '2024-05-01T10:01:00Z', iso_timestamp_end: '2024-05-01T11:40:00Z' },
    rows: [{ id: 'p2' }, { id: 'p3' }],
  },
  {
    name: 'iso_timestamp bounds apply to every CTE the query reads',
    sql: 'select id from edge_logs union all select id from auth_logs order by id',
    // edge: e2 (10:05) excluded, e3 (10:30), e4 (11:15) in; auth: a1 10:06, a2 10:07, a3 10:50 in, a4 11:30 out
    params: { project: 'alpha', iso_timestamp_start: '2024-05-01T10:05:00Z', iso_timestamp_end: '2024-05-01T11:15:00Z' },
    rows: [{ id: 'a1' }, { id: 'a2' }, { id: 'a3' }, { id: 'e3' }, { id: 'e4' }],
  },
  {
    name: 'the cross join behind the max_rows case has 1200 rows',
    sql: 'select count(*) as n from edge_logs a cross join edge_logs b cross join postgres_logs c cross join auth_logs d cross join function_logs e',
    rows: [{ n: 1200 }], // 5 * 5 * 4 * 4 * 3
  },
  {
    name: 'the caller\'s own CTEs inside a subquery and a parenthesised set operand',
    sql: `select id from (with c as (select id from edge_logs where id = 'e1') select id from c)
          union all (with d as (select id from edge_logs where id = 'e2') select id from d) order by id`,
    rows: [{ id: 'e1' }, { id: 'e2' }],
  },
  {
    name: 'max_rows (1000) caps a result of 1200 rows',
    sql: 'select a.id, b.id as b_id from edge_logs a cross join edge_logs b cross join postgres_logs c cross join auth_logs d cross join function_logs e',
    check: (rows) => expect(rows).toHaveLength(1000),
  },
  {
    name: 'max_rows caps even an explicit larger LIMIT',
    sql: 'select a.id from edge_logs a cross join edge_logs b cross join postgres_logs c cross join auth_logs d cross join function_logs e limit 5000',
    check: (rows) => expect(rows).toHaveLength(1000),
  },
];

const sortRows = (rows: Row[]) => [...rows].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));

describe('sandbox corpus: client-style queries over logs.all', () => {
  let svc: TestService;

  beforeAll(async () => {
    svc = await startTestService({ fixtures: FIXTURES });
  });
  afterAll(() => svc?.close());

  it('has at least 30 cases', () => {
    expect(CASES.length).toBeGreaterThanOrEqual(30);
  });

  // Where BigQuery raises an error (a 400 there), a caller's query is refused with a 400 here, naming it.
  it.each([
    ['an array holding NULL in the result', 'select array_agg(x) as a from unnest([1, null]) as x', 'Array cannot have a null element'],
    ['a subscript past the end', 'select [1, 2][offset(5)] as x', 'Array index out of bounds'],
    ['a record read past its one element', 'select metadata[offset(1)].level as l from auth_logs', 'Array index out of bounds'],
    ['field access on a repeated record', 'select id, metadata.request from edge_logs', 'Cannot access field request on a value with type ARRAY'],
    ['PIVOT over a table', "select * from edge_logs pivot (count(*) for event_message in ('a'))", 'PIVOT over a table'],
    ['UNPIVOT of an INT64 and a FLOAT64 column', 'select * from (select 1 as a, 1.5 as b) unpivot (v for n in (a, b))', 'sql cannot run: The datatype of column does not match with other datatypes in the IN clause. Expected INT64, Found FLOAT64'],
  ])('%s is a 400 naming it', async (_label, sql, message) => {
    const { status, body } = await svc.call(sandboxPath({ project: 'alpha', sql }));
    expect(status, JSON.stringify(body)).toBe(400);
    expect((body as { error: { param: string; message: string } }).error).toMatchObject({ param: 'sql', message: expect.stringContaining(message) });
  });

  for (const c of CASES) {
    if (c.mode === 'todo') {
      it.todo(c.name);
      continue;
    }
    it(c.name, async () => {
      const { status, body } = await svc.call(sandboxPath({ project: 'alpha', ...c.params, sql: c.sql }));
      expect(status, JSON.stringify(body)).toBe(200);
      const rows = body.result as Row[];
      if (c.rows) expect(c.unordered ? sortRows(rows) : rows).toEqual(c.unordered ? sortRows(c.rows) : c.rows);
      c.check?.(rows);
    });
  }
});
