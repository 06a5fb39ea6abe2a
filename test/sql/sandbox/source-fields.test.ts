/**
 * Every field the source schemas declare (src/config/sources.ts) can be read by a client's
 * sandbox query over logs.all, and `cannery seed` gives it values: through the real service, on
 * seeded demo data, for the main demo project.
 *
 * The field queries are generated from the schemas: one per nested record, unnesting down to it
 * and counting the non-NULL values of each of its fields. The Studio queries are those Supabase
 * Studio sends to logs.all for its log pages, reports and API-key pages, with their own filters.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUILT_IN_SOURCES, listElement, topLevelColumns, type ListType, type RecordShape, type ScalarType } from '../../../src/config/sources.js';
import { MAIN_DEMO_PROJECT } from '../../../src/demo/seed.js';
import { startTestService, type TestService } from '../../support/service.js';
import { sandboxPath } from './fixtures.js';

type Row = Record<string, unknown>;

/** The CTE of logs.all over each source (docs/sql.md#sources). */
const CTES: Record<string, string> = {
  'cloudflare.logs.prod': 'edge_logs',
  'postgres.logs': 'postgres_logs',
  'deno-relay-logs': 'function_edge_logs',
  'deno-subhosting-events': 'function_logs',
  'gotrue.logs.prod': 'auth_logs',
  'realtime.logs.prod': 'realtime_logs',
  'storage.logs.prod.2': 'storage_logs',
  'postgREST.logs.prod': 'postgrest_logs',
  'pgbouncer.logs.prod': 'pgbouncer_logs',
};

interface RecordQuery {
  /** `metadata.request.cf`: where the record is. */
  path: string;
  /** Field names, in the order of the counts `c0`, `c1`, ... */
  fields: string[];
  sql: string;
}

/** One query per record of a source: `from <cte> cross join unnest(..) as r1 ...`, counting each scalar and array field. */
function recordQueries(cte: string, metadata: RecordShape): RecordQuery[] {
  const queries: RecordQuery[] = [];
  const walk = (record: RecordShape, path: string, joins: string[], alias: string): void => {
    const fields = Object.entries(record).filter(([, shape]) => typeof shape === 'string');
    if (fields.length > 0) {
      const counts = fields.map(([name, shape], index) => {
        const value = `${alias}.\`${name}\``;
        return `countif(${listElement(shape as ScalarType | ListType) === undefined ? `${value} is not null` : `array_length(${value}) > 0`}) as c${index}`;
      });
      queries.push({ path, fields: fields.map(([name]) => name), sql: `select ${counts.join(', ')} from ${cte} as t ${joins.join(' ')}` });
    }
    for (const [name, shape] of Object.entries(record)) {
      if (typeof shape === 'string') continue;
      const child = `r${joins.length + 1}`;
      walk(shape, `${path}.${name}`, [...joins, `cross join unnest(${alias}.\`${name}\`) as ${child}`], child);
    }
  };
  walk(metadata, 'metadata', ['cross join unnest(t.metadata) as r1'], 'r1');
  return queries;
}

