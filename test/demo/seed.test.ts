import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DuckDBConnection } from '@duckdb/node-api';
import { sourceNames } from '../../src/config/sources.js';
import { importNdjson } from '../../src/backends/duckdb/import/import.js';
import { progressReporter, renderProgressBar } from '../../src/cli/progress.js';
import { DEMO_PROJECTS, MAIN_DEMO_PROJECT, demoEventCounts, seedDemoData } from '../../src/demo/seed.js';
import { connectDuckDB, rows } from '../support/duckdb.js';

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
    const [counts] = await rows(
      connection,
      `SELECT count(*) AS n,
         count(*) FILTER (WHERE starts_with(r.path, '/rest/v1/')) AS rest,
         count(*) FILTER (WHERE starts_with(r.path, '/storage/v1/')) AS storage,
         count(*) FILTER (WHERE starts_with(r.path, '/auth/v1/')) AS auth,
         count(*) FILTER (WHERE starts_with(r.path, '/realtime/v1/')) AS realtime,
         count(*) FILTER (WHERE starts_with(r.path, '/functions/v1/')) AS functions,
         count(*) FILTER (WHERE regexp_matches(r.path, '^/[a-z]+/v1/.*/(rest|storage|auth|realtime|functions)/v1/')) AS two_prefixes,
         count(*) FILTER (WHERE r.host <> t.project || '.cannery.dev' OR NOT starts_with(r.url, 'https://' || r.host || r.path)) AS bad_urls
       FROM (SELECT t.project, unnest(m.request) AS r FROM (SELECT project, unnest(metadata) AS m FROM "cloudflare.logs.prod") AS t) AS t`,
    );
    expect(counts?.n).toBe(BigInt(EDGE_EVENTS));
    for (const prefix of ['rest', 'storage', 'auth', 'realtime', 'functions', 'two_prefixes']) {
      expect(counts?.[prefix] as bigint, prefix).toBeGreaterThan(0n);
    }
    expect(counts?.bad_urls).toBe(0n);
  });

  it('fills request headers, cf and response of every edge event', async () => {
    // Projection unnest: DuckDB plans chains of lateral unnests as joins, slow at this depth.
    const [counts] = await rows(
      connection,
      `WITH m AS (SELECT unnest(metadata) AS m FROM "cloudflare.logs.prod"),
       r AS (SELECT unnest(m.request) AS r, unnest(m.response) AS s FROM m),
       h AS (SELECT r, s, unnest(r.headers) AS h, unnest(r.cf) AS c FROM r)
       SELECT count(*) AS n,
         count(*) FILTER (WHERE regexp_matches(h.x_real_ip, '^\\d+\\.\\d+\\.\\d+\\.\\d+$')) AS ipv4,
         count(*) FILTER (WHERE contains(h.x_real_ip, ':')) AS ipv6,
         count(*) FILTER (WHERE r.method IS NULL OR h.user_agent IS NULL OR c.country IS NULL OR s.status_code IS NULL OR s.origin_time IS NULL) AS missing
       FROM h`,
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
    const severities = await rows(
      connection,
      `SELECT DISTINCT p.error_severity AS s FROM "postgres.logs" t CROSS JOIN unnest(t.metadata) AS _u_m(m)
       CROSS JOIN unnest(m.parsed) AS _u_p(p) ORDER BY s`,
    );
    expect(severities.map((row) => row.s)).toEqual(expect.arrayContaining(['ERROR', 'LOG', 'WARNING', 'FATAL']));
    const [auth] = await rows(
      connection,
      // Background lines (no request) have no status, path or method.
      `SELECT count(*) FILTER (WHERE m.level IS NULL OR m.msg IS NULL OR (m.status IS NOT NULL AND (m.path IS NULL OR m.method IS NULL))) AS missing,
              count(DISTINCT m.level) AS levels
       FROM "gotrue.logs.prod" t CROSS JOIN unnest(t.metadata) AS _u_m(m)`,
    );
    expect(auth).toEqual({ missing: 0n, levels: 3n });
    for (const source of ['deno-relay-logs', 'deno-subhosting-events']) {
      const result = await rows(
        connection,
        `SELECT DISTINCT m.project_ref FROM "${source}" t CROSS JOIN unnest(t.metadata) AS _u_m(m)
         WHERE m.function_id IS NOT NULL AND m.execution_id IS NOT NULL AND t.project IS NULL`,
      );
      expect(result.map((row) => row.project_ref).sort()).toEqual([...DEMO_PROJECTS].sort());
    }
    for (const source of ['realtime.logs.prod', 'storage.logs.prod.2']) {
      const result = await rows(
        connection,
        `SELECT DISTINCT m.project FROM "${source}" t CROSS JOIN unnest(t.metadata) AS _u_m(m) WHERE m.level IS NOT NULL`,
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
  it('fills tables an import has widened, leaving the extra fields NULL', async () => {
    const { connection, close } = await connectDuckDB();
    try {
      const event = { id: 'imported', timestamp: 0, event_message: 'x', metadata: { request: { path: '/x', tenant: 't1' }, response: { status_code: 'n/a' } } };
      await importNdjson(connection, 'cloudflare.logs.prod', Readable.from([JSON.stringify(event)]));
      await seedDemoData(connection, { edgeEvents: 1_000, now: NOW });
      const result = await rows(
        connection,
        // Projection unnest: DuckDB's lateral unnest joins grow faster than linearly with rows this wide.
        `WITH m AS (SELECT unnest(metadata) AS m FROM "cloudflare.logs.prod"), r AS (SELECT unnest(m.request) AS r, unnest(m.response) AS s FROM m)
         SELECT count(*) AS n, count(r.tenant) AS tenants, count(DISTINCT s.status_code) > 1 AS statuses FROM r`,
      );
      expect(result).toEqual([{ n: 1_001n, tenants: 1n, statuses: true }]);
    } finally {
      close();
    }
  });
});

describe('progress', () => {
  it('renders a bar', () => {
    expect(renderProgressBar(0, 200, 10)).toBe('[----------]   0% 0/200');
    expect(renderProgressBar(50, 200, 10)).toBe('[###-------]  25% 50/200');
    expect(renderProgressBar(1_000_000, 1_000_000, 10)).toBe('[##########] 100% 1,000,000/1,000,000');
  });

  it('draws only on a terminal', () => {
    const written: string[] = [];
    progressReporter('seed', { isTTY: false, write: (text) => written.push(text) })(1, 2);
    expect(written).toEqual([]);
    const report = progressReporter('seed', { isTTY: true, write: (text) => written.push(text) }, 4);
    report(1, 2);
    report(2, 2);
    expect(written).toEqual(['\rseed [##--]  50% 1/2', '\rseed [####] 100% 2/2', '\n']);
  });
});
