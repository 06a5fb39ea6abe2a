/**
 * `cannery test` over a declared source: a test file's `events:` gives rows of sources/shop.orders.yaml
 * by its name, loaded by the declared import (types held, nested records too); a name that is no
 * source of the project fails with its file, line and a close spelling.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cannery } from '../support/cannery-cli.js';

let folder: string;
beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'cannery-test-declared-'));
  await mkdir(join(folder, 'sources'));
  await mkdir(join(folder, 'endpoints', 'tests'), { recursive: true });
  await writeFile(
    join(folder, 'sources', 'shop.orders.yaml'),
    [
      'name: shop.orders',
      'time_column: created_at',
      'columns:',
      '  - { name: order_id, type: STRING, mode: REQUIRED }',
      '  - { name: customer, type: STRING }',
      '  - { name: total, type: NUMERIC }',
      '  - { name: created_at, type: TIMESTAMP, mode: REQUIRED }',
      '  - name: items',
      '    type: RECORD',
      '    mode: REPEATED',
      '    fields: [ { name: sku, type: STRING }, { name: qty, type: INT64 } ]',
      '',
    ].join('\n'),
  );
  await writeFile(
    join(folder, 'endpoints', 'orders.by-customer.yaml'),
    [
      'id: 7f1c2a3e-1111-4222-8333-944455556677',
      'name: orders.by-customer',
      'description: Orders of one customer, newest first, with their item count.',
      'language: bq_sql',
      'max_rows: 10',
      'cache: false',
      'sandbox: false',
      'redact_pii: false',
      'params:',
      '  customer: { type: string, required: true, description: The customer. }',
      'query: |',
      '  SELECT order_id, total, (SELECT SUM(i.qty) FROM UNNEST(items) AS i) AS qty',
      '  FROM `shop.orders` WHERE customer = @customer ORDER BY created_at DESC',
      '',
    ].join('\n'),
  );
});
afterAll(() => rm(folder, { recursive: true, force: true }));

const TESTS = [
  'endpoint: orders.by-customer',
  'now: "2026-01-05T00:00:00Z"',
  'events:',
  '  shop.orders:',
  '    - {order_id: o1, customer: ada, total: "12.50", created_at: "2026-01-02T03:04:05Z", items: [{sku: a, qty: 2}, {sku: b, qty: 1}]}',
  '    - {order_id: o2, customer: bob, total: "7.25", created_at: "2026-01-03T10:00:00Z", items: []}',
  '    - {order_id: o3, customer: ada, total: "1", created_at: "2026-01-04T10:00:00Z", items: [{sku: c, qty: 5}]}',
  'tests:',
  '  - name: the customer\'s orders, newest first',
  '    request: {params: {customer: ada}}',
  '    expect:',
  '      rows: [{order_id: o3, total: 1, qty: 5}, {order_id: o1, total: 12.5, qty: 3}]',
  '',
].join('\n');

describe('cannery test with events of a declared source', () => {
  it('loads the rows under the source name and passes', async () => {
    await writeFile(join(folder, 'endpoints', 'tests', 'orders.by-customer.yaml'), TESTS);
    const run = await cannery(['test'], { cwd: folder });
    expect(run.stdout + run.stderr).toContain("✓ the customer's orders, newest first");
    expect(run.code, run.stdout + run.stderr).toBe(0);
  });

  it('fails on a source name the project does not declare, naming file and line, and on a row the declaration refuses', async () => {
    const misspelt = TESTS.replace('  shop.orders:', '  shop.order:');
    await writeFile(join(folder, 'endpoints', 'tests', 'orders.by-customer.yaml'), misspelt);
    const file = join('endpoints', 'tests', 'orders.by-customer.yaml');
    const checked = await cannery(['check', '--backend', 'duckdb'], { cwd: folder });
    expect(checked.code).toBe(1);
    expect(checked.stdout).toContain(`${file}:4: events: "shop.order" is not a source (did you mean "shop.orders"?)`);
    const run = await cannery(['test'], { cwd: folder });
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(`${file}:4: events: "shop.order" is not a source (did you mean "shop.orders"?)`);

    // An INT64 field given text: the importer's error, at the row's line.
    await writeFile(join(folder, 'endpoints', 'tests', 'orders.by-customer.yaml'), TESTS.replace('qty: 5', 'qty: five'));
    const refused = await cannery(['test'], { cwd: folder });
    expect(refused.code).toBe(1);
    expect(refused.stdout).toContain('events.shop.orders[2]: field items[0].qty: "five" is not a valid INT64');
    expect(refused.stdout).toContain(`at ${file}:7`);
  });
});
