/**
 * One's own data, as a user types it in a fresh folder: `sources infer` a sample into sources/,
 * `import --source` the file, an endpoint over the table, `run` it; for CSV, Parquet and NDJSON
 * holding nested records. Then a declaration change the table cannot take, refused with what to run.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '#duckdb-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cannery } from '../support/cannery-cli.js';

let folder: string;
beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'cannery-sources-'));
  await mkdir(join(folder, 'sources'));
  await mkdir(join(folder, 'endpoints'));
});
afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

async function endpoint(name: string, id: string, param: string, sql: string): Promise<void> {
  await writeFile(
    join(folder, 'endpoints', `${name}.yaml`),
    `id: ${id}\nname: ${name}\ndescription: test\nlanguage: bq_sql\nmax_rows: 100\ncache: false\nsandbox: false\nredact_pii: false\n` +
      `params:\n  ${param}:\n    type: string\n    required: true\n    description: test\nquery: |\n  ${sql}\n`,
  );
}

/** `cannery sources infer FILE --name NAME > sources/NAME.yaml`, then `cannery import --source NAME FILE`. */
async function declareAndImport(file: string, name: string): Promise<string> {
  const inferred = await cannery(['sources', 'infer', file, '--name', name], { cwd: folder });
  expect(inferred.stderr).toBe('');
  expect(inferred.code).toBe(0);
  await writeFile(join(folder, 'sources', `${name}.yaml`), inferred.stdout);
  const imported = await cannery(['import', '--db', 'cannery.duckdb', '--source', name, file], { cwd: folder });
  expect(imported.stderr).toMatch(new RegExp(`committed import .*: 2 row\\(s\\) .* into ${name.replace('.', '\\.')}`));
  expect(imported.code).toBe(0);
  return inferred.stdout;
}

async function runEndpoint(name: string, param: string): Promise<unknown> {
  const result = await cannery(['run', name, param, '--db', 'cannery.duckdb'], { cwd: folder });
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout);
}

