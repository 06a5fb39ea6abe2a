/**
 * logs.all on fixture data (spec 2.2, 4.2): edge log rows of one project, newest first, at most
 * 100, bounded by (iso_timestamp_start, iso_timestamp_end]. Every expectation below is worked
 * out by hand from the fixture.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type Fixtures, type TestService } from '../support/service.js';
import { EDGE, edgeLog, queryPath, type FixtureEvent } from './edge-fixtures.js';

const LOGS_ALL_ID = 'b699a50c-0586-48fa-95e6-6041369c6c05';

/**
 * A row of `project` in each of the eight non-edge sources, each newer than every edge row of
 * the fixture, so that any leak into the final selection would sit at the top of the result.
 * Sources filtered on a metadata field carry the project there (and nowhere else).
 */
function rowsInOtherSources(project: string, timestamp: string): Fixtures {
  const row = (source: string, metadata: object, topLevel = true): FixtureEvent => ({
    id: `${project}-${source}`,
    timestamp,
    event_message: `${source} row of ${project}`,
    ...(topLevel ? { project } : {}),
    metadata,
  });
  return {
    'postgres.logs': [row('postgres.logs', { parsed: { error_severity: 'LOG' } })],
    'deno-relay-logs': [row('deno-relay-logs', { project_ref: project, function_id: 'f1' }, false)],
    'deno-subhosting-events': [row('deno-subhosting-events', { project_ref: project, level: 'info' }, false)],
    'gotrue.logs.prod': [row('gotrue.logs.prod', { level: 'info', path: '/token' })],
    'realtime.logs.prod': [row('realtime.logs.prod', { project, level: 'info' }, false)],
    'storage.logs.prod.2': [row('storage.logs.prod.2', { project, level: 'info' }, false)],
    'postgREST.logs.prod': [row('postgREST.logs.prod', { level: 'info' })],
    'pgbouncer.logs.prod': [row('pgbouncer.logs.prod', { level: 'info' })],
  };
}

function mergeFixtures(...parts: Fixtures[]): Fixtures {
  const merged: Fixtures = {};
  for (const part of parts) {
    for (const [source, events] of Object.entries(part)) merged[source] = [...(merged[source] ?? []), ...events];
  }
  return merged;
}

// Project "iso": two edge rows; neighbours "iso-other" and "isox" (a superstring of the name);
// rows of "iso" in all eight other sources at 09:45, newer than both edge rows.
const isolation: FixtureEvent[] = [
  edgeLog('iso-edge-1', '2024-05-01T09:00:00Z', 'iso'),
  edgeLog('iso-other-edge', '2024-05-01T09:15:00Z', 'iso-other'),
  edgeLog('isox-edge', '2024-05-01T09:20:00Z', 'isox'),
  edgeLog('iso-edge-2', '2024-05-01T09:30:00Z', 'iso'),
];

// Project "bounds": S = 2024-05-01T10:00:00Z = 1714557600000000 us, E = 11:00:00Z = 1714561200000000 us.
const bounds: FixtureEvent[] = [
  edgeLog('b-before-start', 1714557599999999, 'bounds'), // S - 1us
  edgeLog('b-at-start', '2024-05-01T10:00:00Z', 'bounds'), // S
  edgeLog('b-after-start', 1714557600000001, 'bounds'), // S + 1us
  edgeLog('b-middle', '2024-05-01T10:30:00Z', 'bounds'),
  edgeLog('b-before-end', 1714561199999999, 'bounds'), // E - 1us
  edgeLog('b-at-end', '2024-05-01T11:00:00Z', 'bounds'), // E
  edgeLog('b-after-end', 1714561200000001, 'bounds'), // E + 1us
];
const ALL_BOUNDS_NEWEST_FIRST = ['b-after-end', 'b-at-end', 'b-before-end', 'b-middle', 'b-after-start', 'b-at-start', 'b-before-start'];
const INSIDE_S_E = ['b-at-end', 'b-before-end', 'b-middle', 'b-after-start'];

