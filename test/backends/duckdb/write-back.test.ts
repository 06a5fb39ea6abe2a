import { describe, expect, it } from 'vitest';
import { writeBackRows, writeBackType, writeBackValue } from '../../../src/backends/duckdb/write-back.js';
import type { WriteBack } from '../../../src/sql/parse/tree.js';

/** metadata stored as one STRUCT whose `request` is one STRUCT too; `tags` a plain list. */
const METADATA: WriteBack = { list: true, fields: { request: { list: true, fields: {} } } };

describe('writing stored records back into BigQuery lists', () => {
  it('makes each stored record a one-element list, at every depth, and leaves the rest', () => {
    const stored = { host: 'db', request: { path: '/x' }, tags: ['a', 'b'] };
    expect(writeBackValue(stored, METADATA)).toEqual([{ host: 'db', request: [{ path: '/x' }], tags: ['a', 'b'] }]);
    // The stored value itself is not changed (a cache may hold it).
    expect(stored.request).toEqual({ path: '/x' });
  });

  it('writes no record (NULL) as an empty list, as BigQuery writes an empty repeated record', () => {
    expect(writeBackValue(null, METADATA)).toEqual([]);
    expect(writeBackValue({ host: 'db', request: null }, METADATA)).toEqual([{ host: 'db', request: [] }]);
  });

  it('types the column as BigQuery does: repeated records', () => {
    const type = writeBackType(
      { kind: 'struct', fields: [{ name: 'host', type: { kind: 'scalar', name: 'STRING' } }, { name: 'request', type: { kind: 'struct', fields: [{ name: 'path', type: { kind: 'scalar', name: 'STRING' } }] } }] },
      METADATA,
    );
    expect(type).toEqual({
      kind: 'array',
      element: { kind: 'struct', fields: [{ name: 'host', type: { kind: 'scalar', name: 'STRING' } }, { name: 'request', type: { kind: 'array', element: { kind: 'struct', fields: [{ name: 'path', type: { kind: 'scalar', name: 'STRING' } }] } } }] },
    });
  });

  it('writes back only the columns named, in rows read outside the backend', () => {
    expect(writeBackRows([{ id: 'e1', metadata: { request: { path: '/x' } } }], { metadata: METADATA })).toEqual([{ id: 'e1', metadata: [{ request: [{ path: '/x' }] }] }]);
    expect(writeBackRows([{ id: 'e1' }], undefined)).toEqual([{ id: 'e1' }]);
  });
});