describe('sources infer, import --source, run', () => {
  it('serves a CSV file', async () => {
    await writeFile(join(folder, 'orders.csv'), 'order_id,customer,total,created_at\no1,ada,12.5,2026-01-02 03:04:05\no2,bob,3.25,2026-01-03 10:00:00\n');
    const file = await declareAndImport('orders.csv', 'shop.orders');
    expect(file).toBe(
      [
        // Where `npm install cannery` puts the schema, as for endpoint files: this folder installs nothing.
        '# yaml-language-server: $schema=../node_modules/cannery/schemas/source.schema.json',
        '# Inferred by `cannery sources infer` from orders.csv: check the types, and mark REQUIRED what is never missing.',
        'name: shop.orders',
        'time_column: created_at',
        'columns:',
        '  - { name: order_id, type: STRING }',
        '  - { name: customer, type: STRING }',
        '  - { name: total, type: FLOAT64 }',
        '  - { name: created_at, type: TIMESTAMP }',
        '',
      ].join('\n'),
    );
    await endpoint('orders.by-customer', '7f1c2a3e-1111-4222-8333-944455556666', 'customer', 'SELECT order_id, total, created_at FROM `shop.orders` WHERE customer = @customer');
    expect(await runEndpoint('orders.by-customer', 'customer=ada')).toEqual({ result: [{ order_id: 'o1', total: 12.5, created_at: 1767323045000000 }] });
    // The same file again: the ledger knows it.
    const again = await cannery(['import', '--db', 'cannery.duckdb', '--source', 'shop.orders', 'orders.csv'], { cwd: folder });
    expect(again.stderr).toMatch(/already imported: .* nothing was written this time/);

    // check and describe know the declared source: its result columns typed from the declaration.
    const described = await cannery(['describe', 'orders.by-customer', '--format', 'json'], { cwd: folder });
    expect(described.code, described.stderr).toBe(0);
    expect(JSON.parse(described.stdout).columns.map((column: { name: string; type: string }) => `${column.name} ${column.type}`)).toEqual(['order_id STRING', 'total FLOAT64', 'created_at TIMESTAMP']);
    const checked = await cannery(['check', '--backend', 'duckdb'], { cwd: folder });
    expect(checked.code, checked.stdout + checked.stderr).toBe(0);
  });

  it('serves a Parquet file', async () => {
    const instance = await DuckDBInstance.create(':memory:');
    const connection = await instance.connect();
    await connection.run(
      `COPY (SELECT * FROM (VALUES ('k1', 3::INTEGER, DATE '2026-01-01'), ('k2', 4::INTEGER, DATE '2026-01-02')) AS t(sku, stock, day)) TO '${join(folder, 'stock.parquet')}' (FORMAT parquet)`,
    );
    connection.closeSync();
    instance.closeSync();
    const file = await declareAndImport('stock.parquet', 'shop.stock');
    expect(file).toContain('time_column: day\ncolumns:\n  - { name: sku, type: STRING }\n  - { name: stock, type: INT64 }\n  - { name: day, type: DATE }\n');
    await endpoint('stock.of', '7f1c2a3e-2222-4222-8333-944455556666', 'sku', 'SELECT sku, stock, day FROM `shop.stock` WHERE sku = @sku');
    expect(await runEndpoint('stock.of', 'sku=k2')).toEqual({ result: [{ sku: 'k2', stock: 4, day: '2026-01-02' }] });
  });

  it('serves NDJSON holding nested and repeated records', async () => {
    const lines = [
      { id: 'b1', at: '2026-01-02T03:04:05Z', customer: { name: 'Ada' }, items: [{ sku: 's1', qty: 2 }, { sku: 's2', qty: 1 }] },
      { id: 'b2', at: '2026-01-03T00:00:00Z', customer: { name: 'Bob' }, items: [{ sku: 's1', qty: 5 }] },
    ];
    await writeFile(join(folder, 'baskets.ndjson'), lines.map((line) => JSON.stringify(line)).join('\n') + '\n');
    const file = await declareAndImport('baskets.ndjson', 'shop.baskets');
    expect(file).toContain('  - name: items\n    type: RECORD\n    mode: REPEATED\n    fields:\n      - { name: sku, type: STRING }\n      - { name: qty, type: INT64 }\n');
    await endpoint('baskets.with-sku', '7f1c2a3e-3333-4222-8333-944455556666', 'sku', 'SELECT id, customer.name AS name, i.qty FROM `shop.baskets`, UNNEST(items) AS i WHERE i.sku = @sku ORDER BY id');
    expect(await runEndpoint('baskets.with-sku', 'sku=s1')).toEqual({ result: [{ id: 'b1', name: 'Ada', qty: 2 }, { id: 'b2', name: 'Bob', qty: 5 }] });
  });

  it('refuses a declaration change that would lose stored values, saying what to run, and runs it', async () => {
    await writeFile(join(folder, 'sources', 'shop.stock.yaml'), 'name: shop.stock\ncolumns:\n  - { name: sku, type: STRING }\n  - { name: stock, type: STRING }\n  - { name: day, type: DATE }\n');
    const refused = await cannery(['run', 'stock.of', 'sku=k2', '--db', 'cannery.duckdb'], { cwd: folder });
    expect(refused.code).not.toBe(0);
    expect(refused.stderr + refused.stdout).toMatch(/stock: it is stored as INT64 and declared STRING.*`cannery sources drop shop\.stock --db FILE`/);
    const dropped = await cannery(['sources', 'drop', 'shop.stock', '--db', 'cannery.duckdb'], { cwd: folder });
    expect(dropped.stderr).toMatch(/dropped table shop\.stock and its imports/);
    const imported = await cannery(['import', '--db', 'cannery.duckdb', '--source', 'shop.stock', 'stock.parquet'], { cwd: folder });
    expect(imported.stderr).toMatch(/column stock: it is INTEGER in .*stock\.parquet, declared STRING in source shop\.stock/);
  });
});
