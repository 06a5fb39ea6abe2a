import { describe, expect, it } from 'vitest';
import type { SourceDeclaration } from '../../../src/config/source-declaration.js';
import { compactDeclaredTable, declaredDuckdbType, dropDeclaredTable, ensureDeclaredTable, ensureDeclaredTables } from '../../../src/backends/duckdb/declared-tables.js';
import { recordImport } from '../../../src/backends/duckdb/import/ledger.js';
import { bigQueryRows, connectDuckDB, rows } from '../../support/duckdb.js';

const orders: SourceDeclaration = {
  name: 'shop.orders',
  timeColumn: 'created_at',
  file: 'sources/shop.orders.yaml',
  columns: [
    { name: 'order_id', type: 'STRING', mode: 'REQUIRED' },
    { name: 'total', type: 'NUMERIC', mode: 'NULLABLE' },
    { name: 'qty', type: 'INT64', mode: 'NULLABLE' },
    { name: 'created_at', type: 'TIMESTAMP', mode: 'REQUIRED' },
    { name: 'tags', type: 'STRING', mode: 'REPEATED' },
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

function withColumns(columns: SourceDeclaration['columns']): SourceDeclaration {
  return { ...orders, columns };
}

async function columnTypes(connection: Parameters<typeof ensureDeclaredTable>[0]): Promise<Record<string, string>> {
  const result = await rows(connection, `SELECT column_name, data_type, is_nullable FROM duckdb_columns() WHERE table_name = 'shop.orders' ORDER BY column_index`);
  return Object.fromEntries(result.map((row) => [String(row.column_name), `${String(row.data_type)}${row.is_nullable ? '' : ' NOT NULL'}`]));
}

describe('declared source tables', () => {
  it('hold each BigQuery type in the DuckDB type the generator holds it in', () => {
    const type = (t: SourceDeclaration['columns'][number]['type']) => declaredDuckdbType({ name: 'c', type: t, mode: 'NULLABLE' });
    expect(['STRING', 'BYTES', 'INT64', 'FLOAT64', 'NUMERIC', 'BOOL', 'TIMESTAMP', 'DATE', 'DATETIME', 'TIME', 'JSON'].map((t) => type(t as never))).toEqual([
      'VARCHAR',
      'BLOB',
      'BIGINT',
      'DOUBLE',
      'DECIMAL(38, 9)',
      'BOOLEAN',
      'TIMESTAMPTZ',
      'DATE',
      'TIMESTAMP',
      'TIME',
      'JSON',
    ]);
    expect(() => type('BIGNUMERIC')).toThrow(/c is BIGNUMERIC, which the embedded engine cannot hold exactly/);
  });

  it('are created from a declaration: REQUIRED as NOT NULL, REPEATED as a list, RECORD as a struct, and read by the generated SQL', async () => {
    const { connection, close } = await connectDuckDB();
    try {
      expect(await ensureDeclaredTable(connection, orders)).toBe('created');
      expect(await columnTypes(connection)).toEqual({
        order_id: 'VARCHAR NOT NULL',
        total: 'DECIMAL(38,9)',
        qty: 'BIGINT',
        created_at: 'TIMESTAMP WITH TIME ZONE NOT NULL',
        tags: 'VARCHAR[]',
        items: 'STRUCT(sku VARCHAR, qty BIGINT)[]',
      });
      expect(await ensureDeclaredTable(connection, orders)).toBe('unchanged');
      await connection.run(`INSERT INTO "shop.orders" VALUES ('o1', 12.5, 2, '2026-01-02T03:04:05Z', ['a'], [{'sku': 's1', 'qty': 3}])`);
      expect(await bigQueryRows(connection, 'SELECT order_id, total, i.sku, i.qty FROM `shop.orders`, UNNEST(items) AS i')).toEqual([
        { order_id: 'o1', total: 12.5, sku: 's1', qty: 3n },
      ]);
    } finally {
      close();
    }
  });

  it('migrate in place: a column or a record field added, INT64 widened to NUMERIC, REQUIRED relaxed; stored values kept', async () => {
    const { connection, close } = await connectDuckDB();
    try {
      await ensureDeclaredTable(connection, orders);
      await connection.run(`INSERT INTO "shop.orders" VALUES ('o1', 12.5, 2, '2026-01-02T03:04:05Z', ['a'], [{'sku': 's1', 'qty': 3}])`);
      const [orderId, total, qty, createdAt, tags, items] = orders.columns as [never, never, never, never, never, SourceDeclaration['columns'][number]];
      const changed = withColumns([
        { ...(orderId as object), mode: 'NULLABLE' } as never,
        total,
        { name: 'qty', type: 'NUMERIC', mode: 'NULLABLE' },
        createdAt,
        tags,
        { ...items, fields: [...items.fields!, { name: 'price', type: 'FLOAT64', mode: 'NULLABLE' }] },
        { name: 'customer', type: 'STRING', mode: 'NULLABLE' },
      ]);
      void qty;
      expect(await ensureDeclaredTables(connection, [changed])).toEqual([{ name: 'shop.orders', outcome: 'migrated' }]);
      expect(await columnTypes(connection)).toMatchObject({ order_id: 'VARCHAR', qty: 'DECIMAL(38,9)', items: 'STRUCT(sku VARCHAR, qty BIGINT, price DOUBLE)[]', customer: 'VARCHAR' });
      expect(await bigQueryRows(connection, 'SELECT order_id, qty, customer, items[OFFSET(0)].sku AS sku, items[OFFSET(0)].price AS price FROM `shop.orders`')).toEqual([
        { order_id: 'o1', qty: 2, customer: null, sku: 's1', price: null },
      ]);
      expect(await ensureDeclaredTable(connection, changed)).toBe('unchanged');
    } finally {
      close();
    }
  });

  it('refuse a removed or retyped column, a removed record field, and a new REQUIRED column over stored rows, saying what to run and changing nothing', async () => {
    const { connection, close } = await connectDuckDB();
    try {
      await ensureDeclaredTable(connection, orders);
      await connection.run(`INSERT INTO "shop.orders" VALUES ('o1', 12.5, 2, '2026-01-02T03:04:05Z', ['a'], [{'sku': 's1', 'qty': 3}])`);
      const before = await columnTypes(connection);
      const cases: [SourceDeclaration, RegExp][] = [
        [withColumns(orders.columns.filter((column) => column.name !== 'total')), /column total is stored but no longer declared, and removing it would drop its values/],
        [withColumns(orders.columns.map((column) => (column.name === 'qty' ? { ...column, type: 'STRING' } : column))), /qty: it is stored as INT64 and declared STRING/],
        [withColumns(orders.columns.map((column) => (column.name === 'total' ? { ...column, type: 'INT64' } : column))), /total: it is stored as NUMERIC and declared INT64/],
        [withColumns(orders.columns.map((column) => (column.name === 'items' ? { ...column, fields: column.fields!.slice(0, 1) } : column))), /items\.qty: it is stored but no longer declared/],
        [withColumns(orders.columns.map((column) => (column.name === 'tags' ? { ...column, mode: 'NULLABLE' } : column))), /tags: .*a mode cannot change between REPEATED and not/],
        [withColumns([...orders.columns, { name: 'region', type: 'STRING', mode: 'REQUIRED' }]), /column region is new and REQUIRED, but the 1 stored row/],
      ];
      for (const [declaration, message] of cases) {
        const error = await ensureDeclaredTables(connection, [declaration]).then(
          () => undefined,
          (caught: Error) => caught,
        );
        expect(error?.message).toMatch(message);
        expect(error?.message).toMatch(/put it back as it was in sources\/shop\.orders\.yaml, or .*`cannery sources drop shop\.orders --db FILE`/);
        expect(await columnTypes(connection)).toEqual(before);
      }
      expect((await rows(connection, 'SELECT count(*)::INTEGER AS n FROM "shop.orders"'))[0]).toEqual({ n: 1 });
    } finally {
      close();
    }
  });

  it('are dropped with their imports, so the same file loads again into the new declaration', async () => {
    const { connection, close } = await connectDuckDB();
    try {
      await ensureDeclaredTable(connection, orders);
      await recordImport(connection, { batchId: 'b1', source: 'shop.orders', sha256: 'x', headSha256: 'y', bytes: 1, events: 1 });
      await recordImport(connection, { batchId: 'b2', source: 'other', sha256: 'x', headSha256: 'y', bytes: 1, events: 1 });
      expect(await dropDeclaredTable(connection, 'shop.orders')).toBe(true);
      expect(await rows(connection, `SELECT source FROM cannery.imports`)).toEqual([{ source: 'other' }]);
      expect(await rows(connection, `SELECT table_name FROM duckdb_tables() WHERE table_name = 'shop.orders'`)).toEqual([]);
      expect(await dropDeclaredTable(connection, 'shop.orders')).toBe(false);
    } finally {
      close();
    }
  });

  it('are compacted in time_column order, keeping their NOT NULL columns', async () => {
    const { connection, close } = await connectDuckDB();
    try {
      await ensureDeclaredTable(connection, orders);
      await connection.run(
        `INSERT INTO "shop.orders" (order_id, created_at) VALUES ('late', '2026-01-03T00:00:00Z'), ('early', '2026-01-01T00:00:00Z'), ('middle', '2026-01-02T00:00:00Z')`,
      );
      expect(await compactDeclaredTable(connection, orders)).toBe(3);
      expect(await rows(connection, 'SELECT order_id FROM "shop.orders"')).toEqual([{ order_id: 'early' }, { order_id: 'middle' }, { order_id: 'late' }]);
      expect(await columnTypes(connection)).toMatchObject({ order_id: 'VARCHAR NOT NULL', created_at: 'TIMESTAMP WITH TIME ZONE NOT NULL' });
      expect(await compactDeclaredTable(connection, { name: orders.name, columns: orders.columns })).toBeUndefined();
    } finally {
      close();
    }
  });
});
