import { mkdtemp, rm, writeFile, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SourceDeclaration } from '../../../../src/config/source-declaration.js';
import { fileFormat, importDeclared } from '../../../../src/backends/duckdb/import/declared-import.js';
import { bigQueryRows, connectDuckDB, rows } from '../../../support/duckdb.js';

const orders: SourceDeclaration = {
  name: 'shop.orders',
  timeColumn: 'created_at',
  columns: [
    { name: 'order_id', type: 'STRING', mode: 'REQUIRED' },
    { name: 'total', type: 'NUMERIC', mode: 'NULLABLE' },
    { name: 'created_at', type: 'TIMESTAMP', mode: 'REQUIRED' },
    { name: 'note', type: 'BYTES', mode: 'NULLABLE' },
  ],
};

const nested: SourceDeclaration = {
  name: 'shop.baskets',
  columns: [
    { name: 'id', type: 'STRING', mode: 'REQUIRED' },
    { name: 'at', type: 'TIMESTAMP', mode: 'NULLABLE' },
    { name: 'customer', type: 'RECORD', mode: 'NULLABLE', fields: [{ name: 'name', type: 'STRING', mode: 'NULLABLE' }] },
    {
      name: 'items',
      type: 'RECORD',
      mode: 'REPEATED',
      fields: [
        { name: 'sku', type: 'STRING', mode: 'NULLABLE' },
        { name: 'qty', type: 'INT64', mode: 'NULLABLE' },
      ],
    },
  ],
};

const CSV = 'order_id,created_at,total,note\no1,2026-01-02T03:04:05Z,12.5,aGk=\no2,2026-01-03 00:00:00+00,,\n';
const NDJSON = [
  { id: 'b1', at: '2026-01-02T03:04:05Z', customer: { name: 'Ada' }, items: [{ sku: 's1', qty: 2 }, { sku: 's2', qty: 1 }] },
  { id: 'b2', at: '2026-01-03T00:00:00Z', customer: null, items: [] },
]
  .map((row) => JSON.stringify(row))
  .join('\n');

let folder: string;
beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'declared-import-'));
});
afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

async function file(name: string, content: string | Buffer): Promise<string> {
  const path = join(folder, name);
  await writeFile(path, content);
  return path;
}

async function failure(promise: Promise<unknown>): Promise<Error> {
  return promise.then(
    () => {
      throw new Error('expected a failure');
    },
    (error: Error) => error,
  );
}

