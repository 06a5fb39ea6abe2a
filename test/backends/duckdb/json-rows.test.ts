/**
 * Rows written as JSON text by DuckDB (json-rows.ts) against rows read as wire values and encoded
 * by the service (result-rows.ts, encode.ts): the same query through the real backend both ways,
 * the encoded answers compared byte for byte, over every column type the text is written for and
 * their edge values (NULLs at each depth, nested records and arrays, every code point, integers
 * around 2^53, timestamps before 1970 and past 2^53 microseconds, infinite ones), written-back
 * records, max_rows and the byte budget, and the errors. Where a column is of another type, or
 * named as a JS object would reorder it, the rows are read as wire values.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDuckDbBackend } from '../../../src/backends/duckdb/backend.js';
import type { Backend, QueryRequest, QueryResult } from '../../../src/engine/backend.js';
import { encodeJsonRows, encodeResult } from '../../../src/engine/serve/encode.js';
import { queryRequest } from '../../support/duckdb.js';

const MAX_BYTES = 32 * 1024 * 1024;

/** Every code point but the surrogates, in strings of 4,096, and the escapes DuckDB writes in upper case, as text. */
const CODE_POINTS = `(select string_agg(chr(cp::INTEGER), '' order by cp) as s from range(1, 1114112) t(cp) where cp < 55296 or cp > 57343 group by cp // 4096 order by min(cp))`;

const VALUES = `
  select * from (values
    (1, 'plain', true, (-128)::TINYINT, (-32768)::SMALLINT, (-2147483648)::INTEGER, 255::UTINYINT, 65535::USMALLINT, 4294967295::UINTEGER,
     9007199254740992::BIGINT, '1969-12-31 23:59:59.999999+00'::TIMESTAMPTZ,
     {'a': 1::BIGINT, 'b': 'x', 'c': [1, 2]::BIGINT[], 'd': {'e': 9007199254740993::BIGINT, 'f': NULL::TIMESTAMPTZ}},
     [{'g': 'h', 'i': [true]}], [[1], NULL, []]::BIGINT[][]),
    (2, 'quote " backslash \\ literal \\u001F tab' || chr(9) || ' é 😀 ' || chr(8232), false, 127::TINYINT, 32767::SMALLINT, 2147483647::INTEGER, 0::UTINYINT, 0::USMALLINT, 0::UINTEGER,
     9007199254740993::BIGINT, '2300-01-01 00:00:00+00'::TIMESTAMPTZ,
     {'a': NULL, 'b': NULL, 'c': NULL, 'd': NULL}, NULL, NULL),
    (3, '', NULL, NULL, NULL, NULL, NULL, NULL, NULL,
     (-9223372036854775808)::BIGINT, 'infinity'::TIMESTAMPTZ, NULL, [], [NULL]::BIGINT[][]),
    (4, NULL, NULL, 0::TINYINT, 0::SMALLINT, 0::INTEGER, 1::UTINYINT, 1::USMALLINT, 1::UINTEGER,
     9223372036854775807::BIGINT, '-infinity'::TIMESTAMPTZ, {'a': (-9007199254740993)::BIGINT, 'b': '', 'c': [], 'd': {'e': NULL, 'f': '0001-01-01 00:00:00+00'::TIMESTAMPTZ}}, [NULL::STRUCT(g VARCHAR, i BOOLEAN[])][1:0], NULL),
    (5, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, (-9007199254740992)::BIGINT, '9999-12-31 23:59:59.999999+00'::TIMESTAMPTZ, NULL, NULL, NULL),
    (6, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)
  ) as t(n, s, b, ti, si, i, uti, usi, ui, big, ts, rec, recs, nested)`;

