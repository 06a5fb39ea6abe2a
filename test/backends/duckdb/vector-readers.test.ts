/**
 * wireReader against the library's own path on a real DuckDB: for every row of vectors of nested
 * records, lists (NULL, empty, of records, of lists, with a NULL element), maps, fixed arrays,
 * strings short enough to sit in DuckDB's entry and longer (ASCII and not) and scalars, the value
 * read from the vectors is the one toWireValue gives for getItem, or the same refusal.
 */
import type { DuckDBVector } from '#duckdb-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toWireValue } from '../../../src/backends/duckdb/values.js';
import { wireReader } from '../../../src/backends/duckdb/vector-readers.js';
import { connectDuckDB } from '../../support/duckdb.js';

/** What the library's path gives: the value, or the refusal's message. */
function throughGetItem(vector: DuckDBVector, row: number): unknown {
  try {
    return toWireValue(vector.getItem(row), vector.type, toWireValue);
  } catch (error) {
    return { refused: (error as Error).message };
  }
}

function throughReader(read: (row: number) => unknown, row: number): unknown {
  try {
    return read(row);
  } catch (error) {
    return { refused: (error as Error).message };
  }
}

const COLUMNS = [
  // A record with lists of records, a NULL record, a record holding NULL fields.
  `case i % 4
     when 0 then {'a': i, 'tags': ['x', 'y'], 'request': [{'url': 'u' || i, 'headers': {'h': i::varchar}}], 'empty': []::varchar[]}
     when 1 then NULL
     when 2 then {'a': NULL, 'tags': NULL, 'request': [], 'empty': NULL}
     else {'a': -i, 'tags': [], 'request': [{'url': NULL, 'headers': NULL}, {'url': 'v', 'headers': {'h': NULL}}], 'empty': []} end as rec`,
  // Lists: NULL, empty, with a NULL element (refused), of lists with a NULL inner list.
  `case i % 5 when 0 then NULL when 1 then []::bigint[] when 2 then [1, NULL, 3] when 3 then [i, i * 2] else [i] end as list`,
  `case i % 3 when 0 then [[1, 2], NULL, []] when 1 then NULL else [[i]] end as lists`,
  `[{'t': TIMESTAMPTZ '2024-01-02 03:04:05.678+00' + to_seconds(i), 'd': 1.25::decimal(10, 2), 'b': 'ab'::blob}] as typed`,
  `map {'k': i} as m`,
  `[i, i + 1]::bigint[2] as fixed`,
  `case when i % 2 = 0 then 'text ' || i end as s`,
  // Strings inside DuckDB's entry (up to 12 bytes) and just past it, ASCII and not, control characters, JSON.
  `case i % 9
     when 0 then ''
     when 1 then 'abcdefghijkl'
     when 2 then 'abcdefghijklm'
     when 3 then 'é' || i
     when 4 then '😀x'
     when 5 then NULL
     when 6 then chr(0) || chr(9) || chr(127) || '"\\'
     when 7 then repeat('z', i % 14)
     else 'abcdefghijké' end as short`,
  `('{"a":' || i || '}')::json as j`,
];

describe('wireReader', () => {
  let db: Awaited<ReturnType<typeof connectDuckDB>>;
  beforeAll(async () => {
    db = await connectDuckDB();
  });
  afterAll(() => db.close());

  it('reads every row as toWireValue of getItem does, refusals included', async () => {
    const result = await db.connection.stream(`select ${COLUMNS.join(', ')} from range(3000) t(i)`);
    let rows = 0;
    let refusals = 0;
    for (;;) {
      const chunk = await result.fetchChunk();
      if (!chunk || chunk.rowCount === 0) break;
      for (let column = 0; column < chunk.columnCount; column++) {
        const vector = chunk.getColumnVector(column);
        const read = wireReader(vector);
        for (let row = 0; row < chunk.rowCount; row++) {
          const expected = throughGetItem(vector, row);
          if (typeof expected === 'object' && expected !== null && 'refused' in expected) refusals += 1;
          expect(throughReader(read, row)).toStrictEqual(expected);
        }
      }
      rows += chunk.rowCount;
    }
    expect(rows).toBe(3000);
    // The [1, NULL, 3] rows: one in five.
    expect(refusals).toBe(600);
  });
});