describe('importing into a declared source', () => {
  it('tells the format from the name or --format', () => {
    expect(fileFormat('a.csv')).toEqual({ format: 'csv', gzip: false });
    expect(fileFormat('a.jsonl.gz')).toEqual({ format: 'ndjson', gzip: true });
    expect(fileFormat('a.parquet')).toEqual({ format: 'parquet', gzip: false });
    expect(fileFormat('data', 'csv.gz')).toEqual({ format: 'csv', gzip: true });
    expect(() => fileFormat('a.txt')).toThrow(/pass --format ndjson\|csv\|parquet/);
  });

  it('loads CSV (header in any order, BYTES as base64) and the same CSV gzipped; a repeat is refused by the ledger', async () => {
    const { connection, close } = await connectDuckDB();
    try {
      const first = await importDeclared(connection, orders, await file('orders.csv', CSV));
      expect(first.rows).toBe(2);
      expect(await bigQueryRows(connection, 'SELECT order_id, total, UNIX_SECONDS(created_at) AS s, TO_BASE64(note) AS note FROM `shop.orders` ORDER BY order_id')).toEqual([
        { order_id: 'o1', total: 12.5, s: 1767323045n, note: 'aGk=' },
        { order_id: 'o2', total: null, s: 1767398400n, note: null },
      ]);
      const again = await importDeclared(connection, orders, join(folder, 'orders.csv'));
      expect(again.rows).toBe(0);
      expect(again.previous?.batchId).toBe(first.batchId);
      const gz = await importDeclared(connection, orders, await file('more.csv.gz', gzipSync(CSV.replace(/o1/g, 'o3').replace(/o2/g, 'o4'))));
      expect(gz.rows).toBe(2);
      expect(await rows(connection, 'SELECT count(*)::INTEGER AS n FROM "shop.orders"')).toEqual([{ n: 4 }]);
    } finally {
      close();
    }
  });

  it('loads NDJSON with nested and repeated records, plain and gzipped', async () => {
    const { connection, close } = await connectDuckDB();
    try {
      expect((await importDeclared(connection, nested, await file('b.ndjson', NDJSON))).rows).toBe(2);
      // An INT64 past 2^53 inside a list of records is read exactly (as text, then cast).
      const big = JSON.stringify({ id: 'b5', items: [{ sku: 's9', qty: 1 }] }).replace('"qty":1', '"qty":9007199254740993');
      expect((await importDeclared(connection, nested, await file('big.ndjson', big))).rows).toBe(1);
      expect(await bigQueryRows(connection, "SELECT i.qty FROM `shop.baskets`, UNNEST(items) AS i WHERE id = 'b5'")).toEqual([{ qty: 9007199254740993n }]);
      expect((await importDeclared(connection, nested, await file('c.jsonl.gz', gzipSync(NDJSON.replace(/b1/, 'b3').replace(/b2/, 'b4'))))).rows).toBe(2);
      expect(await bigQueryRows(connection, "SELECT id, customer.name AS name, i.sku, i.qty FROM `shop.baskets`, UNNEST(items) AS i WHERE id IN ('b1', 'b3') ORDER BY id, i.sku")).toEqual([
        { id: 'b1', name: 'Ada', sku: 's1', qty: 2n },
        { id: 'b1', name: 'Ada', sku: 's2', qty: 1n },
        { id: 'b3', name: 'Ada', sku: 's1', qty: 2n },
        { id: 'b3', name: 'Ada', sku: 's2', qty: 1n },
      ]);
    } finally {
      close();
    }
  });

  it('stores a missing or null REPEATED field as an empty array, as BigQuery does, at the top and nested: ARRAY_LENGTH 0, not NULL', async () => {
    const { connection, close } = await connectDuckDB();
    try {
      const lines = [{ id: 'n1' }, { id: 'n2', items: null }].map((row) => JSON.stringify(row)).join('\n');
      expect((await importDeclared(connection, nested, await file('no-items.ndjson', lines))).rows).toBe(2);
      const parquet = join(folder, 'no-items.parquet');
      await connection.run(`COPY (SELECT 'n3' AS id, NULL::STRUCT(sku VARCHAR, qty BIGINT)[] AS items) TO '${parquet}' (FORMAT parquet)`);
      expect((await importDeclared(connection, nested, parquet)).rows).toBe(1);
      expect(await bigQueryRows(connection, 'SELECT id, ARRAY_LENGTH(items) AS n, items IS NULL AS missing FROM `shop.baskets` ORDER BY id')).toEqual([
        { id: 'n1', n: 0n, missing: false },
        { id: 'n2', n: 0n, missing: false },
        { id: 'n3', n: 0n, missing: false },
      ]);
      // Inside records too, in lists of records, and in records of lists.
      const deep: SourceDeclaration = {
        name: 'shop.deep',
        columns: [
          { name: 'id', type: 'STRING', mode: 'REQUIRED' },
          { name: 'customer', type: 'RECORD', mode: 'NULLABLE', fields: [{ name: 'name', type: 'STRING', mode: 'NULLABLE' }, { name: 'tags', type: 'STRING', mode: 'REPEATED' }] },
          { name: 'items', type: 'RECORD', mode: 'REPEATED', fields: [{ name: 'sku', type: 'STRING', mode: 'NULLABLE' }, { name: 'codes', type: 'INT64', mode: 'REPEATED' }] },
        ],
      };
      const deepLines = [{ id: 'd1', customer: { name: 'a' }, items: [{ sku: 's' }, { sku: 't', codes: [1, 2] }] }, { id: 'd2', customer: null }].map((row) => JSON.stringify(row)).join('\n');
      expect((await importDeclared(connection, deep, await file('deep.ndjson', deepLines))).rows).toBe(2);
      const deepParquet = join(folder, 'deep.parquet');
      await connection.run(
        `COPY (SELECT 'd3' AS id, {'name': 'c', 'tags': NULL::VARCHAR[]} AS customer, [{'sku': 'u', 'codes': NULL::BIGINT[]}] AS items) TO '${deepParquet}' (FORMAT parquet)`,
      );
      expect((await importDeclared(connection, deep, deepParquet)).rows).toBe(1);
      expect(
        await bigQueryRows(connection, 'SELECT id, ARRAY_LENGTH(customer.tags) AS tags, ARRAY_LENGTH(items) AS items, ARRAY(SELECT ARRAY_LENGTH(i.codes) FROM UNNEST(items) AS i) AS codes FROM `shop.deep` ORDER BY id'),
      ).toEqual([
        { id: 'd1', tags: 0n, items: 2n, codes: [0n, 2n] },
        // A NULL record's fields are NULL, in BigQuery too.
        { id: 'd2', tags: null, items: 0n, codes: [] },
        { id: 'd3', tags: 0n, items: 1n, codes: [0n] },
      ]);
    } finally {
      close();
    }
  });

  it('loads Parquet, plain and gzipped, with narrower integer types read exactly; a type that does not fit is refused before any row', async () => {
    const { connection, close } = await connectDuckDB();
    try {
      const plain = join(folder, 'o.parquet');
      await connection.run(
        `COPY (SELECT 'p' || i AS order_id, (i * 1.25)::DECIMAL(10, 2) AS total, TIMESTAMPTZ '2026-01-01 00:00:00+00' + to_hours(i) AS created_at, NULL::BLOB AS note, i::INTEGER AS extra
               FROM range(3) AS t(i)) TO '${plain}' (FORMAT parquet)`,
      );
      expect((await importDeclared(connection, orders, plain)).rows).toBe(3);
      const gz = await file('o2.parquet.gz', gzipSync(await readFile(plain)));
      // The same rows, another file: the ledger knows inputs by their bytes.
      expect((await importDeclared(connection, orders, gz)).rows).toBe(3);
      expect(await bigQueryRows(connection, 'SELECT SUM(total) AS total FROM `shop.orders`')).toEqual([{ total: 7.5 }]);

      const wrong = join(folder, 'wrong.parquet');
      await connection.run(`COPY (SELECT 'x' AS order_id, 'lots' AS total, TIMESTAMPTZ '2026-01-01 00:00:00+00' AS created_at) TO '${wrong}' (FORMAT parquet)`);
      expect((await failure(importDeclared(connection, orders, wrong))).message).toMatch(/column total: it is VARCHAR in .*wrong\.parquet, declared NUMERIC in source shop\.orders/);
    } finally {
      close();
    }
  });

  it('names the line and the field of a value that does not fit, nested or not, and writes nothing of that file', async () => {
    const { connection, close } = await connectDuckDB();
    try {
      const csv = await failure(importDeclared(connection, orders, await file('bad.csv', `${CSV}o9,2026-01-04T00:00:00Z,lots,\n`)));
      expect(csv.message).toMatch(/bad\.csv line 4, column total: "lots" is not a valid NUMERIC/);
      const lines = `${NDJSON}\n${JSON.stringify({ id: 'b9', items: [{ sku: 's', qty: 1 }, { sku: 's', qty: 'two' }] })}\n`;
      const json = await failure(importDeclared(connection, nested, await file('bad.ndjson', lines)));
      expect(json.message).toMatch(/bad\.ndjson line 3, field items\[1\]\.qty: "two" is not a valid INT64/);
      // DuckDB's readers would round these; BigQuery's loads refuse them.
      const counts: SourceDeclaration = { name: 'counts', columns: [{ name: 'k', type: 'STRING', mode: 'NULLABLE' }, { name: 'n', type: 'INT64', mode: 'NULLABLE' }] };
      expect((await failure(importDeclared(connection, counts, await file('counts.csv', 'k,n\na,1\nb,\nc,1.5\n')))).message).toMatch(/counts\.csv line 4, column n: "1\.5" is not a valid INT64/);
      expect((await failure(importDeclared(connection, counts, await file('counts.ndjson', '{"k":"a","n":1}\n{"k":"b","n":"2"}\n{"k":"c","n":2.5}\n')))).message).toMatch(
        /counts\.ndjson line 3 \(not counting blank lines\), field n: "2\.5" is not a valid INT64/,
      );
      // Nested too, in a record of a list and in a list of INT64s: never rounded, and a big one kept exact.
      const fraction = `${JSON.stringify({ id: 'b8', items: [{ sku: 's', qty: 1 }] })}\n{"id":"b9","items":[{"sku":"s","qty":1},{"sku":"s","qty":1.5}]}\n`;
      expect((await failure(importDeclared(connection, nested, await file('fraction.ndjson', fraction)))).message).toMatch(/fraction\.ndjson line 2, field items\[1\]\.qty: 1\.5 is not a valid INT64/);
      const lists: SourceDeclaration = { name: 'lists', columns: [{ name: 'k', type: 'STRING', mode: 'NULLABLE' }, { name: 'ns', type: 'INT64', mode: 'REPEATED' }] };
      expect((await failure(importDeclared(connection, lists, await file('lists.ndjson', '{"k":"a","ns":[1,2]}\n{"k":"b","ns":[3,2.5]}\n')))).message).toMatch(/lists\.ndjson line 2, field ns\[1\]: 2\.5 is not a valid INT64/);
      const required = await failure(importDeclared(connection, orders, await file('missing.csv', 'order_id,created_at\no1,2026-01-02T03:04:05Z\n,2026-01-02T03:04:05Z\n')));
      expect(required.message).toMatch(/missing\.csv line 3, column order_id: no value, and source shop\.orders declares it REQUIRED/);
      const unknown = await failure(importDeclared(connection, orders, await file('unknown.csv', 'order_id,created_at,discount\n')));
      expect(unknown.message).toMatch(/column discount of .* is not declared in source shop\.orders/);
      // All or nothing: the good lines before each bad one are not there either.
      expect(await rows(connection, `SELECT count(*)::INTEGER AS n FROM duckdb_tables() WHERE table_name LIKE 'shop.%' OR table_name IN ('counts', 'lists')`)).toEqual([{ n: 0 }]);
      expect(await rows(connection, `SELECT count(*)::INTEGER AS n FROM duckdb_tables() WHERE schema_name = 'cannery'`)).toEqual([{ n: 0 }]);
    } finally {
      close();
    }
  });

  it('refuses what the format cannot hold, by name', async () => {
    const { connection, close } = await connectDuckDB();
    try {
      expect((await failure(importDeclared(connection, nested, await file('n.csv', 'id\nx\n')))).message).toMatch(/customer is a RECORD, which a CSV file cannot hold/);
      const bignumeric: SourceDeclaration = { name: 'big', columns: [{ name: 'n', type: 'BIGNUMERIC', mode: 'NULLABLE' }] };
      expect((await failure(importDeclared(connection, bignumeric, await file('n.ndjson', '{"n": 1}\n')))).message).toMatch(/n is BIGNUMERIC, which the embedded engine cannot hold exactly/);
    } finally {
      close();
    }
  });
});
