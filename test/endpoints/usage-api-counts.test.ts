/**
 * usage.api-counts on fixture data (spec 2.3, 4.3): per-bucket request counts of the edge log
 * over a window counted back from now, split by request path. The service's clock is fixed at
 * NOW, so every window below is worked out by hand:
 *   minutely: [11:34:56.789Z, ...) by minute      (now - 60 minutes)
 *   hourly:   [11:34:56.789Z, ...) by hour        (now - 1 hour: the same instant)
 *   daily:    [2024-04-24T12:34:56.789Z, ...) by day (now - 7 days)
 * The SQL has no upper bound: requests stamped after now are counted too.
 *
 * Each scenario uses its own host, and `project` (a regex over the URL) picks the scenario.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.js';
import { EDGE, apiRequest, queryPath, type FixtureEvent } from './edge-fixtures.js';

const USAGE_ID = '90ea8432-727f-4399-8617-f3fe240ba64a';
const NOW = new Date('2024-05-01T12:34:56.789Z');

interface Counts {
  rest?: number;
  storage?: number;
  auth?: number;
  realtime?: number;
}

/** An expected result row: the bucket start as a UTC DATETIME, and the counts (0 when not given). */
function bucket(timestamp: string, counts: Counts = {}) {
  return {
    timestamp,
    total_rest_requests: counts.rest ?? 0,
    total_storage_requests: counts.storage ?? 0,
    total_auth_requests: counts.auth ?? 0,
    total_realtime_requests: counts.realtime ?? 0,
  };
}

// Host "winmin": the edges of the minutely/hourly window, and a request after now.
const windowMinutes: FixtureEvent[] = [
  apiRequest('wm-before', '2024-05-01T11:34:56.788999Z', 'winmin', '/rest/v1/before'), // window start - 1us
  apiRequest('wm-start', '2024-05-01T11:34:56.789000Z', 'winmin', '/rest/v1/start'), // window start
  apiRequest('wm-now', '2024-05-01T12:34:56.789Z', 'winmin', '/auth/v1/token'), // now
  apiRequest('wm-future', '2024-05-01T12:40:00Z', 'winmin', '/storage/v1/object/a'), // after now
];

// Host "winday": the edges of the daily window (start 2024-04-24T12:34:56.789Z), and UTC day edges.
const windowDays: FixtureEvent[] = [
  apiRequest('wd-old', '2024-04-20T12:00:00Z', 'winday', '/rest/v1/old'),
  apiRequest('wd-before', '2024-04-24T12:34:56.788999Z', 'winday', '/rest/v1/before'), // window start - 1us
  apiRequest('wd-start', '2024-04-24T12:34:56.789000Z', 'winday', '/rest/v1/start'), // window start
  apiRequest('wd-day-end', '2024-04-28T23:59:59.999999Z', 'winday', '/realtime/v1/websocket'),
  apiRequest('wd-day-start', '2024-04-29T00:00:00Z', 'winday', '/realtime/v1/websocket'),
];

// Host "trunc": truncation to minute, hour and (UTC) day.
const truncation: FixtureEvent[] = [
  apiRequest('t-1', '2024-05-01T11:59:59.999999Z', 'trunc', '/rest/v1/x'),
  apiRequest('t-2', '2024-05-01T12:00:00Z', 'trunc', '/rest/v1/x'),
  apiRequest('t-3', '2024-05-01T12:00:59.999999Z', 'trunc', '/storage/v1/object/x'),
  apiRequest('t-4', '2024-05-01T12:01:00Z', 'trunc', '/auth/v1/user'),
  apiRequest('t-5', '2024-05-01T14:33:07.5+02:00', 'trunc', '/realtime/v1/websocket'), // 12:33:07.5Z
  apiRequest('t-6', '2024-05-01T01:30:00+02:00', 'trunc', '/rest/v1/x'), // 2024-04-30T23:30:00Z
];