// Project "frac": sub-second timestamps, written with 3 and 6 fraction digits and one offset.
const fractions: FixtureEvent[] = [
  edgeLog('f-123456', '2024-05-01T10:00:00.123456Z', 'frac'),
  edgeLog('f-250', '2024-05-01T10:00:00.250Z', 'frac'),
  edgeLog('f-500', '2024-05-01T12:00:00.500000+02:00', 'frac'),
  edgeLog('f-750', '2024-05-01T10:00:00.75Z', 'frac'),
];

// Project "many": 150 rows one second apart from 2024-05-02T00:00:00Z (m-000) to 00:02:29Z (m-149),
// imported in a scrambled order (7 is coprime to 150, so i*7 mod 150 visits every i once).
const MANY_BASE_US = 1714608000000000; // 2024-05-02T00:00:00Z
const manyId = (i: number) => `m-${String(i).padStart(3, '0')}`;
const many: FixtureEvent[] = Array.from({ length: 150 }, (_, k) => {
  const i = (k * 7) % 150;
  return edgeLog(manyId(i), MANY_BASE_US + i * 1_000_000, 'many');
});
/** ids m-<from> down to m-<to>, inclusive. */
const manyIdsDown = (from: number, to: number) => Array.from({ length: from - to + 1 }, (_, k) => manyId(from - k));

// Project "meta": nested metadata of every kind.
const richMetadata = {
  request: {
    method: 'POST',
    path: '/rest/v1/items',
    search: null,
    headers: { user_agent: 'curl/8.5.0', x_real_ip: '10.0.0.1' },
    cf: { country: 'NZ' },
  },
  response: { status_code: 201, origin_time: 5_000_000_000, headers: { cf_cache_status: 'MISS' } },
  cached: false,
  retried: true,
  ratio: 0.25,
  tags: ['alpha', 'beta'],
  attempts: [{ n: 1, ok: false }, { n: 2, ok: true, note: 'retried after 503' }],
};
const metadataRows: FixtureEvent[] = [
  edgeLog('meta-1', '2024-05-01T08:00:00Z', 'meta', richMetadata),
  {
    id: 'meta-2',
    timestamp: '2024-05-01T07:00:00Z',
    event_message: 'two metadata records',
    project: 'meta',
    metadata: [{ request: { path: '/first' } }, { request: { path: '/second' } }],
  },
];