describe('rows written as JSON by DuckDB', () => {
  let backend: Backend;
  beforeAll(async () => {
    backend = await createDuckDbBackend({ path: ':memory:' });
  });
  afterAll(() => backend.close());

  const run = (sql: string, options: Partial<QueryRequest> = {}) => backend.run(queryRequest(sql, { maxBytes: MAX_BYTES, ...options }));

  /** The encoded answer of a result, whichever way its rows came. */
  const encoded = async (result: QueryResult) =>
    Buffer.from(result.jsonRows ? await encodeJsonRows(result.jsonRows, MAX_BYTES) : await encodeResult(result.rows, { maxBytes: MAX_BYTES })).toString('utf8');

  /**
   * Runs `sql` both ways (taken as JSON twice: the first answer to a query is where the backend
   * learns its columns); returns whether DuckDB wrote the rows, and checks the answers are the
   * same bytes.
   */
  async function bothWays(sql: string, options: Partial<QueryRequest> = {}): Promise<boolean> {
    const asValues = await run(sql, options);
    const first = await run(sql, { ...options, jsonRows: true });
    const asJson = await run(sql, { ...options, jsonRows: true });
    expect(asValues.jsonRows).toBeUndefined();
    expect(await encoded(first)).toBe(await encoded(asValues));
    expect(await encoded(asJson)).toBe(await encoded(asValues));
    return asJson.jsonRows !== undefined;
  }

  /** Runs `sql` as JSON twice, the second time as DuckDB writes it, and returns its error. */
  const jsonError = async (sql: string, options: Partial<QueryRequest> = {}) => {
    await run(sql, { ...options, jsonRows: true }).catch(() => undefined);
    return run(sql, { ...options, jsonRows: true }).catch((error: unknown) => error);
  };

  it('writes every column type of its set as the service encodes it, edge values and NULLs at every depth', async () => {
    expect(await bothWays(`${VALUES} order by n`)).toBe(true);
    expect(await bothWays(`${VALUES} order by n desc`)).toBe(true);
  });

  it('writes every code point as JSON.stringify does', async () => {
    expect(await bothWays(CODE_POINTS)).toBe(true);
    // The escapes DuckDB writes in upper case, and the same text as a string's own characters.
    expect(await bothWays(`select chr(11) || chr(27) || chr(31) as "k\\u001F", '\\u001F \\\\u001F \\\\\\u001F' as v`)).toBe(true);
  });

  it('names columns as the service does: unicode, quotes, repeated names, names differing in case', async () => {
    expect(await bothWays(`select 1 as "é 😀", 2 as "we""ird", 3 as a, 4 as a, 5 as "A", {'x y': 1, 'X-Y': 2} as "r"`)).toBe(true);
  });

  it('writes stored records back as lists, as the service does', async () => {
    const writeBack = { rec: { list: true, fields: { d: { list: true, fields: {} }, missing: { list: true, fields: {} } } } };
    expect(await bothWays(`${VALUES} order by n`, { writeBack })).toBe(true);
    expect(await bothWays(`${VALUES} order by n`, { writeBack: { rec: { list: false, fields: { d: { list: true, fields: {} } } } } })).toBe(true);
    // A write-back of something other than a record is read as wire values.
    expect(await bothWays(`${VALUES} order by n`, { writeBack: { rec: { list: true, fields: { a: { list: true, fields: {} } } } } })).toBe(false);
  });

  it('stops at max_rows, and does not fail on a row past it', async () => {
    const sql = `select i, case when i = 3000 then [NULL] else [i] end as l from range(5000) t(i) order by i`;
    expect(await bothWays(sql, { maxRows: 2500 })).toBe(true);
    expect((await run(sql, { maxRows: 2500, jsonRows: true })).jsonRows).toHaveLength(2500);
    // The other way round, the same SQL text: 3,000 rows hold the NULL.
    expect(await jsonError(sql, { maxRows: 3500 })).toMatchObject({ code: 'query_failed', message: expect.stringContaining('Array cannot have a null element') });
  });

  it('binds parameters as the query does', async () => {
    const values = { s: 'plain' };
    expect(await bothWays(`${VALUES} where s = $s`, { parameters: ['s'], values })).toBe(true);
    // A column typed by the parameter's value: where it is of another type than the answer
    // before, the query fails its check and the rows are read as wire values.
    expect(await bothWays('select $s as v', { parameters: ['s'], values })).toBe(true);
    const asNumber = { parameters: ['s'], values: { s: 5 } } as Partial<QueryRequest>;
    const changed = await run('select $s as v', { ...asNumber, jsonRows: true });
    expect(changed.jsonRows).toBeUndefined();
    expect(await encoded(changed)).toBe(await encoded(await run('select $s as v', asNumber)));
  });

  it('fails an array holding NULL as the service does', async () => {
    for (const sql of ['select [1, NULL] as l', "select {'a': ['x', NULL]} as r"]) {
      const asValues = await run(sql).catch((error: unknown) => error);
      const asJson = await jsonError(sql);
      expect(asValues).toMatchObject({ code: 'query_failed', queryRejected: true, message: expect.stringContaining('Array cannot have a null element') });
      expect(asJson).toMatchObject({ code: (asValues as { code: string }).code, message: (asValues as Error).message, queryRejected: true });
    }
  });

  it('holds the answer to its byte budget', async () => {
    const failure = await jsonError("select repeat('x', 1000) as s from range(1000)", { maxBytes: 256 * 1024 });
    expect(failure).toMatchObject({ code: 'result_too_large', message: expect.stringContaining('262144-byte limit') });
    expect(await jsonError("select repeat('x', 40 * 1024 * 1024) as s from range(3)")).toMatchObject({ code: 'result_too_large' });
  });

  it('reads other types, and names a JS object orders or keeps apart, as wire values', async () => {
    for (const sql of [
      'select 1.5::DOUBLE as d',
      "select DATE '2024-01-01' as d",
      "select '{\"a\":1}'::JSON as j",
      "select 1 as \"__proto__\"",
      'select 1 as b, 2 as "1"',
      "select {'2': 1, 'a': 2} as r",
      "select 1::HUGEINT as h",
    ]) {
      expect(await bothWays(sql), sql).toBe(false);
    }
  });
});