// Host "paths": one minute per path rule.
const paths: FixtureEvent[] = [
  apiRequest('p-rest', '2024-05-01T12:01:10Z', 'paths', '/rest/v1/items'),
  apiRequest('p-rest-auth', '2024-05-01T12:02:10Z', 'paths', '/rest/v1/rpc/auth'),
  apiRequest('p-storage', '2024-05-01T12:03:10Z', 'paths', '/storage/v1/object/a'),
  apiRequest('p-realtime', '2024-05-01T12:03:20Z', 'paths', '/realtime/v1/websocket'),
  apiRequest('p-functions', '2024-05-01T12:04:10Z', 'paths', '/functions/v1/hello'),
  apiRequest('p-upper', '2024-05-01T12:05:10Z', 'paths', '/REST/V1/ITEMS'),
  apiRequest('p-restore', '2024-05-01T12:06:10Z', 'paths', '/v1/restore'),
  {
    id: 'p-no-path',
    timestamp: '2024-05-01T12:07:10Z',
    event_message: 'GET (no path)',
    project: 'paths',
    metadata: { request: { url: 'https://paths.cannery.dev/', method: 'GET' } },
  },
  apiRequest('p-graphql', '2024-05-01T12:08:10Z', 'paths', '/graphql/v1'),
  apiRequest('p-rest-2', '2024-05-01T12:08:20Z', 'paths', '/rest/v1/items'),
  // Another host's request in a minute of its own: its bucket must not appear for "paths".
  apiRequest('p-elsewhere', '2024-05-01T12:09:10Z', 'elsewhere', '/rest/v1/items'),
];

// Hosts "abcd", "abc", "xyz": the project regex.
const regexHosts: FixtureEvent[] = [
  apiRequest('r-abcd', '2024-05-01T12:10:00Z', 'abcd', '/rest/v1/items'),
  apiRequest('r-abc', '2024-05-01T12:11:00Z', 'abc', '/rest/v1/items'),
  apiRequest('r-xyz', '2024-05-01T12:12:00Z', 'xyz', '/auth/v1/token'),
];

