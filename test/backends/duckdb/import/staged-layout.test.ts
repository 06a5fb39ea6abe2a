/**
 * The import stages each batch in the table's own layout for DuckDB's reader: lines already in it
 * as they are, others rewritten. Whatever the form of the input, the batch size, or a record
 * changing layout part way, the table ends up the same.
 */
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { DuckDBConnection } from '#duckdb-api';
import { DataError } from '../../../../src/backends/duckdb/data-error.js';
import { EventNormaliser } from '../../../../src/backends/duckdb/import/event.js';
import { importNdjson, type ImportOptions } from '../../../../src/backends/duckdb/import/import.js';
import { readSourceTable } from '../../../../src/backends/duckdb/source-tables.js';
import { duckdbType } from '../../../../src/backends/duckdb/column-types.js';
import { emptyRecord, recordShapeToValueShape } from '../../../../src/backends/duckdb/value-shape.js';
import { BUILT_IN_SOURCES } from '../../../../src/config/sources.js';
import { seedDemoData } from '../../../../src/demo/seed.js';
import { bigQueryRows, connectDuckDB, rows } from '../../../support/duckdb.js';

const ndjson = (events: readonly unknown[]): string => events.map((event) => JSON.stringify(event)).join('\n');

async function load(events: readonly unknown[] | string, source: string, options: ImportOptions = {}): Promise<{ connection: DuckDBConnection; close: () => void }> {
  const db = await connectDuckDB();
  await importNdjson(db.connection, source, Readable.from([typeof events === 'string' ? events : ndjson(events)]), options);
  return db;
}

/** Every row of a table as JSON text, in id order: two tables compare equal exactly when these do. */
async function contents(connection: DuckDBConnection, table: string): Promise<string[]> {
  const result = await rows(connection, `SELECT to_json(t)::VARCHAR AS row FROM "${table}" AS t ORDER BY id`);
  return result.map((row) => String(row.row));
}

async function metadataType(connection: DuckDBConnection, table: string): Promise<string | undefined> {
  const found = await readSourceTable(connection, table);
  return found && duckdbType(found.metadata);
}

