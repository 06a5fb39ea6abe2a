/**
 * BigQuery's REST result form -> the wire format of DESIGN.md. The responses below are written
 * the way BigQuery writes them: every scalar a string, records as {f: [...]}, repeated fields as
 * arrays of {v}, NULL as {v: null}.
 */
import { describe, expect, it } from 'vitest';
import { decodeRows, type SchemaField } from '../../../src/backends/bigquery/values.js';
import { CanneryError } from '../../../src/core/errors.js';

const cell = (v: unknown) => ({ v });
const row = (...values: unknown[]) => ({ f: values.map(cell) });

async function decodeOne(field: SchemaField, value: unknown) {
  return (await decodeRows({ fields: [field] }, [row(value)]))[0]![field.name];
}

describe('scalars', () => {
  it.each([
    ['TIMESTAMP as int64 microseconds', 'TIMESTAMP', '1714557600123456', 1714557600123456],
    ['TIMESTAMP before 1970', 'TIMESTAMP', '-1000000', -1000000],
    ['TIMESTAMP as float seconds', 'TIMESTAMP', '1.714557600123456E9', 1714557600123456],
    ['TIMESTAMP as float seconds, whole', 'TIMESTAMP', '1.7145576E9', 1714557600000000],
    ['TIMESTAMP as float seconds, rounded to the microsecond', 'TIMESTAMP', '1.7145576001234567E9', 1714557600123457],
    ['TIMESTAMP as float seconds, small', 'TIMESTAMP', '0.5', 500000],
    ['DATETIME', 'DATETIME', '2024-05-01T10:00:00', '2024-05-01T10:00:00'],
    ['DATETIME with microseconds', 'DATETIME', '2024-05-01T10:00:00.123456', '2024-05-01T10:00:00.123456'],
    ['DATETIME with milliseconds', 'DATETIME', '2024-05-01T10:00:00.250', '2024-05-01T10:00:00.250000'],
    ['DATETIME with a zero fraction', 'DATETIME', '2024-05-01T10:00:00.000000', '2024-05-01T10:00:00'],
    ['DATETIME with a space', 'DATETIME', '2024-05-01 10:00:00.5', '2024-05-01T10:00:00.500000'],
    ['DATE', 'DATE', '2024-05-01', '2024-05-01'],
    ['TIME', 'TIME', '10:00:00.100000', '10:00:00.100000'],
    ['INT64', 'INTEGER', '42', 42],
    ['INT64 (standard SQL name)', 'INT64', '-7', -7],
    ['FLOAT64', 'FLOAT', '1.5', 1.5],
    ['NUMERIC', 'NUMERIC', '12.25', 12.25],
    // A double would read these as 12345678901234567000 and 1e+38: the exact decimal, as a string.
    ['NUMERIC past a double\'s digits', 'NUMERIC', '12345678901234567890.123456789', '12345678901234567890.123456789'],
    ['BIGNUMERIC past a double\'s digits', 'BIGNUMERIC', '-99999999999999999999999999999999999999.5', '-99999999999999999999999999999999999999.5'],
    ['NUMERIC of nine decimals', 'NUMERIC', '-0.000000001', -0.000000001],
    ['NUMERIC with trailing zeros', 'NUMERIC', '100.500000000', 100.5],
    ['BOOL true', 'BOOLEAN', 'true', true],
    ['BOOL false', 'BOOL', 'false', false],
    ['STRING', 'STRING', 'héllo "x"', 'héllo "x"'],
    ['BYTES stay base64', 'BYTES', 'aGk=', 'aGk='],
    ['JSON stays text', 'JSON', '{"a":1}', '{"a":1}'],
  ])('%s', async (_what, type, value, expected) => {
    expect(await decodeOne({ name: 'x', type }, value)).toEqual(expected);
  });

  it('keeps NULLs of every type', async () => {
    for (const type of ['STRING', 'TIMESTAMP', 'DATETIME', 'INTEGER', 'BOOLEAN', 'RECORD']) {
      expect(await decodeOne({ name: 'x', type, fields: [] }, null)).toBeNull();
    }
  });

  it('keeps a FLOAT64 NaN or infinity the string BigQuery wrote, never a number JSON writes as null', async () => {
    for (const text of ['NaN', 'Infinity', '-Infinity']) {
      expect(await decodeOne({ name: 'x', type: 'FLOAT' }, text)).toBe(text);
      expect(await decodeOne({ name: 'x', type: 'FLOAT64', mode: 'REPEATED' }, [cell(text), cell('1.5')])).toEqual([text, 1.5]);
    }
  });
});

describe('RANGE', () => {
  // BigQuery writes a RANGE as its text, `[start, end)`; the wire has {start, end} of the element's
  // wire values, null for unbounded, as the DuckDB path writes the STRUCT it holds a range in.
  it.each([
    ['DATE', '[2020-01-01, 2020-12-31)', { start: '2020-01-01', end: '2020-12-31' }],
    ['DATE', '[UNBOUNDED, 2020-12-31)', { start: null, end: '2020-12-31' }],
    ['DATETIME', '[2020-01-01 12:00:00, UNBOUNDED)', { start: '2020-01-01T12:00:00', end: null }],
    ['TIMESTAMP', '[1577836800000000, UNBOUNDED)', { start: 1577836800000000, end: null }],
    ['TIMESTAMP', '[1969-12-31 23:59:59.5 UTC, 2020-01-01 00:00:00+00)', { start: -500000, end: 1577836800000000 }],
  ])('RANGE<%s> %s', async (element, text, expected) => {
    expect(await decodeOne({ name: 'r', type: 'RANGE', rangeElementType: { type: element } }, text)).toEqual(expected);
  });

  it('refuses a RANGE whose text is no range', async () => {
    await expect(decodeOne({ name: 'r', type: 'RANGE', rangeElementType: { type: 'DATE' } }, '2020-01-01')).rejects.toThrow(/RANGE value/);
  });
});

