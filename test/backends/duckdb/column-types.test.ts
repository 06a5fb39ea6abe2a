import { describe, expect, it } from 'vitest';
import { BUILT_IN_SOURCES } from '../../../src/config/sources.js';
import {
  duckdbType,
  fieldShapeType,
  recordShapeType,
  shapeFromDuckDBType,
  sourceColumns,
} from '../../../src/backends/duckdb/column-types.js';
import { quoteIdentifier } from '../../../src/sql/dialects/duckdb/quote.js';
import { emptyRecord, markRepeated, mergeRecord, recordShapeToValueShape } from '../../../src/backends/duckdb/value-shape.js';
import { connectDuckDB, rows } from '../../support/duckdb.js';

describe('duckdb types', () => {
  it('quotes every identifier and doubles embedded quotes', () => {
    expect(quoteIdentifier('cloudflare.logs.prod')).toBe('"cloudflare.logs.prod"');
    expect(quoteIdentifier('say "hi"')).toBe('"say ""hi"""');
    expect(() => quoteIdentifier('')).toThrow(RangeError);
  });

  it('renders scalars, declared records as STRUCTs and repeated ones as lists of structs', () => {
    expect(fieldShapeType('integer')).toBe('BIGINT');
    expect(fieldShapeType('timestamp')).toBe('TIMESTAMPTZ');
    expect(fieldShapeType('integer[]')).toBe('BIGINT[]');
    expect(fieldShapeType('string[]')).toBe('VARCHAR[]');
    const declared = { request: { path: 'string', headers: { x_real_ip: 'string' } }, status: 'integer' } as const;
    expect(recordShapeType(declared)).toBe('STRUCT("request" STRUCT("path" VARCHAR, "headers" STRUCT("x_real_ip" VARCHAR)), "status" BIGINT)');
    const shape = recordShapeToValueShape(declared);
    const request = shape.fields.get('request')!.shape;
    if (request.kind === 'record') markRepeated(request);
    expect(duckdbType(shape)).toBe('STRUCT("request" STRUCT("path" VARCHAR, "headers" STRUCT("x_real_ip" VARCHAR)[])[], "status" BIGINT)');
  });

  it('reads a STRUCT as one stored record, and a STRUCT inside a list as a type cannery did not write', async () => {
    const { connection, close } = await connectDuckDB();
    try {
      const reader = await connection.runAndReadAll(
        'SELECT NULL::STRUCT(a STRUCT(b VARCHAR), c STRUCT(d STRUCT(e VARCHAR))[]) AS m',
      );
      const shape = shapeFromDuckDBType(reader.columnTypes()[0]!);
      if (shape.kind !== 'record') throw new Error(`not a record: ${shape.kind}`);
      expect(shape.repeated).toBe(false);
      expect(shape.fields.get('a')?.shape).toMatchObject({ kind: 'record', repeated: false });
      const listed = shape.fields.get('c')?.shape;
      expect(listed).toMatchObject({ kind: 'record', repeated: true });
      expect(listed?.kind === 'record' && listed.fields.get('d')?.shape).toEqual({ kind: 'native', description: 'STRUCT("e" VARCHAR)' });
    } finally {
      close();
    }
  });

  it('leaves out records nobody has filled, which DuckDB could not declare', () => {
    const shape = recordShapeToValueShape({ level: 'string' });
    shape.fields.set('empty', { name: 'empty', shape: emptyRecord() });
    expect(duckdbType(shape)).toBe('STRUCT("level" VARCHAR)');
    expect(duckdbType(emptyRecord())).toBeUndefined();
  });

  it('lists the columns of a source table, and DuckDB accepts every built-in one', async () => {
    const { connection, close } = await connectDuckDB();
    try {
      for (const source of BUILT_IN_SOURCES) {
        const columns = sourceColumns(recordShapeToValueShape(source.metadata), source.columns);
        expect(columns.map((column) => column.name)).toEqual(['id', 'timestamp', 'event_message', 'project', ...Object.keys(source.columns ?? {}), 'metadata']);
        const metadata = columns.find((column) => column.name === 'metadata')?.type ?? '';
        await expect(rows(connection, `SELECT NULL::${metadata} AS m`)).resolves.toHaveLength(1);
      }
    } finally {
      close();
    }
  });

  it('merges a repeated record into a STRUCT one: it and every record under it become lists', () => {
    const target = recordShapeToValueShape({ req: { headers: { ua: 'string' } } });
    const incoming = recordShapeToValueShape({ req: { path: 'string' } });
    const request = incoming.fields.get('req')!.shape;
    if (request.kind === 'record') markRepeated(request);
    expect(mergeRecord(target, incoming, 'metadata')).toBe(true);
    expect(duckdbType(target)).toBe('STRUCT("req" STRUCT("headers" STRUCT("ua" VARCHAR)[], "path" VARCHAR)[])');
    expect(mergeRecord(target, recordShapeToValueShape({ req: { path: 'string' } }), 'metadata')).toBe(false);
  });

  it('merges shapes by widening, keeping field order and the first spelling', () => {
    const target = recordShapeToValueShape({ Status: 'integer', msg: 'string' });
    expect(mergeRecord(target, recordShapeToValueShape({ status: 'number', extra: 'boolean' }), 'metadata')).toBe(true);
    expect(duckdbType(target)).toBe('STRUCT("Status" DOUBLE, "msg" VARCHAR, "extra" BOOLEAN)');
    expect(mergeRecord(target, recordShapeToValueShape({ status: 'integer' }), 'metadata')).toBe(false);
    expect(mergeRecord(target, recordShapeToValueShape({ status: 'boolean' }), 'metadata')).toBe(true);
    expect(duckdbType(target)).toBe('STRUCT("Status" VARCHAR, "msg" VARCHAR, "extra" BOOLEAN)');
    expect(() => mergeRecord(target, recordShapeToValueShape({ msg: { text: 'string' } }), 'metadata')).toThrow(
      /metadata\.msg is an object .* but a string elsewhere/,
    );
  });
});