describe('staging in the table layout', () => {
  it('stages a line already in the layout as it is, and rewrites one that is not', () => {
    const edge = BUILT_IN_SOURCES.find((source) => source.name === 'cloudflare.logs.prod')!;
    const normaliser = new EventNormaliser(recordShapeToValueShape(edge.metadata), edge.columns);
    normaliser.startBatch();
    const asIs = '{"id":"a","timestamp":1704103200000000,"event_message":"GET","project":null,"metadata":{"request":{"path":"/x","headers":{"user_agent":"curl"}},"response":null}}';
    expect(normaliser.normalise(asIs, 1)).toEqual({ json: asIs, micros: 1704103200000000 });
    // BigQuery's form (arrays of one object), another case, a timestamp as text in a batch of micros.
    const other = '{"id":"b","timestamp":"2024-01-01T10:00:00Z","event_message":"GET","metadata":[{"Request":[{"path":"/y"}]}]}';
    const staged = normaliser.normalise(other, 2);
    expect(JSON.parse(staged.json)).toEqual({ id: 'b', timestamp: 1704103200000000, event_message: 'GET', metadata: { request: { path: '/y' } } });
  });

  it('rewrites a field in another case on every line, and refuses two cases in one record, once the spelling is remembered', () => {
    const normaliser = new EventNormaliser(emptyRecord());
    normaliser.startBatch();
    const line = (metadata: string) => `{"id":"a","timestamp":1,"event_message":"m","metadata":${metadata}}`;
    expect(normaliser.normalise(line('{"Path":"/a"}'), 1).json).toBe(line('{"Path":"/a"}'));
    for (const number of [2, 3]) expect(JSON.parse(normaliser.normalise(line('{"path":"/b"}'), number).json).metadata).toEqual({ Path: '/b' });
    expect(() => normaliser.normalise(line('{"path":"/c","Path":"/d"}'), 4)).toThrow(/^line 4: metadata\.path and metadata\.Path differ only in case/);
    expect(normaliser.normalise(line('{"Path":"/e"}'), 5).json).toBe(line('{"Path":"/e"}'));
  });

  it('loads the same rows from either form of the events, whatever the batch size', async () => {
    const seeded = await connectDuckDB();
    let objects: string;
    let arrays: string;
    try {
      await seedDemoData(seeded.connection, { edgeEvents: 300, now: new Date('2024-06-01T12:00:00Z') });
      const exported = await rows(
        seeded.connection,
        `SELECT to_json({'id': id, 'timestamp': epoch_us("timestamp"), 'event_message': event_message, 'project': project, 'identifier': identifier, 'metadata': metadata})::VARCHAR AS line
         FROM "cloudflare.logs.prod" ORDER BY id`,
      );
      objects = exported.map((row) => String(row.line)).join('\n');
      // BigQuery's form: every record an array of one object, timestamps as text.
      const bigQuery = await bigQueryRows(seeded.connection, 'select id, format_timestamp("%Y-%m-%dT%H:%M:%E6SZ", timestamp) as timestamp, event_message, project, identifier, metadata from `cloudflare.logs.prod` order by id');
      arrays = bigQuery.map((row) => JSON.stringify(row, (_, value: unknown) => (typeof value === 'bigint' ? Number(value) : value))).join('\n');
    } finally {
      seeded.close();
    }
    const tables: string[][] = [];
    for (const [input, batchBytes] of [
      [objects, undefined],
      [objects, 4096],
      [arrays, undefined],
      [arrays, 4096],
    ] as const) {
      const { connection, close } = await load(input, 'cloudflare.logs.prod', batchBytes === undefined ? {} : { batchBytes });
      try {
        expect(await metadataType(connection, 'cloudflare.logs.prod')).not.toMatch(/\)\[\]/);
        tables.push(await contents(connection, 'cloudflare.logs.prod'));
      } finally {
        close();
      }
    }
    expect(tables[0]).toHaveLength(300);
    for (const table of tables.slice(1)) expect(table).toEqual(tables[0]);
  });

  it('stores a record as a list when it changes layout part way through a batch, or in a later one', async () => {
    const events = [
      { id: '1', timestamp: 1, event_message: 'a', metadata: { req: { path: '/a' }, level: 'info' } },
      { id: '2', timestamp: 2, event_message: 'b', metadata: [{ req: [{ path: '/b' }] }] },
      { id: '3', timestamp: 3, event_message: 'c', metadata: { req: [{ path: '/c' }, { path: '/d' }] } },
      { id: '4', timestamp: 4, event_message: 'd', metadata: { req: { path: '/e' } } },
    ];
    const tables: string[][] = [];
    for (const options of [{}, { batchBytes: 1 }, { batchBytes: 150 }]) {
      const { connection, close } = await load(events, 'flip', options);
      try {
        expect(await metadataType(connection, 'flip')).toBe('STRUCT("req" STRUCT("path" VARCHAR)[], "level" VARCHAR)');
        tables.push(await contents(connection, 'flip'));
      } finally {
        close();
      }
    }
    expect(tables[0]).toEqual([
      '{"id":"1","timestamp":"1970-01-01 00:00:00.000001+00","event_message":"a","project":null,"metadata":{"req":[{"path":"/a"}],"level":"info"}}',
      '{"id":"2","timestamp":"1970-01-01 00:00:00.000002+00","event_message":"b","project":null,"metadata":{"req":[{"path":"/b"}],"level":null}}',
      '{"id":"3","timestamp":"1970-01-01 00:00:00.000003+00","event_message":"c","project":null,"metadata":{"req":[{"path":"/c"},{"path":"/d"}],"level":null}}',
      '{"id":"4","timestamp":"1970-01-01 00:00:00.000004+00","event_message":"d","project":null,"metadata":{"req":[{"path":"/e"}],"level":null}}',
    ]);
    expect(tables[1]).toEqual(tables[0]);
    expect(tables[2]).toEqual(tables[0]);
  });

  it('reads timestamps of either form mixed in one batch and across batches', async () => {
    const events = [
      { id: 'a', timestamp: 1704096000000000, event_message: 'x' },
      { id: 'b', timestamp: '2024-01-01T08:00:00.5Z', event_message: 'x' },
      { id: 'c', timestamp: '2024-01-01 10:00:00+0200', event_message: 'x' },
      { id: 'd', timestamp: '2024-01-01T03:00-05:00', event_message: 'x' },
      { id: 'e', timestamp: 1704096000000001, event_message: 'x' },
    ];
    for (const order of [events, [...events].reverse()]) {
      for (const options of [{}, { batchBytes: 1 }, { batchBytes: 120 }]) {
        const { connection, close } = await load(order, 'times', options);
        try {
          expect(await rows(connection, 'SELECT id, epoch_us("timestamp") AS us FROM times ORDER BY id')).toEqual([
            { id: 'a', us: 1704096000000000n },
            { id: 'b', us: 1704096000500000n },
            { id: 'c', us: 1704096000000000n },
            { id: 'd', us: 1704096000000000n },
            { id: 'e', us: 1704096000000001n },
          ]);
        } finally {
          close();
        }
      }
    }
  });

  it("stores the events in the input's order", async () => {
    const at = (id: string, timestamp: number) => ({ id, timestamp, event_message: 'x' });
    const { connection, close } = await load([at('b', 2), at('d', 4), at('a', 1), at('c', 3)], 'ordered');
    try {
      expect((await rows(connection, 'SELECT id FROM ordered ORDER BY rowid')).map((row) => row.id)).toEqual(['b', 'd', 'a', 'c']);
    } finally {
      close();
    }
  });

  it('keeps an empty array of scalars as an empty list, and leaves out an empty record or an array of nulls', async () => {
    const events = [
      { id: '1', timestamp: 0, event_message: 'x', metadata: { tags: ['a'], req: { path: '/a' } } },
      { id: '2', timestamp: 0, event_message: 'x', metadata: { tags: [], req: [], fresh: [] } },
      { id: '3', timestamp: 0, event_message: 'x', metadata: { tags: [null], req: [null] } },
    ];
    const { connection, close } = await load(events, 'empty');
    try {
      expect(await metadataType(connection, 'empty')).toBe('STRUCT("tags" VARCHAR[], "req" STRUCT("path" VARCHAR))');
      expect(await bigQueryRows(connection, 'select id, array_length(m.tags) as tags, array_length(m.req) as req from empty t cross join unnest(t.metadata) as m order by id')).toEqual([
        // A record stored as one STRUCT has length 1 where it is there (an INTEGER literal).
        { id: '1', tags: 1n, req: 1 },
        // As BigQuery stores an empty array.
        { id: '2', tags: 0n, req: null },
        { id: '3', tags: null, req: null },
      ]);
    } finally {
      close();
    }
  });

  it("names the input line of what DuckDB's reader refuses, in any batch, and writes nothing", async () => {
    const lines = [
      '{"id":"1","timestamp":0,"event_message":"x","metadata":{"a":1}}',
      '{"id":"2","timestamp":0,"event_message":"x","metadata":{"a":2}}',
      '',
      '{"id":"3","timestamp":0,"event_message":"x","metadata":{"a":1,"a":2}}',
      '{"id":"4","timestamp":0,"event_message":"x","metadata":{"a":4}}',
    ].join('\n');
    for (const options of [{}, { batchBytes: 100 }]) {
      const { connection, close } = await connectDuckDB();
      try {
        const error = await importNdjson(connection, 'dup', Readable.from([lines]), options).catch((caught: unknown) => caught);
        expect(error).toBeInstanceOf(DataError);
        expect((error as DataError).message).toMatch(/^line 4: Object \{.*\} has duplicate key "a"/);
        expect((error as DataError).line).toBe(4);
        expect(await readSourceTable(connection, 'dup')).toBeUndefined();
      } finally {
        close();
      }
    }
  });

  it('names the line DuckDB refuses in a batch being inserted before a bad line JS reads after it', async () => {
    const lines = [
      '{"id":"1","timestamp":0,"event_message":"x","metadata":{"a":1}}',
      '{"id":"2","timestamp":0,"event_message":"x","metadata":{"a":1,"a":2}}',
      'not json',
    ];
    // A batch a line: JS reads line 3 while DuckDB inserts line 2's batch, or before it is awaited.
    const { connection, close } = await connectDuckDB();
    try {
      const input = Readable.from(lines.map((line) => `${line}\n`));
      const error = await importNdjson(connection, 'dup', input, { batchBytes: 60 }).catch((caught: unknown) => caught);
      expect((error as DataError).message).toMatch(/^line 2: Object \{.*\} has duplicate key "a"/);
      expect(await readSourceTable(connection, 'dup')).toBeUndefined();
    } finally {
      close();
    }
  });

  it('refuses a number beyond the range of a DOUBLE rather than storing it as something else', async () => {
    const { connection, close } = await connectDuckDB();
    try {
      const error = await importNdjson(connection, 'big', Readable.from(['{"id":"1","timestamp":0,"event_message":"x","metadata":{"n":1e400}}'])).catch((caught: unknown) => caught);
      expect((error as DataError).message).toBe('line 1: metadata.n is a number beyond the range of a DOUBLE');
    } finally {
      close();
    }
  });
});
