/**
 * Sandbox queries for the common questions asked of logs, offered where the endpoint has the CTEs
 * they read. Each is run against the shipped endpoints by test/web/templates.test.ts, so none
 * offered can be one the sandbox refuses.
 */
export interface SqlTemplate {
  title: string;
  /** The endpoint CTEs it reads. */
  reads: string[];
  sql: string;
}

export const TEMPLATES: readonly SqlTemplate[] = [
  {
    title: 'Requests per hour by status class (chart)',
    reads: ['edge_logs'],
    sql: `select
  timestamp_trunc(timestamp, hour) as hour,
  countif(r.status_code < 400) as ok,
  countif(r.status_code >= 400 and r.status_code < 500) as client_errors,
  countif(r.status_code >= 500) as server_errors
from edge_logs
cross join unnest(metadata) as m
cross join unnest(m.response) as r
group by hour
order by hour`,
  },
  {
    title: 'Busiest paths',
    reads: ['edge_logs'],
    sql: `select r.method, r.path, count(*) as requests
from edge_logs
cross join unnest(metadata) as m
cross join unnest(m.request) as r
group by r.method, r.path
order by requests desc
limit 20`,
  },
  {
    title: 'Slowest responses',
    reads: ['edge_logs'],
    sql: `select timestamp, q.method, q.path, s.status_code, s.origin_time
from edge_logs
cross join unnest(metadata) as m
cross join unnest(m.request) as q
cross join unnest(m.response) as s
order by s.origin_time desc
limit 20`,
  },
  {
    title: 'Database errors',
    reads: ['postgres_logs'],
    sql: `select timestamp, p.error_severity, event_message
from postgres_logs
cross join unnest(metadata) as m
cross join unnest(m.parsed) as p
where p.error_severity in ('ERROR', 'FATAL', 'PANIC')
order by timestamp desc
limit 100`,
  },
  {
    title: 'Auth failures',
    reads: ['auth_logs'],
    sql: `select timestamp, m.status, m.method, m.path, m.msg
from auth_logs
cross join unnest(metadata) as m
where m.status >= 400
order by timestamp desc
limit 100`,
  },
  {
    title: 'Function log levels per hour (chart)',
    reads: ['function_logs'],
    sql: `select timestamp_trunc(timestamp, hour) as hour, m.level, count(*) as events
from function_logs
cross join unnest(metadata) as m
group by hour, m.level
order by hour`,
  },
  {
    title: 'Search every source for a word',
    reads: ['edge_logs', 'postgres_logs', 'auth_logs', 'function_logs', 'storage_logs', 'realtime_logs'],
    sql: `with everything as (
  select 'edge' as source, timestamp, event_message from edge_logs
  union all select 'postgres', timestamp, event_message from postgres_logs
  union all select 'auth', timestamp, event_message from auth_logs
  union all select 'functions', timestamp, event_message from function_logs
  union all select 'storage', timestamp, event_message from storage_logs
  union all select 'realtime', timestamp, event_message from realtime_logs
)
select source, timestamp, event_message
from everything
where regexp_contains(lower(event_message), r'timeout|denied')
order by timestamp desc
limit 100`,
  },
  {
    title: 'Requests per bucket',
    reads: ['bucketed'],
    sql: `select bucket, count(*) as requests
from bucketed
group by bucket
order by bucket`,
  },
  {
    title: 'Busiest paths in the window',
    reads: ['requests'],
    sql: `select path, count(*) as requests
from requests
group by path
order by requests desc
limit 20`,
  },
];

/** The templates whose CTEs `ctes` all has. */
export function templatesFor(ctes: readonly string[]): SqlTemplate[] {
  const have = new Set(ctes.map((name) => name.toLowerCase()));
  return TEMPLATES.filter((template) => template.reads.every((name) => have.has(name)));
}