describe('records and repeated fields', () => {
  // A log row as the sources store it: metadata is a repeated record of repeated records.
  const schema = {
    fields: [
      { name: 'id', type: 'STRING', mode: 'NULLABLE' },
      { name: 'timestamp', type: 'TIMESTAMP', mode: 'NULLABLE' },
      {
        name: 'metadata',
        type: 'RECORD',
        mode: 'REPEATED',
        fields: [
          {
            name: 'request',
            type: 'RECORD',
            mode: 'REPEATED',
            fields: [
              { name: 'method', type: 'STRING', mode: 'NULLABLE' },
              { name: 'headers', type: 'RECORD', mode: 'REPEATED', fields: [{ name: 'x_real_ip', type: 'STRING', mode: 'NULLABLE' }] },
            ],
          },
          { name: 'response', type: 'RECORD', mode: 'REPEATED', fields: [{ name: 'status_code', type: 'INTEGER', mode: 'NULLABLE' }] },
          { name: 'tags', type: 'STRING', mode: 'REPEATED' },
        ],
      },
    ],
  };

  it('decodes nested repeated records to arrays of objects, empty arrays kept', async () => {
    const rows = await decodeRows(schema, [
      {
        f: [
          { v: 'a' },
          { v: '1714557600123456' },
          {
            v: [
              {
                v: {
                  f: [
                    { v: [{ v: { f: [{ v: 'GET' }, { v: [{ v: { f: [{ v: '10.0.0.1' }] } }] }] } }] },
                    { v: [{ v: { f: [{ v: '200' }] } }] },
                    { v: [{ v: 'x' }, { v: 'y' }] },
                  ],
                },
              },
            ],
          },
        ],
      },
      { f: [{ v: 'b' }, { v: null }, { v: [{ v: { f: [{ v: [] }, { v: [] }, { v: [] }] } }] }] },
      { f: [{ v: 'c' }, { v: '1.7145576E9' }, { v: [] }] },
    ]);
    expect(rows).toEqual([
      {
        id: 'a',
        timestamp: 1714557600123456,
        metadata: [{ request: [{ method: 'GET', headers: [{ x_real_ip: '10.0.0.1' }] }], response: [{ status_code: 200 }], tags: ['x', 'y'] }],
      },
      { id: 'b', timestamp: null, metadata: [{ request: [], response: [], tags: [] }] },
      { id: 'c', timestamp: 1714557600000000, metadata: [] },
    ]);
  });

  it('keeps the column order of the schema and names like __proto__ as columns', async () => {
    const [decoded] = await decodeRows({ fields: [{ name: 'b', type: 'STRING' }, { name: '__proto__', type: 'STRING' }, { name: 'a', type: 'STRING' }] }, [row('1', '2', '3')]);
    expect(Object.keys(decoded!)).toEqual(['b', '__proto__', 'a']);
    expect(Object.getPrototypeOf(decoded)).toBe(Object.prototype);
    expect(JSON.stringify(decoded)).toBe('{"b":"1","__proto__":"2","a":"3"}');
  });

  it('decodes no rows to none, with or without a schema', async () => {
    expect(await decodeRows(undefined, [])).toEqual([]);
  });
});

describe('a response it cannot read is a query failure, not a wrong answer', () => {
  it.each([
    ['rows without a schema', undefined, [row('x')]],
    ['a row with fewer cells than columns', { fields: [{ name: 'a', type: 'STRING' }, { name: 'b', type: 'STRING' }] }, [row('x')]],
    ['a TIMESTAMP that is no number', { fields: [{ name: 't', type: 'TIMESTAMP' }] }, [row('yesterday')]],
    ['a DATETIME in another form', { fields: [{ name: 'd', type: 'DATETIME' }] }, [row('01/05/2024')]],
    ['a BOOL that is neither', { fields: [{ name: 'b', type: 'BOOL' }] }, [row('yes')]],
    ['an INT64 that is no number', { fields: [{ name: 'i', type: 'INTEGER' }] }, [row('twelve')]],
    ['a NUMERIC that is NaN (only FLOAT64 has one)', { fields: [{ name: 'n', type: 'NUMERIC' }] }, [row('NaN')]],
    ['a NUMERIC in exponent form', { fields: [{ name: 'n', type: 'NUMERIC' }] }, [row('1E-9')]],
    ['a FLOAT64 beyond a double', { fields: [{ name: 'f', type: 'FLOAT64' }] }, [row('1e400')]],
  ])('%s', async (_what, schema, rows) => {
    let caught: unknown;
    try {
      await decodeRows(schema, rows);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(CanneryError);
    expect(caught).toMatchObject({ code: 'query_failed', message: expect.stringMatching(/^BigQuery returned .+; the result cannot be read$/) });
  });
});