describe('logs.all', () => {
  let svc: TestService;

  beforeAll(async () => {
    svc = await startTestService({
      fixtures: mergeFixtures(
        { [EDGE]: [...isolation, ...bounds, ...fractions, ...many, ...metadataRows] },
        rowsInOtherSources('iso', '2024-05-01T09:45:00Z'),
        rowsInOtherSources('only-elsewhere', '2024-05-01T09:45:00Z'),
      ),
    });
  });
  afterAll(() => svc?.close());

  const call = (params: Record<string, string>, endpoint = 'logs.all') => svc.call(queryPath(endpoint, params));

  async function ids(params: Record<string, string>): Promise<string[]> {
    const { status, body } = await call(params);
    expect(status, JSON.stringify(body)).toBe(200);
    return body.result.map((row: { id: string }) => row.id);
  }

  describe('project isolation', () => {
    it('returns only edge rows of the given project, newest first', async () => {
      expect(await ids({ project: 'iso' })).toEqual(['iso-edge-2', 'iso-edge-1']);
    });

    it('never returns rows of the eight other sources, even of the same project', async () => {
      // rowsInOtherSources('iso') rows are the newest of "iso" and would come first.
      const found = await ids({ project: 'iso' });
      expect(found.filter((id) => !id.startsWith('iso-edge-'))).toEqual([]);
    });

    it('returns nothing for a project that has rows only in the other sources', async () => {
      expect(await ids({ project: 'only-elsewhere' })).toEqual([]);
    });

    it('matches the project exactly: not as a prefix, a LIKE pattern or a regex', async () => {
      expect(await ids({ project: 'isox' })).toEqual(['isox-edge']);
      expect(await ids({ project: 'is' })).toEqual([]);
      expect(await ids({ project: 'iso%' })).toEqual([]);
      expect(await ids({ project: 'iso.*' })).toEqual([]);
    });

    it('binds the project as a value, so quotes in it match nothing', async () => {
      expect(await ids({ project: "iso' or '1'='1" })).toEqual([]);
    });

    it('returns [] for an unknown project', async () => {
      const { status, body } = await call({ project: 'no-such-project' });
      expect(status).toBe(200);
      expect(body).toEqual({ result: [] });
    });
  });

  describe('time bounds', () => {
    it('excludes a row exactly at iso_timestamp_start and includes one exactly at iso_timestamp_end', async () => {
      expect(await ids({ project: 'bounds', iso_timestamp_start: '2024-05-01T10:00:00Z', iso_timestamp_end: '2024-05-01T11:00:00Z' })).toEqual(
        INSIDE_S_E,
      );
    });

    it('includes rows one microsecond inside each bound and excludes rows one microsecond outside', async () => {
      const found = await ids({ project: 'bounds', iso_timestamp_start: '2024-05-01T10:00:00Z', iso_timestamp_end: '2024-05-01T11:00:00Z' });
      expect(found).toContain('b-after-start');
      expect(found).toContain('b-before-end');
      expect(found).not.toContain('b-before-start');
      expect(found).not.toContain('b-after-end');
    });

    it.each([
      ['Z', '2024-05-01T10:00:00Z', '2024-05-01T11:00:00Z'],
      ['+00:00', '2024-05-01T10:00:00+00:00', '2024-05-01T11:00:00+00:00'],
      ['+02:00', '2024-05-01T12:00:00+02:00', '2024-05-01T13:00:00+02:00'],
      ['-05:30', '2024-05-01T04:30:00-05:30', '2024-05-01T05:30:00-05:30'],
      ['+14:00 (a local date one day later)', '2024-05-02T00:00:00+14:00', '2024-05-02T01:00:00+14:00'],
    ])('reads bounds written with %s as the same instants', async (_zone, start, end) => {
      expect(await ids({ project: 'bounds', iso_timestamp_start: start, iso_timestamp_end: end })).toEqual(INSIDE_S_E);
    });

    it('treats empty bounds as no bounds', async () => {
      expect(await ids({ project: 'bounds', iso_timestamp_start: '', iso_timestamp_end: '' })).toEqual(ALL_BOUNDS_NEWEST_FIRST);
    });

    it('returns every row of the project when no bound is given', async () => {
      expect(await ids({ project: 'bounds' })).toEqual(ALL_BOUNDS_NEWEST_FIRST);
    });

    it('applies only the lower bound when only iso_timestamp_start is given', async () => {
      expect(await ids({ project: 'bounds', iso_timestamp_start: '2024-05-01T10:00:00Z' })).toEqual([
        'b-after-end',
        'b-at-end',
        'b-before-end',
        'b-middle',
        'b-after-start',
      ]);
    });

    it('applies only the lower bound when iso_timestamp_end is empty', async () => {
      expect(await ids({ project: 'bounds', iso_timestamp_start: '2024-05-01T10:00:00Z', iso_timestamp_end: '' })).toEqual([
        'b-after-end',
        'b-at-end',
        'b-before-end',
        'b-middle',
        'b-after-start',
      ]);
    });

    it('applies only the upper bound when only iso_timestamp_end is given', async () => {
      expect(await ids({ project: 'bounds', iso_timestamp_end: '2024-05-01T11:00:00Z' })).toEqual([
        'b-at-end',
        'b-before-end',
        'b-middle',
        'b-after-start',
        'b-at-start',
        'b-before-start',
      ]);
    });

    it('returns [] when start is after end', async () => {
      expect(await ids({ project: 'bounds', iso_timestamp_start: '2024-05-01T11:00:00Z', iso_timestamp_end: '2024-05-01T10:00:00Z' })).toEqual([]);
    });

    it('returns [] when start equals end (the interval (t, t] is empty)', async () => {
      expect(await ids({ project: 'bounds', iso_timestamp_start: '2024-05-01T10:30:00Z', iso_timestamp_end: '2024-05-01T10:30:00Z' })).toEqual([]);
    });
  });

  describe('fractional seconds', () => {
    it('compares bounds with millisecond fractions exactly', async () => {
      expect(await ids({ project: 'frac', iso_timestamp_start: '2024-05-01T10:00:00.25Z', iso_timestamp_end: '2024-05-01T10:00:00.500Z' })).toEqual([
        'f-500',
      ]);
    });

    it('compares bounds with microsecond fractions exactly', async () => {
      expect(
        await ids({ project: 'frac', iso_timestamp_start: '2024-05-01T10:00:00.123455Z', iso_timestamp_end: '2024-05-01T10:00:00.123456Z' }),
      ).toEqual(['f-123456']);
      expect(await ids({ project: 'frac', iso_timestamp_start: '2024-05-01T10:00:00.123456Z', iso_timestamp_end: '2024-05-01T10:00:00.2Z' })).toEqual([]);
    });

    it('reads a fractional bound with an offset', async () => {
      // 12:00:00.5+02:00 is 10:00:00.5Z: f-500 sits exactly on the (excluded) start.
      expect(await ids({ project: 'frac', iso_timestamp_start: '2024-05-01T12:00:00.5+02:00' })).toEqual(['f-750']);
    });

    it('orders sub-second rows newest first', async () => {
      expect(await ids({ project: 'frac' })).toEqual(['f-750', 'f-500', 'f-250', 'f-123456']);
    });

    it('returns timestamps as integer Unix microseconds, keeping the microseconds', async () => {
      const { body } = await call({ project: 'frac' });
      const byId = Object.fromEntries(body.result.map((row: { id: string; timestamp: number }) => [row.id, row.timestamp]));
      // 2024-05-01T10:00:00Z is 1714557600 s after the epoch.
      expect(byId).toEqual({
        'f-123456': 1714557600123456,
        'f-250': 1714557600250000,
        'f-500': 1714557600500000,
        'f-750': 1714557600750000,
      });
    });
  });

  describe('the 100-row cap', () => {
    it('returns exactly the 100 newest of 150 rows, newest first', async () => {
      expect(await ids({ project: 'many' })).toEqual(manyIdsDown(149, 50));
    });

    it('applies the cap after the time bounds', async () => {
      // End 00:01:59Z is m-119; the 100 newest at or before it are m-119 .. m-020.
      expect(await ids({ project: 'many', iso_timestamp_end: '2024-05-02T00:01:59Z' })).toEqual(manyIdsDown(119, 20));
    });

    it('returns fewer than 100 rows when fewer match', async () => {
      // Start 00:01:39Z is m-099, excluded: m-149 .. m-100 remain.
      expect(await ids({ project: 'many', iso_timestamp_start: '2024-05-02T00:01:39Z' })).toEqual(manyIdsDown(149, 100));
    });
  });

  describe('rows', () => {
    it('have exactly the columns id, timestamp, event_message, metadata', async () => {
      const { body } = await call({ project: 'meta' });
      expect(body.result).toHaveLength(2);
      for (const row of body.result) expect(Object.keys(row).sort()).toEqual(['event_message', 'id', 'metadata', 'timestamp']);
    });

    it('carry id, timestamp and event_message as stored', async () => {
      const { body } = await call({ project: 'iso' });
      expect(body.result.map(({ metadata: _m, ...rest }: Record<string, unknown>) => rest)).toEqual([
        { id: 'iso-edge-2', timestamp: 1714555800000000, event_message: 'edge iso-edge-2' }, // 09:30Z
        { id: 'iso-edge-1', timestamp: 1714554000000000, event_message: 'edge iso-edge-1' }, // 09:00Z
      ]);
    });

    describe('metadata', () => {
      async function metaRow(id: string) {
        const { body } = await call({ project: 'meta' });
        return body.result.find((row: { id: string }) => row.id === id);
      }

      it('is a repeated record: an array holding one record', async () => {
        const row = await metaRow('meta-1');
        expect(Array.isArray(row.metadata)).toBe(true);
        expect(row.metadata).toHaveLength(1);
      });

      it('keeps strings of nested records within records', async () => {
        const [m] = (await metaRow('meta-1')).metadata;
        expect(m.request[0].method).toBe('POST');
        expect(m.request[0].headers).toEqual([expect.objectContaining({ user_agent: 'curl/8.5.0', x_real_ip: '10.0.0.1' })]);
        expect(m.request[0].cf[0].country).toBe('NZ');
        expect(m.response[0].headers[0].cf_cache_status).toBe('MISS');
      });

      it('keeps integers (also beyond 32 bits) and floats as JSON numbers', async () => {
        const [m] = (await metaRow('meta-1')).metadata;
        expect(m.response[0].status_code).toBe(201);
        expect(m.response[0].origin_time).toBe(5_000_000_000);
        expect(m.ratio).toBe(0.25);
      });

      it('keeps booleans', async () => {
        const [m] = (await metaRow('meta-1')).metadata;
        expect(m.cached).toBe(false);
        expect(m.retried).toBe(true);
      });

      it('keeps arrays of several records, with NULL for a field a record lacks', async () => {
        const [m] = (await metaRow('meta-1')).metadata;
        expect(m.attempts).toEqual([
          { n: 1, ok: false, note: null },
          { n: 2, ok: true, note: 'retried after 503' },
        ]);
      });

      it('keeps arrays of scalars', async () => {
        const [m] = (await metaRow('meta-1')).metadata;
        expect(m.tags).toEqual(['alpha', 'beta']);
      });

      it('returns NULL for a field given as null and for a known field never given', async () => {
        const [m] = (await metaRow('meta-1')).metadata;
        expect(m.request[0].search).toBeNull();
        expect(m.request[0].host).toBeNull();
      });

      it('keeps several top-level metadata records in order', async () => {
        const row = await metaRow('meta-2');
        expect(row.metadata.map((record: { request: { path: string }[] }) => record.request[0]!.path)).toEqual(['/first', '/second']);
      });
    });
  });

  describe('calling', () => {
    it('by UUID and by name gives identical bodies', async () => {
      const params = { project: 'bounds', iso_timestamp_start: '2024-05-01T10:00:00Z', iso_timestamp_end: '2024-05-01T11:00:00Z' };
      const byName = await call(params, 'logs.all');
      const byId = await call(params, LOGS_ALL_ID);
      expect(byId.status).toBe(200);
      expect(byId.body).toEqual(byName.body);
      expect(byId.body.result.map((row: { id: string }) => row.id)).toEqual(INSIDE_S_E);
    });
  });

  describe('invalid parameters', () => {
    const invalid = ['2024-05-01', '2024-05-01T10:00:00', '2024-13-01T00:00:00Z', 'yesterday', '2023-02-29T00:00:00Z'];

    describe.each(['iso_timestamp_start', 'iso_timestamp_end'])('%s', (param) => {
      it.each(invalid)('"%s" is 400 invalid_parameter naming the parameter', async (value) => {
        const { status, body } = await call({ project: 'bounds', [param]: value });
        expect(status).toBe(400);
        expect(body.error).toMatchObject({ code: 'invalid_parameter', param });
        expect(body.error.message).toContain(param);
      });
    });

    it('a missing project is 400 missing_parameter', async () => {
      const { status, body } = await call({});
      expect(status).toBe(400);
      expect(body.error).toMatchObject({ code: 'missing_parameter', param: 'project' });
    });

    it('an empty project counts as missing', async () => {
      const { status, body } = await call({ project: '' });
      expect(status).toBe(400);
      expect(body.error).toMatchObject({ code: 'missing_parameter', param: 'project' });
    });
  });
});
