import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DuckDBConnection } from '#duckdb-api';
import { sourceNames } from '../../src/config/sources.js';
import { importNdjson } from '../../src/backends/duckdb/import/import.js';
import { DEMO_PROJECTS, MAIN_DEMO_PROJECT, demoEventCounts, seedDemoData } from '../../src/demo/seed.js';
import { bigQueryRows, connectDuckDB, rows } from '../support/duckdb.js';

const NOW = new Date('2024-06-01T12:00:00Z');
const EDGE_EVENTS = 20_000;
const WEEK_US = 7n * 86_400_000_000n;
const NOW_US = BigInt(NOW.getTime()) * 1000n;

describe('seedDemoData', () => {
  let connection: DuckDBConnection;
  let close: () => void;
  const progress: [number, number][] = [];

  beforeAll(async () => {
    ({ connection, close } = await connectDuckDB());
    await seedDemoData(connection, { edgeEvents: EDGE_EVENTS, now: NOW, onProgress: (done, total) => progress.push([done, total]) });
  });
  afterAll(() => close());

  it('writes the announced number of events to every source', async () => {
    const counts = demoEventCounts(EDGE_EVENTS);
    expect(Object.keys(counts).sort()).toEqual([...sourceNames()].sort());
    expect(counts['cloudflare.logs.prod']).toBe(EDGE_EVENTS);
    for (const [source, count] of Object.entries(counts)) {
      expect(count).toBeGreaterThan(0);
      expect(await rows(connection, `SELECT count(*) AS n, count(DISTINCT id) AS ids FROM "${source}"`)).toEqual([
        { n: BigInt(count), ids: BigInt(count) },
      ]);
    }
    const total = Object.values(counts).reduce((sum, count) => sum + count, 0);
    expect(progress[0]).toEqual([0, total]);
    expect(progress.at(-1)).toEqual([total, total]);
  });

  it('puts every event in the week before now', async () => {
    for (const source of sourceNames()) {
      const [row] = await rows(connection, `SELECT min(epoch_us("timestamp")) AS first, max(epoch_us("timestamp")) AS last FROM "${source}"`);
      expect(row?.first as bigint).toBeGreaterThanOrEqual(NOW_US - WEEK_US);
      expect(row?.last as bigint).toBeLessThanOrEqual(NOW_US);
    }
  });

  it('gives every project edge events in every minute of the last hour', async () => {
    expect(DEMO_PROJECTS).toHaveLength(4);
    expect(DEMO_PROJECTS).toContain(MAIN_DEMO_PROJECT);
    for (const project of DEMO_PROJECTS) expect(project).toMatch(/^[a-z]{20}$/);
    const result = await rows(
      connection,
      `SELECT project, count(DISTINCT date_trunc('minute', "timestamp")) AS minutes FROM "cloudflare.logs.prod"
       WHERE "timestamp" > $since AND "timestamp" < $now GROUP BY project ORDER BY project`,
      { since: new Date(NOW.getTime() - 3_600_000).toISOString(), now: NOW.toISOString() },
    );
    expect(result).toEqual([...DEMO_PROJECTS].sort().map((project) => ({ project, minutes: 60n })));
  });

  it('makes the main project the busiest', async () => {
    const [row] = await rows(connection, `SELECT mode(project) AS busiest FROM "cloudflare.logs.prod"`);
    expect(row?.busiest).toBe(MAIN_DEMO_PROJECT);
  });

  it('spreads edge paths over every API prefix, read the way the shipped SQL reads them', async () => {
    const [counts] = await bigQueryRows(
      connection,
      `select count(*) as n,
         countif(starts_with(r.path, '/rest/v1/')) as rest,
         countif(starts_with(r.path, '/storage/v1/')) as storage,
         countif(starts_with(r.path, '/auth/v1/')) as auth,
         countif(starts_with(r.path, '/realtime/v1/')) as realtime,
         countif(starts_with(r.path, '/functions/v1/')) as functions,
         countif(regexp_contains(r.path, r'^/[a-z]+/v1/.*/(rest|storage|auth|realtime|functions)/v1/')) as two_prefixes,
         countif(r.host <> t.project || '.cannery.dev' or not starts_with(r.url, 'https://' || r.host || r.path)) as bad_urls
       from \`cloudflare.logs.prod\` t cross join unnest(t.metadata) as m cross join unnest(m.request) as r`,
    );
    expect(counts?.n).toBe(BigInt(EDGE_EVENTS));
    for (const prefix of ['rest', 'storage', 'auth', 'realtime', 'functions', 'two_prefixes']) {
      expect(counts?.[prefix] as bigint, prefix).toBeGreaterThan(0n);
    }
    expect(counts?.bad_urls).toBe(0n);
  });

  it('fills request headers, cf and response of every edge event', async () => {
    const [counts] = await bigQueryRows(
      connection,
      `select count(*) as n,
         countif(regexp_contains(h.x_real_ip, r'^\\d+\\.\\d+\\.\\d+\\.\\d+$')) as ipv4,
         countif(strpos(h.x_real_ip, ':') > 0) as ipv6,
         countif(r.method is null or h.user_agent is null or c.country is null or s.status_code is null or s.origin_time is null) as missing
       from \`cloudflare.logs.prod\` t cross join unnest(t.metadata) as m cross join unnest(m.request) as r
       cross join unnest(m.response) as s cross join unnest(r.headers) as h cross join unnest(r.cf) as c`,
    );
    expect(counts?.n).toBe(BigInt(EDGE_EVENTS));
    expect(counts?.ipv4 as bigint).toBeGreaterThan(0n);
    expect(counts?.ipv6 as bigint).toBeGreaterThan(0n);
    expect(counts?.missing).toBe(0n);
  });

  it('writes messages with IPs and emails, for redaction to find', async () => {
    const [edge] = await rows(
      connection,
      `SELECT count(*) FILTER (WHERE regexp_matches(event_message, '\\d+\\.\\d+\\.\\d+\\.\\d+')) AS ips,
              count(*) FILTER (WHERE regexp_matches(event_message, '[a-z.]+@[a-z.]+')) AS emails
       FROM "cloudflare.logs.prod"`,
    );
    expect(edge?.ips as bigint).toBeGreaterThan(0n);
    expect(edge?.emails as bigint).toBeGreaterThan(0n);
    const [auth] = await rows(connection, `SELECT count(*) AS n FROM "gotrue.logs.prod" WHERE regexp_matches(event_message, '@example')`);
    expect(auth?.n as bigint).toBeGreaterThan(0n);
  });

  it('fills the metadata fields the shipped SQL reads, per source', async () => {
    const severities = await bigQueryRows(
      connection,
      `select distinct p.error_severity as s from \`postgres.logs\` t cross join unnest(t.metadata) as m
       cross join unnest(m.parsed) as p order by s`,
    );
    expect(severities.map((row) => row.s)).toEqual(expect.arrayContaining(['ERROR', 'LOG', 'WARNING', 'FATAL']));
    const [auth] = await bigQueryRows(
      connection,
      // Background lines (no request) have no status, path or method.
      `select countif(m.level is null or m.msg is null or (m.status is not null and (m.path is null or m.method is null))) as missing,
              count(distinct m.level) as levels
       from \`gotrue.logs.prod\` t cross join unnest(t.metadata) as m`,
    );
    expect(auth).toEqual({ missing: 0n, levels: 3n });
    for (const source of ['deno-relay-logs', 'deno-subhosting-events']) {
      const result = await bigQueryRows(
        connection,
        `select distinct m.project_ref from \`${source}\` t cross join unnest(t.metadata) as m
         where m.function_id is not null and m.execution_id is not null and t.project is null`,
      );
      expect(result.map((row) => row.project_ref).sort()).toEqual([...DEMO_PROJECTS].sort());
    }
    for (const source of ['realtime.logs.prod', 'storage.logs.prod.2']) {
      const result = await bigQueryRows(
        connection,
        `select distinct m.project from \`${source}\` t cross join unnest(t.metadata) as m where m.level is not null`,
      );
      expect(result.map((row) => row.project).sort()).toEqual([...DEMO_PROJECTS].sort());
    }
    for (const source of ['postgres.logs', 'gotrue.logs.prod', 'postgREST.logs.prod', 'pgbouncer.logs.prod']) {
      const result = await rows(connection, `SELECT DISTINCT project FROM "${source}" ORDER BY project`);
      expect(result.map((row) => row.project)).toEqual([...DEMO_PROJECTS].sort());
    }
  });

  it('is a pure function of now and the count', async () => {
    const other = await connectDuckDB();
    try {
      await seedDemoData(other.connection, { edgeEvents: 2_000, now: NOW });
      const again = await connectDuckDB();
      try {
        await seedDemoData(again.connection, { edgeEvents: 2_000, now: NOW });
        const digest = 'SELECT sum(hash(id, "timestamp", event_message, metadata)) AS h FROM "cloudflare.logs.prod"';
        expect(await rows(other.connection, digest)).toEqual(await rows(again.connection, digest));
      } finally {
        again.close();
      }
    } finally {
      other.close();
    }
  });
});

