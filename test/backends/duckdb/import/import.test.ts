import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { DataError } from '../../../../src/backends/duckdb/data-error.js';
import { importNdjson } from '../../../../src/backends/duckdb/import/import.js';
import { readSourceTable } from '../../../../src/backends/duckdb/source-tables.js';
import { duckdbType } from '../../../../src/backends/duckdb/column-types.js';
import { bigQueryRows, connectDuckDB, rows } from '../../../support/duckdb.js';

const ndjson = (...events: unknown[]): string => events.map((event) => JSON.stringify(event)).join('\n');

async function* chunks(...parts: (string | Buffer)[]): AsyncGenerator<string | Buffer> {
  for (const part of parts) yield part;
}

async function metadataType(connection: Parameters<typeof importNdjson>[0], source: string): Promise<string | undefined> {
  const table = await readSourceTable(connection, source);
  return table && duckdbType(table.metadata);
}

describe('importNdjson', () => {
  it('creates the table, stores one object as a STRUCT and an array of several as a list, and reads both as arrays', async () => {
    const { connection, close } = await connectDuckDB();
    try {
      const input = ndjson({
        id: 'e1',
        timestamp: '2024-01-01T10:00:00Z',
        event_message: 'GET /rest/v1/todos',
        project: 'p1',
        metadata: { request: { path: '/rest/v1/todos', headers: { x_real_ip: '10.0.0.1' } }, tags: ['a', 'b'], hops: [{ at: 1 }, { at: 2 }] },
      });
      expect((await importNdjson(connection, 'custom.logs', chunks(input))).rows).toBe(1);
      expect(await metadataType(connection, 'custom.logs')).toBe(
        'STRUCT("request" STRUCT("path" VARCHAR, "headers" STRUCT("x_real_ip" VARCHAR)), "tags" VARCHAR[], "hops" STRUCT("at" BIGINT)[])',
      );
      const [stored] = await rows(connection, 'SELECT metadata FROM "custom.logs"');
      expect(stored?.metadata).toEqual({ request: { path: '/rest/v1/todos', headers: { x_real_ip: '10.0.0.1' } }, tags: ['a', 'b'], hops: [{ at: 1n }, { at: 2n }] });
      const [row] = await bigQueryRows(connection, 'select id, project, event_message, metadata from `custom.logs`');
      expect(row).toEqual({
        id: 'e1',
        project: 'p1',
        event_message: 'GET /rest/v1/todos',
        metadata: [{ request: [{ path: '/rest/v1/todos', headers: [{ x_real_ip: '10.0.0.1' }] }], tags: ['a', 'b'], hops: [{ at: 1n }, { at: 2n }] }],
      });
    } finally {
      close();
    }
  });

  it('gives a new built-in source table its declared fields too, so the shipped SQL can read it', async () => {
    const { connection, close } = await connectDuckDB();
    try {
      const input = ndjson({
        id: 'e1',
        timestamp: 1704103200000000,
        event_message: 'GET',
        project: 'p1',
        metadata: [{ request: [{ path: '/auth/v1/token', brand_new: true }] }],
      });
      await importNdjson(connection, 'cloudflare.logs.prod', chunks(input));
      const result = await bigQueryRows(
        connection,
        `select r.path, r.brand_new, r.method, s.status_code from \`cloudflare.logs.prod\` t
         cross join unnest(t.metadata) as m cross join unnest(m.request) as r
         left join unnest(m.response) as s on true`,
      );
      expect(result).toEqual([{ path: '/auth/v1/token', brand_new: true, method: null, status_code: null }]);
    } finally {
      close();
    }
  });

  it('stores a record as a list once a value holds several objects, converting the rows stored before', async () => {
    const { connection, close } = await connectDuckDB();
    try {
      await importNdjson(
        connection,
        'grow',
        chunks(
          ndjson(
            { id: '1', timestamp: 0, event_message: 'a', metadata: { req: { path: '/a', hdr: { ua: 'x' } }, tag: { k: 'v' } } },
            { id: '2', timestamp: 0, event_message: 'b', metadata: { req: [], tag: [{ k: 'w' }] } },
          ),
        ),
      );
      // An empty array reads as NULL, which a STRUCT holds as well: both stay STRUCTs.
      expect(await metadataType(connection, 'grow')).toBe('STRUCT("req" STRUCT("path" VARCHAR, "hdr" STRUCT("ua" VARCHAR)), "tag" STRUCT("k" VARCHAR))');
      await importNdjson(
        connection,
        'grow',
        chunks(ndjson({ id: '3', timestamp: 0, event_message: 'c', metadata: { req: [{ path: '/c' }, { path: '/d', hdr: { ua: 'y' } }] } })),
      );
      // Everything under a list is a list too.
      expect(await metadataType(connection, 'grow')).toBe('STRUCT("req" STRUCT("path" VARCHAR, "hdr" STRUCT("ua" VARCHAR)[])[], "tag" STRUCT("k" VARCHAR))');
      expect(await bigQueryRows(connection, 'select id, metadata from grow order by id')).toEqual([
        { id: '1', metadata: [{ req: [{ path: '/a', hdr: [{ ua: 'x' }] }], tag: [{ k: 'v' }] }] },
        { id: '2', metadata: [{ req: null, tag: [{ k: 'w' }] }] },
        // A stored record's absence is written back as BigQuery's empty repeated record, [].
        { id: '3', metadata: [{ req: [{ path: '/c', hdr: null }, { path: '/d', hdr: [{ ua: 'y' }] }], tag: [] }] },
      ]);
      expect(
        await bigQueryRows(connection, 'select t.id, r.path, h.ua from grow t cross join unnest(t.metadata) as m cross join unnest(m.req) as r left join unnest(r.hdr) as h on true order by t.id, r.path'),
      ).toEqual([
        { id: '1', path: '/a', ua: 'x' },
        { id: '3', path: '/c', ua: null },
        { id: '3', path: '/d', ua: 'y' },
      ]);
    } finally {
      close();
    }
  });

  it('stores metadata as a list when an event holds no object, a null one or several', async () => {
    for (const [metadata, stored] of [
      [[], []],
      [[null], [null]],
      [[{ a: 1 }, { a: 2 }], [{ a: 1n }, { a: 2n }]],
    ] as const) {
      const { connection, close } = await connectDuckDB();
      try {
        await importNdjson(connection, 'lists', chunks(ndjson({ id: '1', timestamp: 0, event_message: 'x', metadata: { a: 3 } }, { id: '2', timestamp: 0, event_message: 'y', metadata })));
        expect(await metadataType(connection, 'lists')).toBe('STRUCT("a" BIGINT)[]');
        expect(await rows(connection, 'SELECT id, metadata FROM lists ORDER BY id')).toEqual([
          { id: '1', metadata: [{ a: 3n }] },
          { id: '2', metadata: stored },
        ]);
      } finally {
        close();
      }
    }
  });

  it('accepts ISO 8601 with Z or an offset, and integer Unix microseconds', async () => {
    const { connection, close } = await connectDuckDB();
    try {
      const input = ndjson(
        { id: 'z', timestamp: '2024-01-01T08:00:00Z', event_message: 'm', metadata: { a: 1 } },
        { id: 'offset', timestamp: '2024-01-01T10:00:00+02:00', event_message: 'm', metadata: { a: 1 } },
        { id: 'micros', timestamp: 1704096000000000, event_message: 'm', metadata: { a: 1 } },
        { id: 'fraction', timestamp: '2024-01-01T03:00:00.123456-05:00', event_message: 'm', metadata: { a: 1 } },
      );
      await importNdjson(connection, 'times', chunks(input));
      const result = await rows(connection, `SELECT id, epoch_us("timestamp") AS us, strftime("timestamp", '%H:%M') AS hm FROM times ORDER BY id`);
      expect(result).toEqual([
        { id: 'fraction', us: 1704096000123456n, hm: '08:00' },
        { id: 'micros', us: 1704096000000000n, hm: '08:00' },
        { id: 'offset', us: 1704096000000000n, hm: '08:00' },
        { id: 'z', us: 1704096000000000n, hm: '08:00' },
      ]);
    } finally {
      close();
    }
  });

  it('widens across lines: new fields at any depth, integer + number -> number, anything + string -> string', async () => {
    const { connection, close } = await connectDuckDB();
    try {
      const input = ndjson(
        { id: '1', timestamp: 0, event_message: 'm', metadata: { n: 1, s: 1, req: { path: '/a' } } },
        { id: '2', timestamp: 0, event_message: 'm', metadata: { n: 1.5, s: true, req: [{ path: '/b', headers: { ua: 'x' } }] } },
        { id: '3', timestamp: 0, event_message: 'm', metadata: { s: 'text', Req: { PATH: '/c' } } },
      );
      expect((await importNdjson(connection, 'wide', chunks(input))).rows).toBe(3);
      expect(await metadataType(connection, 'wide')).toBe('STRUCT("n" DOUBLE, "s" VARCHAR, "req" STRUCT("path" VARCHAR, "headers" STRUCT("ua" VARCHAR)))');
      const result = await bigQueryRows(
        connection,
        `select t.id, m.n, m.s, r.path, h.ua from wide t cross join unnest(t.metadata) as m
         cross join unnest(m.req) as r left join unnest(r.headers) as h on true order by t.id`,
      );
      expect(result).toEqual([
        { id: '1', n: 1, s: '1', path: '/a', ua: null },
        { id: '2', n: 1.5, s: 'true', path: '/b', ua: 'x' },
        { id: '3', n: null, s: 'text', path: '/c', ua: null },
      ]);
    } finally {
      close();
    }
  });

  it('widens across two imports and keeps the rows of the first', async () => {
    const { connection, close } = await connectDuckDB();
    try {
      await importNdjson(connection, 'twice', chunks(ndjson({ id: '1', timestamp: 0, event_message: 'a', metadata: { level: 'info', code: 1 } })));
      await importNdjson(
        connection,
        'twice',
        chunks(ndjson({ id: '2', timestamp: 0, event_message: 'b', metadata: { code: 'E42', req: { path: '/x' } } })),
      );
      expect(await metadataType(connection, 'twice')).toBe('STRUCT("level" VARCHAR, "code" VARCHAR, "req" STRUCT("path" VARCHAR))');
      const result = await bigQueryRows(connection, 'select id, metadata from twice order by id');
      expect(result).toEqual([
        { id: '1', metadata: [{ level: 'info', code: '1', req: [] }] },
        { id: '2', metadata: [{ level: null, code: 'E42', req: [{ path: '/x' }] }] },
      ]);
    } finally {
      close();
    }
  });

  it('reads byte streams split anywhere, CRLF line ends, blank lines and a final line without newline', async () => {
    const { connection, close } = await connectDuckDB();
    try {
      const text = `\uFEFF${ndjson({ id: 'ü', timestamp: 0, event_message: 'héllo → wörld', metadata: { a: 'ß' } })}\r\n\n${ndjson({ id: '2', timestamp: 0, event_message: 'x' })}`;
      const bytes = Buffer.from(text);
      const parts = [bytes.subarray(0, 5), bytes.subarray(5, 45), bytes.subarray(45, 46), bytes.subarray(46)];
      expect((await importNdjson(connection, 'bytes', Readable.from(parts))).rows).toBe(2);
      const result = await bigQueryRows(connection, 'select id, event_message, metadata from bytes order by id');
      expect(result).toEqual([
        { id: '2', event_message: 'x', metadata: [] },
        { id: 'ü', event_message: 'héllo → wörld', metadata: [{ a: 'ß' }] },
      ]);
    } finally {
      close();
    }
  });

  it("loads a source's own top-level columns (identifier) and refuses them elsewhere or mistyped", async () => {
    const { connection, close } = await connectDuckDB();
    try {
      const input = ndjson(
        { id: 'e1', timestamp: 0, event_message: 'GET', project: 'p1', identifier: 'p1-rr-us-east-1-abcde' },
        { id: 'e2', timestamp: 1, event_message: 'GET', project: 'p1' },
      );
      await importNdjson(connection, 'cloudflare.logs.prod', chunks(input));
      expect(await rows(connection, 'SELECT id, identifier FROM "cloudflare.logs.prod" ORDER BY id')).toEqual([
        { id: 'e1', identifier: 'p1-rr-us-east-1-abcde' },
        { id: 'e2', identifier: null },
      ]);
      const cases: [string, string, RegExp][] = [
        ['cloudflare.logs.prod', '{"id": "3", "timestamp": 0, "event_message": "x", "identifier": 7}', /^line 1: identifier must be a string, got 7/],
        ['cloudflare.logs.prod', '{"id": "3", "timestamp": 0, "event_message": "x", "identifier": {"a": 1}}', /^line 1: identifier must be a string, got an object/],
        ['gotrue.logs.prod', '{"id": "3", "timestamp": 0, "event_message": "x", "identifier": "p1"}', /^line 1: unknown top-level field "identifier"; an event of this source has id, timestamp, event_message, project, metadata /],
      ];
      for (const [source, line, message] of cases) {
        const error = await importNdjson(connection, source, chunks(line)).catch((caught: unknown) => caught);
        expect(error).toBeInstanceOf(DataError);
        expect((error as DataError).message).toMatch(message);
      }
      expect(await rows(connection, 'SELECT count(*) AS n FROM "cloudflare.logs.prod"')).toEqual([{ n: 2n }]);
    } finally {
      close();
    }
  });

  it('names the line of a bad event and writes nothing', async () => {
    const { connection, close } = await connectDuckDB();
    try {
      const good = ndjson({ id: '1', timestamp: 0, event_message: 'ok', metadata: { a: 1 } });
      await importNdjson(connection, 'strict', chunks(good));
      const cases: [string, RegExp][] = [
        [`${good}\n\n{"id": "2", "timestamp": 0,`, /^line 3: not valid JSON/],
        [`${good}\n{"id": "2", "timestamp": "2024-01-01T10:00:00", "event_message": "x"}`, /^line 2: timestamp must be .*Z or an offset/],
        [`${good}\n{"id": 2, "timestamp": 0, "event_message": "x"}`, /^line 2: id must be a non-empty string/],
        [`${good}\n{"id": "2", "timestamp": 0, "event_message": "x", "extra": 1}`, /^line 2: unknown top-level field "extra"/],
        [`${good}\n{"id": "2", "timestamp": 0, "event_message": "x", "metadata": {"a": {"b": 1}}}`, /^line 2: metadata\.a is an object .* but an integer elsewhere/],
        [`${good}\n{"id": "2", "timestamp": 0, "event_message": "x", "metadata": {"x": [[1]]}}`, /^line 2: metadata\.x holds arrays of arrays/],
        [`${good}\n{"id": "2", "timestamp": 0, "event_message": "x", "metadata": {"x": 1, "X": 2}}`, /^line 2: .* differ only in case/],
      ];
      for (const [input, message] of cases) {
        const error = await importNdjson(connection, 'strict', chunks(input)).catch((caught: unknown) => caught);
        expect(error).toBeInstanceOf(DataError);
        expect((error as DataError).message).toMatch(message);
        expect((error as DataError).line).toBe(Number(/^line (\d+)/.exec((error as DataError).message)?.[1]));
      }
      expect(await rows(connection, 'SELECT count(*) AS n FROM strict')).toEqual([{ n: 1n }]);
      expect(await metadataType(connection, 'strict')).toBe('STRUCT("a" BIGINT)');
    } finally {
      close();
    }
  });

  it('creates a source without metadata until an event brings a field', async () => {
    const { connection, close } = await connectDuckDB();
    try {
      await importNdjson(connection, 'plain', chunks(ndjson({ id: '1', timestamp: 0, event_message: 'a', metadata: {} })));
      expect((await readSourceTable(connection, 'plain'))?.columns.has('metadata')).toBe(false);
      await importNdjson(connection, 'plain', chunks(ndjson({ id: '2', timestamp: 0, event_message: 'b', metadata: { level: 'info' } })));
      expect(await bigQueryRows(connection, 'select id, project, metadata from plain order by id')).toEqual([
        { id: '1', project: null, metadata: [] },
        { id: '2', project: null, metadata: [{ level: 'info' }] },
      ]);
    } finally {
      close();
    }
  });

  it('keeps a declared timestamp field a timestamp while the text is an instant', async () => {
    const { connection, close } = await connectDuckDB();
    try {
      const sources = [{ name: 'audit', metadata: { at: 'timestamp' as const } }];
      await importNdjson(
        connection,
        'audit',
        chunks(ndjson({ id: '1', timestamp: 0, event_message: 'x', metadata: { at: '2024-01-01T10:00:00+02:00' } })),
        { sources },
      );
      expect(await metadataType(connection, 'audit')).toBe('STRUCT("at" TIMESTAMPTZ)');
      const [row] = await bigQueryRows(connection, `select format_timestamp('%H:%M', m.at) as hm from audit t cross join unnest(t.metadata) as m`);
      expect(row).toEqual({ hm: '08:00' });
    } finally {
      close();
    }
  });
});
