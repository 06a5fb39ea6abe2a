/**
 * `cannery check` over a project's own sources (sources/ beside endpoints/, `--sources`,
 * CANNERY_SOURCES): an endpoint reads a declared source by name, a near miss is named with the
 * source it likely meant, and a source file's problem is a check problem at its file and line.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cannery } from '../support/cannery-cli.js';
import { endpointText, lineOf } from '../support/endpoint-text.js';
import { SHOP_ORDERS } from '../support/shop-orders.js';

const ORDERS = `# yaml-language-server: $schema=../schemas/source.schema.json\n${SHOP_ORDERS}`;

const BY_CUSTOMER = endpointText('shop.by-customer', ['customer: { type: string, required: true }'], [
  'select o.order_id, o.total, i.sku from `shop.orders` as o cross join unnest(o.items) as i where o.customer = @customer',
]);

let project: string;
beforeAll(async () => {
  project = await mkdtemp(join(tmpdir(), 'cannery-check-sources-'));
  await mkdir(join(project, 'endpoints'));
  await mkdir(join(project, 'sources'));
  await mkdir(join(project, 'elsewhere'));
  await writeFile(join(project, 'sources', 'shop.orders.yaml'), ORDERS);
  await writeFile(join(project, 'endpoints', 'by-customer.yaml'), BY_CUSTOMER);
});
afterAll(() => rm(project, { recursive: true, force: true }));

describe('cannery check with declared sources', () => {
  it('reads sources/ beside endpoints/ for both backends; without it the table is unknown', async () => {
    const ok = await cannery(['check', '--endpoints', join(project, 'endpoints')]);
    expect(ok.stdout).toBe('');
    expect(ok).toMatchObject({ code: 0 });
    const without = await cannery(['check', '--endpoints', join(project, 'endpoints'), '--sources', join(project, 'elsewhere')]);
    expect(without.code).toBe(1);
    expect(without.stdout).toContain(`by-customer.yaml:${lineOf(BY_CUSTOMER, 'select')}: table \`shop.orders\` is neither a known source nor a CTE`);
  });

  it('names a near miss, and a broken source file at its line, from CANNERY_SOURCES', async () => {
    await writeFile(join(project, 'elsewhere', 'shop.order.yaml'), ORDERS.replace('name: shop.orders', 'name: shop.order'));
    await writeFile(join(project, 'elsewhere', 'broken.yaml'), 'name: broken\ncolumns:\n  - { name: x, type: RECORD }\n');
    const run = await cannery(['check', '--endpoints', join(project, 'endpoints')], { env: { CANNERY_SOURCES: join(project, 'elsewhere') } });
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(`${join(project, 'elsewhere', 'broken.yaml')}:3: column x is a RECORD and must list its fields`);
    expect(run.stdout).toContain('table `shop.orders` is neither a known source nor a CTE (did you mean "shop.order"?)');
  });
});
