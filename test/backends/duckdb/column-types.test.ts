import { describe, expect, it } from 'vitest';
import { BUILT_IN_SOURCES } from '../../../src/config/sources.js';
import {
  duckdbType,
  fieldShapeType,
  recordShapeType,
  sourceColumns,
} from '../../../src/backends/duckdb/column-types.js';
import { quoteIdentifier } from '../../../src/sql/dialects/duckdb.js';
import { emptyRecord, mergeRecord, recordShapeToValueShape } from '../../../src/backends/duckdb/value-shape.js';
import { connectDuckDB, rows } from '../../support/duckdb.js';

describe('duckdb types', () => {
  it('quotes every identifier and doubles embedded quotes', () => {
    expect(quoteIdentifier('cloudflare.logs.prod')).toBe('"cloudflare.logs.prod"');
    expect(quoteIdentifier('say "hi"')).toBe('"say ""hi"""');
    expect(() => quoteIdentifier('')).toThrow(RangeError);
  });

  it('renders scalars, and nested records as lists of structs', () => {
    expect(fieldShapeType('integer')).toBe('BIGINT');
    expect(fieldShapeType('timestamp')).toBe('TIMESTAMPTZ');
    expect(fieldShapeType('integer[]')).toBe('BIGINT[]');
    expect(fieldShapeType('string[]')).toBe('VARCHAR[]');
    expect(recordShapeType({ request: { path: 'string', headers: { x_real_ip: 'string' } }, status: 'integer' })).toBe(
      'STRUCT("request" STRUCT("path" VARCHAR, "headers" STRUCT("x_real_ip" VARCHAR)[])[], "status" BIGINT)[]',
    );
  });

  it('leaves out records nobody has filled, which DuckDB could not declare', () => {
    const shape = recordShapeToValueShape({ level: 'string' });
    shape.fields.set('empty', { name: 'empty', shape: emptyRecord() });
    expect(duckdbType(shape)).toBe('STRUCT("level" VARCHAR)[]');
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

  it('merges shapes by widening, keeping field order and the first spelling', () => {
    const target = recordShapeToValueShape({ Status: 'integer', msg: 'string' });
    expect(mergeRecord(target, recordShapeToValueShape({ status: 'number', extra: 'boolean' }), 'metadata')).toBe(true);
    expect(duckdbType(target)).toBe('STRUCT("Status" DOUBLE, "msg" VARCHAR, "extra" BOOLEAN)[]');
    expect(mergeRecord(target, recordShapeToValueShape({ status: 'integer' }), 'metadata')).toBe(false);
    expect(mergeRecord(target, recordShapeToValueShape({ status: 'boolean' }), 'metadata')).toBe(true);
    expect(duckdbType(target)).toBe('STRUCT("Status" VARCHAR, "msg" VARCHAR, "extra" BOOLEAN)[]');
    expect(() => mergeRecord(target, recordShapeToValueShape({ msg: { text: 'string' } }), 'metadata')).toThrow(
      /metadata\.msg is an object .* but a string elsewhere/,
    );
  });
});
