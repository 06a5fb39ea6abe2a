/**
 * Issue 36's "Done when", as a new user tries it: in an empty folder with the packed package
 * installed, `npx cannery init`, then for a CSV, a Parquet and an NDJSON file holding nested
 * records, `sources infer FILE --name NAME > sources/NAME.yaml` and `import --source NAME FILE`
 * (into the default database, no --db), an endpoint over each; `check` and `test` pass, `serve`
 * answers each endpoint's rows over a socket, and a declaration losing a column an endpoint reads
 * fails `check`. The pack is support/packed-cannery.ts's, shared with package.test.ts.
 */
import { existsSync } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { DuckDBInstance } from '#duckdb-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installInFreshFolder, packedTarball, run, serveInstalled } from '../support/packed-cannery.js';

let dir: string;
let user: string;
const npx = (args: string[]) => run('npx', ['--no', 'cannery', ...args], user);
/** A command line as the user types it, redirection and all. */
const shell = (line: string) => run('sh', ['-c', line], user);

beforeAll(async () => {
  ({ dir, project: user } = await installInFreshFolder(await packedTarball(), 'my-shop'));
  const init = await npx(['init']);
  expect(init.code, init.stderr).toBe(0);
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** `npx cannery sources infer FILE --name NAME > sources/NAME.yaml`, then `npx cannery import --source NAME FILE`. */
async function declareAndLoad(file: string, name: string, rows: number): Promise<string> {
  const inferred = await shell(`npx --no cannery sources infer ${file} --name ${name} > sources/${name}.yaml`);
  expect(inferred.code, inferred.stderr).toBe(0);
  const text = await readFile(join(user, 'sources', `${name}.yaml`), 'utf8');
  // The editor hint resolves in this repository: the schema is in node_modules/cannery.
  const schema = /^# yaml-language-server: \$schema=(\S+)\n/.exec(text)?.[1];
  expect(schema).toBe('../node_modules/cannery/schemas/source.schema.json');
  expect(existsSync(join(user, 'sources', schema!))).toBe(true);
  const imported = await npx(['import', '--source', name, file]);
  expect(imported.code, imported.stderr).toBe(0);
  expect(imported.stderr).toContain(`: ${rows} row(s) `);
  expect(imported.stderr).toContain(`into ${name} in ./data/cannery.duckdb`);
  return text;
}

async function endpoint(name: string, id: string, params: string, query: string): Promise<void> {
  await writeFile(
    join(user, 'endpoints', `${name}.yaml`),
    [`id: ${id}`, `name: ${name}`, 'description: An endpoint over my own table.', 'language: bq_sql', 'max_rows: 100', 'cache: false', 'sandbox: false', 'redact_pii: false', `params:\n${params}`, `query: |\n  ${query}`, ''].join('\n'),
  );
}

describe('my own data, from files to a GET', () => {
  it('a CSV file', async () => {
    await writeFile(join(user, 'orders.csv'), 'order_id,customer,total,created_at\no1,ada,12.50,2026-01-02T03:04:05Z\no2,bob,7.25,2026-01-03T10:00:00Z\no3,ada,3.00,2026-01-04T10:00:00Z\n');
    const declared = await declareAndLoad('orders.csv', 'shop.orders', 3);
    expect(declared).toContain('  - { name: total, type: FLOAT64 }');
    await endpoint(
      'shop.orders-of',
      '5e0f7a1c-2b3d-4e5f-8a9b-0c1d2e3f4a01',
      '  customer: { type: string, required: true, description: Whose orders. }',
      'select order_id, total, created_at from `shop.orders` where customer = @customer order by created_at desc',
    );
  });

  it('a Parquet file', async () => {
    const instance = await DuckDBInstance.create(':memory:');
    const connection = await instance.connect();
    try {
      await connection.run(
        `COPY (SELECT * FROM (VALUES ('apple', 3::INTEGER, DATE '2026-01-02'), ('fig', 0::INTEGER, DATE '2026-01-03'), ('pear', 7::INTEGER, DATE '2026-01-04')) AS t(sku, stock, counted_on))
         TO '${join(user, 'stock.parquet')}' (FORMAT parquet)`,
      );
    } finally {
      connection.closeSync();
      instance.closeSync();
    }
    const declared = await declareAndLoad('stock.parquet', 'shop.stock', 3);
    expect(declared).toContain('  - { name: stock, type: INT64 }');
    await endpoint(
      'shop.in-stock',
      '5e0f7a1c-2b3d-4e5f-8a9b-0c1d2e3f4a02',
      '  min: { type: integer, required: true, description: The least stock. }',
      'select sku, stock, counted_on from `shop.stock` where stock >= @min order by sku',
    );
  });

  it('an NDJSON file holding a RECORD and a REPEATED RECORD', async () => {
    await writeFile(
      join(user, 'baskets.ndjson'),
      [
        { basket_id: 'b1', customer: { name: 'ada', tier: 'gold' }, items: [{ sku: 'apple', qty: 3 }, { sku: 'pear', qty: 1 }], placed_at: '2026-01-02T03:04:05Z' },
        { basket_id: 'b2', customer: { name: 'bob', tier: 'silver' }, items: [{ sku: 'fig', qty: 2 }], placed_at: '2026-01-03T03:04:05Z' },
        { basket_id: 'b3', customer: { name: 'ada', tier: 'gold' }, items: [{ sku: 'fig', qty: 5 }], placed_at: '2026-01-04T03:04:05Z' },
      ]
        .map((line) => JSON.stringify(line))
        .join('\n') + '\n',
    );
    const declared = await declareAndLoad('baskets.ndjson', 'shop.baskets', 3);
    expect(declared).toContain('  - name: customer\n    type: RECORD\n');
    expect(declared).toContain('  - name: items\n    type: RECORD\n    mode: REPEATED\n');
    await endpoint(
      'shop.basket-items',
      '5e0f7a1c-2b3d-4e5f-8a9b-0c1d2e3f4a03',
      '  customer: { type: string, required: true, description: Whose baskets. }',
      'select b.basket_id, b.customer.tier, i.sku, i.qty from `shop.baskets` as b cross join unnest(b.items) as i where b.customer.name = @customer order by b.basket_id, i.sku',
    );
  });

  it('check and test pass, and serve answers each endpoint its rows', async () => {
    const check = await npx(['check']);
    expect(check.code, check.stdout + check.stderr).toBe(0);
    expect(check.stderr).toContain('ok: 5 endpoint(s) and 5 test(s) in 2 test file(s) in ./endpoints');
    const test = await npx(['test']);
    expect(test.code, test.stdout + test.stderr).toBe(0);
    expect(test.stdout).toMatch(/5 passed, 0 failed/);

    const { url, stop } = await serveInstalled(user, [], 'my-key');
    try {
      const get = async (path: string) => {
        const response = await fetch(`${url}/api/endpoints/query/${path}`, { headers: { 'x-api-key': 'my-key' } });
        expect(response.status).toBe(200);
        return response.json();
      };
      expect(await get('shop.orders-of?customer=ada')).toEqual({
        result: [
          { order_id: 'o3', total: 3, created_at: 1767520800000000 },
          { order_id: 'o1', total: 12.5, created_at: 1767323045000000 },
        ],
      });
      expect(await get('shop.in-stock?min=1')).toEqual({
        result: [
          { sku: 'apple', stock: 3, counted_on: '2026-01-02' },
          { sku: 'pear', stock: 7, counted_on: '2026-01-04' },
        ],
      });
      expect(await get('shop.basket-items?customer=ada')).toEqual({
        result: [
          { basket_id: 'b1', tier: 'gold', sku: 'apple', qty: 3 },
          { basket_id: 'b1', tier: 'gold', sku: 'pear', qty: 1 },
          { basket_id: 'b3', tier: 'gold', sku: 'fig', qty: 5 },
        ],
      });
    } finally {
      stop();
    }
  });

  it('a declaration losing a column an endpoint reads: the stored table is not changed, and the error says what to run', async () => {
    const file = join(user, 'sources', 'shop.orders.yaml');
    const before = await readFile(file, 'utf8');
    const after = before.replace('  - { name: total, type: FLOAT64 }\n', '');
    expect(after).not.toBe(before);
    await writeFile(file, after);
    const ran = await npx(['run', 'shop.orders-of', 'customer=ada']);
    expect(ran.code).toBe(1);
    expect(ran.stderr).toContain('source shop.orders: column total is stored but no longer declared');
    expect(ran.stderr).toContain('cannery sources drop shop.orders');
  });

  it('... and check fails, naming the endpoint and the column', async () => {
    const check = await npx(['check']);
    expect(check.code).toBe(1);
    expect(check.stdout + check.stderr).toMatch(/endpoints\/shop\.orders-of\.yaml:\d+: .*total/);
  });
});