describe('seedDemoData into imported tables', () => {
  it('fills a table an import made store a record as a list, converting its rows to that layout', async () => {
    const { connection, close } = await connectDuckDB();
    try {
      const event = { id: 'imported', timestamp: 0, event_message: 'x', metadata: { request: [{ path: '/a' }, { path: '/b' }] } };
      await importNdjson(connection, 'cloudflare.logs.prod', Readable.from([JSON.stringify(event)]));
      await seedDemoData(connection, { edgeEvents: 1_000, now: NOW });
      const result = await bigQueryRows(
        connection,
        `select count(*) as n, count(distinct t.id) as events, countif(starts_with(r.path, '/rest/v1/')) > 0 as seeded, count(h.user_agent) as agents
         from \`cloudflare.logs.prod\` t cross join unnest(t.metadata) as m cross join unnest(m.request) as r left join unnest(r.headers) as h on true`,
      );
      // Two requests for the imported event, one for each seeded one, whose headers came through the conversion.
      expect(result).toEqual([{ n: 1_002n, events: 1_001n, seeded: true, agents: 1_000n }]);
    } finally {
      close();
    }
  });

  it('fills tables an import has widened, leaving the extra fields NULL', async () => {
    const { connection, close } = await connectDuckDB();
    try {
      const event = { id: 'imported', timestamp: 0, event_message: 'x', metadata: { request: { path: '/x', tenant: 't1' }, response: { status_code: 'n/a' } } };
      await importNdjson(connection, 'cloudflare.logs.prod', Readable.from([JSON.stringify(event)]));
      await seedDemoData(connection, { edgeEvents: 1_000, now: NOW });
      const result = await bigQueryRows(
        connection,
        `select count(*) as n, count(r.tenant) as tenants, count(distinct s.status_code) > 1 as statuses from \`cloudflare.logs.prod\` t
         cross join unnest(t.metadata) as m cross join unnest(m.request) as r cross join unnest(m.response) as s`,
      );
      expect(result).toEqual([{ n: 1_001n, tenants: 1n, statuses: true }]);
    } finally {
      close();
    }
  });

  it('writes a live span: the counts given, every event in (since, now], the projects in turn from the rotation given', async () => {
    const { connection, close } = await connectDuckDB();
    try {
      const since = new Date(NOW.getTime() - 5_000);
      const counts = { 'cloudflare.logs.prod': 3, 'postgres.logs': 1 };
      const result = await seedDemoData(connection, { edgeEvents: 3, counts, since, now: NOW, rotation: 2 });
      expect(result.total).toBe(4);
      expect(await rows(connection, 'SELECT count(*) AS n FROM "deno-relay-logs"')).toEqual([{ n: 0n }]);
      const edge = await rows(connection, `SELECT project, epoch_us("timestamp") AS at FROM "cloudflare.logs.prod" ORDER BY "timestamp" DESC`);
      // Rows 0..2 of the tail, rotation 2: projects [0, 0, 0, 1, 2, 3] at 2, 3 and 4.
      expect(edge.map((row) => row.project)).toEqual([DEMO_PROJECTS[0], DEMO_PROJECTS[1], DEMO_PROJECTS[2]]);
      for (const row of edge) {
        expect(row.at as bigint).toBeGreaterThan(BigInt(since.getTime()) * 1000n);
        expect(row.at as bigint).toBeLessThanOrEqual(NOW_US);
      }
    } finally {
      close();
    }
  });
});