describe('usage.api-counts', () => {
  let svc: TestService;

  beforeAll(async () => {
    svc = await startTestService({
      clock: () => new Date(NOW),
      fixtures: { [EDGE]: [...windowMinutes, ...windowDays, ...truncation, ...paths, ...regexHosts] },
    });
  });
  afterAll(() => svc?.close());

  const call = (params: Record<string, string>, endpoint = 'usage.api-counts') => svc.call(queryPath(endpoint, params));

  async function rows(interval: string, project: string) {
    const { status, body } = await call({ interval, project });
    expect(status, JSON.stringify(body)).toBe(200);
    return body.result;
  }

  describe('minutely: the last 60 minutes, by minute', () => {
    it('counts a request exactly at the window start and not one a microsecond earlier', async () => {
      // Both fall in minute 11:34; only wm-start is counted.
      expect((await rows('minutely', 'winmin'))[0]).toEqual(bucket('2024-05-01T11:34:00', { rest: 1 }));
    });

    it('counts a request stamped exactly now', async () => {
      expect(await rows('minutely', 'winmin')).toContainEqual(bucket('2024-05-01T12:34:00', { auth: 1 }));
    });

    it('also counts requests stamped after now (the window has no upper bound)', async () => {
      expect(await rows('minutely', 'winmin')).toContainEqual(bucket('2024-05-01T12:40:00', { storage: 1 }));
    });

    it('returns one row per minute with a request, ascending', async () => {
      expect(await rows('minutely', 'winmin')).toEqual([
        bucket('2024-05-01T11:34:00', { rest: 1 }),
        bucket('2024-05-01T12:34:00', { auth: 1 }),
        bucket('2024-05-01T12:40:00', { storage: 1 }),
      ]);
    });

    it('truncates each request to the start of its minute', async () => {
      expect(await rows('minutely', 'trunc')).toEqual([
        bucket('2024-05-01T11:59:00', { rest: 1 }), // t-1
        bucket('2024-05-01T12:00:00', { rest: 1, storage: 1 }), // t-2, t-3 (12:00:59.999999)
        bucket('2024-05-01T12:01:00', { auth: 1 }), // t-4
        bucket('2024-05-01T12:33:00', { realtime: 1 }), // t-5, given as 14:33:07.5+02:00
      ]);
    });

    it('returns [] when no request of the project is in the window', async () => {
      const { status, body } = await call({ interval: 'minutely', project: 'winday' });
      expect(status).toBe(200);
      expect(body).toEqual({ result: [] });
    });
  });

  describe('hourly: the last hour, by hour', () => {
    it('uses the same window start as minutely (now - 1 hour) and buckets by hour', async () => {
      // wm-before (11:34:56.788999) is out; wm-start is in; now and after now are counted.
      expect(await rows('hourly', 'winmin')).toEqual([
        bucket('2024-05-01T11:00:00', { rest: 1 }),
        bucket('2024-05-01T12:00:00', { auth: 1, storage: 1 }),
      ]);
    });

    it('truncates each request to the start of its hour', async () => {
      expect(await rows('hourly', 'trunc')).toEqual([
        bucket('2024-05-01T11:00:00', { rest: 1 }), // t-1
        bucket('2024-05-01T12:00:00', { rest: 1, storage: 1, auth: 1, realtime: 1 }), // t-2 .. t-5
      ]);
    });

    it('sums every minute of the hour into one row', async () => {
      // rest: p-rest, p-rest-auth, p-restore, p-rest-2; the rest once each.
      expect(await rows('hourly', 'paths')).toEqual([bucket('2024-05-01T12:00:00', { rest: 4, storage: 1, auth: 1, realtime: 1 })]);
    });
  });

  describe('daily: the last 7 days, by UTC day', () => {
    it('counts a request exactly 7 days back and not one a microsecond earlier', async () => {
      // wd-before and wd-start share the day 2024-04-24; only wd-start is counted. wd-old is out.
      expect((await rows('daily', 'winday'))[0]).toEqual(bucket('2024-04-24T00:00:00', { rest: 1 }));
    });

    it('splits requests at UTC midnight', async () => {
      expect(await rows('daily', 'winday')).toEqual([
        bucket('2024-04-24T00:00:00', { rest: 1 }),
        bucket('2024-04-28T00:00:00', { realtime: 1 }), // 23:59:59.999999
        bucket('2024-04-29T00:00:00', { realtime: 1 }), // 00:00:00
      ]);
    });

    it('buckets by the UTC day, not the day of the offset the event was written with', async () => {
      // t-6 was written as 2024-05-01T01:30:00+02:00, which is 2024-04-30T23:30:00Z.
      expect(await rows('daily', 'trunc')).toEqual([
        bucket('2024-04-30T00:00:00', { rest: 1 }),
        bucket('2024-05-01T00:00:00', { rest: 2, storage: 1, auth: 1, realtime: 1 }),
      ]);
    });

    it('counts everything from the window start on, including what minutely leaves out', async () => {
      // All four winmin requests fall in the last 7 days, on 2024-05-01.
      expect(await rows('daily', 'winmin')).toEqual([bucket('2024-05-01T00:00:00', { rest: 2, auth: 1, storage: 1 })]);
    });
  });

  describe('path rules', () => {
    async function minute(hhmm: string) {
      const result = await rows('minutely', 'paths');
      return result.find((row: { timestamp: string }) => row.timestamp === `2024-05-01T${hhmm}:00`);
    }

    it('counts a /rest path as REST only', async () => {
      expect(await minute('12:01')).toEqual(bucket('2024-05-01T12:01:00', { rest: 1 }));
    });

    it('counts a path containing both /rest and /auth in both columns', async () => {
      expect(await minute('12:02')).toEqual(bucket('2024-05-01T12:02:00', { rest: 1, auth: 1 }));
    });

    it('counts /storage and /realtime paths in their columns', async () => {
      expect(await minute('12:03')).toEqual(bucket('2024-05-01T12:03:00', { storage: 1, realtime: 1 }));
    });

    it('still returns a bucket whose only requests match no rule, as a row of zeros', async () => {
      expect(await minute('12:04')).toEqual(bucket('2024-05-01T12:04:00'));
    });

    it('matches path substrings case-sensitively: /REST is not /rest', async () => {
      expect(await minute('12:05')).toEqual(bucket('2024-05-01T12:05:00'));
    });

    it('matches "/rest" anywhere in the path, so /v1/restore counts as REST', async () => {
      expect(await minute('12:06')).toEqual(bucket('2024-05-01T12:06:00', { rest: 1 }));
    });

    it('returns a row of zeros for a request that has a matching URL but no path', async () => {
      expect(await minute('12:07')).toEqual(bucket('2024-05-01T12:07:00'));
    });

    it('counts only the matching requests of a mixed bucket', async () => {
      expect(await minute('12:08')).toEqual(bucket('2024-05-01T12:08:00', { rest: 1 }));
    });

    it('has no bucket for a minute whose only request is of another project', async () => {
      expect(await minute('12:09')).toBeUndefined();
    });

    it('returns every bucket of the project, ascending', async () => {
      expect(await rows('minutely', 'paths')).toEqual([
        bucket('2024-05-01T12:01:00', { rest: 1 }),
        bucket('2024-05-01T12:02:00', { rest: 1, auth: 1 }),
        bucket('2024-05-01T12:03:00', { storage: 1, realtime: 1 }),
        bucket('2024-05-01T12:04:00'),
        bucket('2024-05-01T12:05:00'),
        bucket('2024-05-01T12:06:00', { rest: 1 }),
        bucket('2024-05-01T12:07:00'),
        bucket('2024-05-01T12:08:00', { rest: 1 }),
      ]);
    });
  });

  describe('project is an unanchored RE2 regex over the request URL', () => {
    const abcd = bucket('2024-05-01T12:10:00', { rest: 1 });
    const abc = bucket('2024-05-01T12:11:00', { rest: 1 });
    const xyz = bucket('2024-05-01T12:12:00', { auth: 1 });

    it('selects the requests of one host', async () => {
      expect(await rows('minutely', 'abcd')).toEqual([abcd]);
    });

    it('matches anywhere in the URL: "abc" also matches the URLs of abcd', async () => {
      expect(await rows('minutely', 'abc')).toEqual([abcd, abc]);
    });

    it('can be anchored: ^https://abc\\. matches abc only', async () => {
      expect(await rows('minutely', '^https://abc\\.')).toEqual([abc]);
    });

    it('can alternate: abc|xyz matches abc, abcd and xyz', async () => {
      expect(await rows('minutely', 'abc|xyz')).toEqual([abcd, abc, xyz]);
    });

    it('takes RE2 syntax such as (?P<name>...) and (?i)', async () => {
      expect(await rows('minutely', '(?P<host>abcd)')).toEqual([abcd]);
      expect(await rows('minutely', '(?i)^HTTPS://ABC\\.')).toEqual([abc]);
    });

    it('returns [] when no URL matches', async () => {
      expect(await rows('minutely', 'no-such-host')).toEqual([]);
    });

    // re2js accepts (?<name>...), DuckDB's RE2 does not: the check refuses it up front, not as a 502.
    it('refuses (?<name>...) groups as invalid_parameter, pointing at (?P<name>...)', async () => {
      const { status, body } = await call({ interval: 'minutely', project: '(?<host>abcd)' });
      expect(status).toBe(400);
      expect(body.error).toMatchObject({ code: 'invalid_parameter', param: 'project' });
      expect(body.error.message).toContain('(?P<name>...)');
    });

    it('still accepts a literal "(?<" that is escaped or inside a character class', async () => {
      expect((await call({ interval: 'minutely', project: 'abcd\\(?<' })).status).toBe(200);
      expect((await call({ interval: 'minutely', project: 'abcd[(?<]?' })).status).toBe(200);
    });
  });

  describe('wire format', () => {
    it('sends counts as JSON numbers and the bucket as a DATETIME string', async () => {
      const [row] = await rows('hourly', 'paths');
      expect(typeof row.timestamp).toBe('string');
      for (const column of ['total_rest_requests', 'total_storage_requests', 'total_auth_requests', 'total_realtime_requests']) {
        expect(typeof row[column]).toBe('number');
      }
    });

    it('has exactly the columns timestamp and the four totals', async () => {
      const [row] = await rows('hourly', 'paths');
      expect(Object.keys(row).sort()).toEqual([
        'timestamp',
        'total_auth_requests',
        'total_realtime_requests',
        'total_rest_requests',
        'total_storage_requests',
      ]);
    });
  });

  describe('calling', () => {
    it('by UUID and by name gives identical bodies', async () => {
      const byName = await call({ interval: 'minutely', project: 'trunc' });
      const byId = await call({ interval: 'minutely', project: 'trunc' }, USAGE_ID);
      expect(byId.status).toBe(200);
      expect(byId.body).toEqual(byName.body);
      expect(byId.body.result).toHaveLength(4);
    });
  });

  describe('invalid parameters', () => {
    it('interval=weekly is 400 invalid_parameter listing the allowed values', async () => {
      const { status, body } = await call({ interval: 'weekly', project: 'trunc' });
      expect(status).toBe(400);
      expect(body.error).toMatchObject({ code: 'invalid_parameter', param: 'interval' });
      for (const allowed of ['minutely', 'hourly', 'daily']) expect(body.error.message).toContain(allowed);
    });

    it.each(['(', '[a-', '(?=abc)', '(a)\\1'])('project=%s (not RE2) is 400 invalid_parameter, not 502', async (project) => {
      const { status, body } = await call({ interval: 'minutely', project });
      expect(status).toBe(400);
      expect(body.error).toMatchObject({ code: 'invalid_parameter', param: 'project' });
    });

    it('a missing interval is 400 missing_parameter', async () => {
      const { status, body } = await call({ project: 'trunc' });
      expect(status).toBe(400);
      expect(body.error).toMatchObject({ code: 'missing_parameter', param: 'interval' });
    });

    it('a missing project is 400 missing_parameter', async () => {
      const { status, body } = await call({ interval: 'minutely' });
      expect(status).toBe(400);
      expect(body.error).toMatchObject({ code: 'missing_parameter', param: 'project' });
    });
  });
});