describe('source fields on seeded demo data, read through logs.all', () => {
  let svc: TestService;

  beforeAll(async () => {
    svc = await startTestService({ seed: { edgeEvents: 20_000, now: new Date('2024-06-01T12:00:00Z') } });
  }, 120_000);
  afterAll(() => svc?.close());

  async function query(sql: string): Promise<Row[]> {
    const { status, body } = await svc.call(sandboxPath({ project: MAIN_DEMO_PROJECT, sql }));
    expect(status, `${sql}\n${JSON.stringify(body)}`).toBe(200);
    return body.result as Row[];
  }

  for (const source of BUILT_IN_SOURCES) {
    const cte = CTES[source.name]!;
    it(`${cte}: every declared field is readable and seeded`, async () => {
      const columns = Object.keys(topLevelColumns(source)).filter((name) => name !== 'project');
      const [top] = await query(`select ${columns.map((name, index) => `countif(\`${name}\` is not null) as c${index}`).join(', ')} from ${cte}`);
      const empty = columns.filter((_, index) => !((top?.[`c${index}`] as number) > 0));
      for (const { path, fields, sql } of recordQueries(cte, source.metadata)) {
        const [counts] = await query(sql);
        empty.push(...fields.filter((_, index) => !((counts?.[`c${index}`] as number) > 0)).map((name) => `${path}.${name}`));
      }
      expect(empty).toEqual([]);
    });
  }

  // --- Studio's own queries, over the fields its log tables carry ------------------------------

  it("Studio's API log page filtered to the read replica (identifier)", async () => {
    const [replica] = await query("select identifier from edge_logs where identifier != @project limit 1");
    const rows = await query(`select id, identifier, timestamp, event_message, request.method, request.path, request.search, response.status_code
      from edge_logs
      cross join unnest(metadata) as m
      cross join unnest(m.request) as request
      cross join unnest(m.response) as response
      where (identifier = '${replica?.identifier as string}')
      order by timestamp desc
      limit 100`);
    expect(replica?.identifier).toMatch(new RegExp(`^${MAIN_DEMO_PROJECT}-rr-`));
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) expect(row).toMatchObject({ identifier: replica?.identifier, method: 'GET', path: expect.stringMatching(/^\/rest\/v1\//) });
  });

  it("Studio's Postgres log page: errors with parsed.detail and parsed.hint", async () => {
    const rows = await query(`select identifier, postgres_logs.timestamp, id, event_message, parsed.error_severity, parsed.detail, parsed.hint
      from postgres_logs
      cross join unnest(metadata) as m
      cross join unnest(m.parsed) as parsed
      where (parsed.error_severity in ('ERROR', 'FATAL', 'PANIC'))
      order by timestamp desc
      limit 100`);
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) expect(['ERROR', 'FATAL', 'PANIC']).toContain(row.error_severity);
    expect(rows.some((row) => /^Key \(email\)=\(.+\) already exists\.$/.test(String(row.detail)))).toBe(true);
    expect(rows.some((row) => String(row.hint).startsWith('Perhaps you meant'))).toBe(true);
  });

  it("Studio's pg_cron log page (parsed.application_name, parsed.query)", async () => {
    const rows = await query(`select id, postgres_logs.timestamp, event_message, parsed.error_severity, parsed.query
      from postgres_logs
      cross join unnest(metadata) as m
      cross join unnest(m.parsed) as parsed
      where ( parsed.application_name = 'pg_cron' or regexp_contains(event_message, 'cron job') )
      order by timestamp desc
      limit 100`);
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.some((row) => String(row.event_message).includes('cron job'))).toBe(true);
  });

  it("Studio's Auth log page: errors with metadata.error", async () => {
    const rows = await query(`select id, auth_logs.timestamp, event_message, metadata.level, metadata.status, metadata.path, metadata.msg as msg, metadata.error
      from auth_logs
      cross join unnest(metadata) as metadata
      where (IFNULL(metadata.level, '') IN ('error', 'fatal') OR IFNULL(SAFE_CAST(metadata.status AS INT64), 0) >= 500)
      order by timestamp desc
      limit 100`);
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) {
      expect(row.level === 'error' || (row.status as number) >= 500).toBe(true);
      expect(row.error).toEqual(expect.any(String));
      expect(JSON.parse(String(row.event_message))).toMatchObject({ error: row.error, path: row.path });
    }
  });

  it("Studio's function-edge log page: server errors with m.version and m.deployment_id", async () => {
    const rows = await query(`select id, function_edge_logs.timestamp, event_message, response.status_code, request.method, request.pathname,
        m.function_id, m.execution_id, m.execution_time_ms, m.deployment_id, m.version
      from function_edge_logs
      cross join unnest(metadata) as m
      cross join unnest(m.response) as response
      cross join unnest(m.request) as request
      where (response.status_code between 500 and 599)
      order by timestamp desc
      limit 100`);
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) {
      expect(row.status_code).toBe(500);
      expect(row.version).toMatch(/^[1-9]$/);
      expect(row.deployment_id).toBe(`${MAIN_DEMO_PROJECT}_${row.function_id as string}_${row.version as string}`);
    }
  });

  // Studio groups these by `timestamp`, the alias of the bucket; here the bucket has its own name,
  // so the query does not depend on GoogleSQL's alias-over-column rule (another part of issue 14).
  it("Studio's Auth report: errors by x_sb_error_code", async () => {
    const rows = await query(`select timestamp_trunc(timestamp, hour) as bucket, count(*) as count, h.x_sb_error_code as error_code
      from edge_logs
      cross join unnest(metadata) as m
      cross join unnest(m.request) as request
      cross join unnest(m.response) as response
      cross join unnest(response.headers) as h
      where path like '%auth/v1%'
        and response.status_code >= 400 and response.status_code <= 599
      group by bucket, error_code
      order by bucket desc`);
    expect(rows.length).toBeGreaterThan(0);
    const codes = new Set(rows.map((row) => row.error_code));
    expect([...codes].every((code) => /^[a-z_]+$/.test(String(code)))).toBe(true);
    expect(codes).toContain('invalid_credentials');
  });

  it("Studio's API report: network traffic from request and response content_length", async () => {
    const rows = await query(`select cast(timestamp_trunc(t.timestamp, day) as datetime) as day,
        coalesce(safe_divide(sum(cast(coalesce(headers.content_length, "0") as int64)), 1000000), 0) as ingress_mb,
        coalesce(safe_divide(sum(cast(coalesce(resp_headers.content_length, "0") as int64)), 1000000), 0) as egress_mb,
      FROM edge_logs t
        cross join unnest(metadata) as m
        cross join unnest(m.response) as response
        cross join unnest(m.request) as request
        cross join unnest(request.headers) as headers
        cross join unnest(response.headers) as resp_headers
      GROUP BY day
      ORDER BY day ASC`);
    expect(rows.length).toBeGreaterThan(1);
    for (const row of rows) {
      expect(row.ingress_mb as number).toBeGreaterThan(0);
      expect(row.egress_mb as number).toBeGreaterThan(row.ingress_mb as number);
    }
  });

  it("Studio's API keys page: legacy keys last used (request.sb.jwt.apikey.payload)", async () => {
    const rows = await query(`SELECT unix_millis(max(timestamp)) as timestamp, payload.role, payload.signature_prefix FROM edge_logs
      cross join unnest(metadata) as m cross join unnest(m.request) as request cross join unnest(request.sb) as sb
      cross join unnest(sb.jwt) as jwt cross join unnest(jwt.apikey) as apikey cross join unnest(apikey.payload) as payload
      WHERE apikey.invalid is null and payload.issuer = 'supabase' and payload.algorithm = 'HS256' and payload.role in ('anon', 'service_role')
      GROUP BY payload.role, payload.signature_prefix`);
    expect(rows.map((row) => row.role).sort()).toEqual(['anon', 'service_role']);
    for (const row of rows) expect(row).toMatchObject({ timestamp: expect.any(Number), signature_prefix: expect.stringMatching(/^[0-9a-f]{6}$/) });
  });

  it("Studio's API keys page: secret keys last seen (request.sb.apikey.apikey)", async () => {
    const rows = await query(`SELECT unix_millis(max(timestamp)) as timestamp, apikey.\`hash\` FROM edge_logs
      cross join unnest(metadata) as m cross join unnest(m.request) as request cross join unnest(request.sb) as sb
      cross join unnest(sb.apikey) as sbapikey cross join unnest(sbapikey.apikey) as apikey
      WHERE apikey.error is null and apikey.\`hash\` is not null and apikey.prefix like 'sb_secret_%' GROUP BY apikey.\`hash\``);
    expect(rows).toEqual([{ timestamp: expect.any(Number), hash: expect.stringMatching(/^[0-9a-f]{32}$/) }]);
  });

  it("Studio's user journey: a signed-in user's API requests (request.sb.auth_user)", async () => {
    const [user] = await query(`select sb.auth_user from edge_logs cross join unnest(metadata) as m cross join unnest(m.request) as request
      cross join unnest(request.sb) as sb where sb.auth_user is not null limit 1`);
    const rows = await query(`select id, timestamp, request.method as method, request.path as path, response.status_code as status_code
      from edge_logs
      cross join unnest(metadata) as m
      cross join unnest(m.request) as request
      cross join unnest(m.response) as response
      cross join unnest(request.sb) as sb
      where sb.auth_user = '${user?.auth_user as string}'
      order by timestamp desc
      limit 100`);
    expect(rows.length).toBeGreaterThan(0);
    const [auth] = await query(`select count(*) as n from auth_logs cross join unnest(metadata) as m cross join unnest(m.auth_event) as e
      where e.actor_id = '${user?.auth_user as string}'`);
    expect(auth?.n as number).toBeGreaterThan(0);
  });

  it("Studio's edge-functions report: invocations by region (response.headers.x_sb_edge_region)", async () => {
    const rows = await query(`select timestamp_trunc(timestamp, day) as day, h.x_sb_edge_region as region, count(*) as count
      from function_edge_logs
      cross join unnest(metadata) as m
      cross join unnest(m.response) as r
      cross join unnest(r.headers) as h
      where h.x_sb_edge_region is not null
      group by day, region
      order by day desc`);
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) expect(row.region).toMatch(/^[a-z]{2}-[a-z]+-\d$/);
  });

  it("Studio's Logs Explorer templates: requests by geography and the cache misses of Storage", async () => {
    const countries = await query(`select cf.country, count(*) as count from edge_logs
      left join unnest(metadata) as m on true left join unnest(m.request) as r on true left join unnest(r.cf) as cf on true
      group by cf.country order by count desc`);
    expect(countries.length).toBeGreaterThan(5);
    const misses = await query(`select r.path as path, r.search as search, count(id) as count
      from edge_logs f
        cross join unnest(f.metadata) as m
        cross join unnest(m.request) as r
        cross join unnest(m.response) as res
        cross join unnest(res.headers) as h
      where starts_with(r.path, '/storage/v1/object')
        and r.method = 'GET'
        and h.cf_cache_status in ('MISS', 'NONE/UNKNOWN', 'EXPIRED', 'BYPASS', 'DYNAMIC')
      group by path, search
      order by count desc
      limit 100`);
    expect(misses.length).toBeGreaterThan(0);
  });

  it('realtime measurements and storage requests, as their log pages read them', async () => {
    const realtime = await query(`select m.external_id, measurements.connected, measurements.\`limit\` from realtime_logs
      cross join unnest(metadata) as m cross join unnest(m.measurements) as measurements limit 10`);
    expect(realtime.length).toBeGreaterThan(0);
    for (const row of realtime) expect(row).toMatchObject({ external_id: MAIN_DEMO_PROJECT, connected: expect.any(Number), limit: 200 });
    const storage = await query(`select m.reqId, req.method, res.statusCode, m.responseTime from storage_logs
      cross join unnest(metadata) as m cross join unnest(m.req) as req cross join unnest(m.res) as res
      where res.statusCode >= 400 limit 10`);
    expect(storage.length).toBeGreaterThan(0);
    for (const row of storage) expect(row).toMatchObject({ reqId: expect.stringMatching(/^[0-9a-f]{16}-[A-Z]{3}$/), responseTime: expect.any(Number) });
  });

  // A field that no table has is the caller's mistake: a 400 that names the field and where it was looked for.
  it('a field no source has is a 400 naming the field and the CTE', async () => {
    const { status, body } = await svc.call(
      sandboxPath({ project: MAIN_DEMO_PROJECT, sql: 'select m.no_such_field from edge_logs cross join unnest(metadata) as m' }),
    );
    expect(status).toBe(400);
    expect(body.error.message, body.error.message).toMatch(/no_such_field/);
    expect(body.error.message, body.error.message).toMatch(/edge_logs/);
  });
});
