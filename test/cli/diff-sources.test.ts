/**
 * `cannery diff` and `cannery check` over a change of a project's source files, in a real git
 * repository: the source's changes are shown, and an endpoint reading a removed or retyped column
 * is broken by it (listed even though its own file did not change), while an added column breaks
 * nothing; `check` names the endpoint's line that reads what is gone.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cannery } from '../support/cannery-cli.js';
import { endpointText, lineOf } from '../support/endpoint-text.js';
import { git } from '../support/git-repo.js';
import { SHOP_ORDERS } from '../support/shop-orders.js';

const ORDERS = SHOP_ORDERS;

const TOTALS = endpointText('shop.totals', ['customer: { type: string, required: true }'], [
  'select o.order_id,',
  '  o.total',
  'from `shop.orders` as o',
  'where o.customer = @customer',
]);
const QUANTITIES = endpointText('shop.quantities', [], ['select i.sku, i.qty from `shop.orders` as o cross join unnest(o.items) as i']);

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cannery-diff-sources-'));
  await git(['init', '--quiet', '--initial-branch', 'main'], dir);
  await mkdir(join(dir, 'endpoints'));
  await mkdir(join(dir, 'sources'));
  await writeFile(join(dir, 'sources', 'shop.orders.yaml'), ORDERS);
  await writeFile(join(dir, 'endpoints', 'totals.yaml'), TOTALS);
  await writeFile(join(dir, 'endpoints', 'quantities.yaml'), QUANTITIES);
  await git(['add', '.'], dir);
  await git(['commit', '--quiet', '-m', 'orders'], dir);
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const source = (text: string) => writeFile(join(dir, 'sources', 'shop.orders.yaml'), text);

describe('cannery diff of source files', () => {
  it('an added column is compatible and breaks no endpoint', async () => {
    await source(ORDERS.replace('  - name: items', '  - { name: note, type: STRING }\n  - name: items'));
    const run = await cannery(['diff', '--fail-on', 'breaking'], { cwd: dir });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('source shop.orders: changed (sources/shop.orders.yaml)\n  compatible column note added (STRING)\n');
    expect(run.stdout.trimEnd().split('\n').at(-1)).toBe('1 source(s) changed; no endpoint changed');
  });

  it('a removed and a retyped column break the endpoints that read them; check names the line', async () => {
    await source(ORDERS.replace('  - { name: total, type: NUMERIC }\n', '').replace('{ name: qty, type: INT64 }', '{ name: qty, type: STRING }'));
    const run = await cannery(['diff', '--fail-on', 'breaking'], { cwd: dir });
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(
      [
        'source shop.orders: changed (sources/shop.orders.yaml)',
        '  breaking   column total removed: read by shop.totals',
        '  breaking   column items.qty retyped INT64 -> STRING: read by shop.quantities',
        '',
        'shop.totals: affected (endpoints/totals.yaml)',
        '  breaking   reads shop.orders.total: column total removed (sources/shop.orders.yaml)',
        '',
        'shop.quantities: affected (endpoints/quantities.yaml)',
        '  breaking   reads shop.orders.items.qty: column items.qty retyped INT64 -> STRING (sources/shop.orders.yaml)',
      ].join('\n'),
    );
    expect(run.stdout.trimEnd().split('\n').at(-1)).toBe('1 source(s) changed; 2 endpoint(s) changed: 2 breaking change(s), 0 compatible');

    const check = await cannery(['check'], { cwd: dir });
    expect(check.code).toBe(1);
    expect(check.stdout.trimEnd()).toBe(
      `endpoints/totals.yaml:${lineOf(TOTALS, 'o.total')}: Name total not found inside o (shop.orders); its columns: order_id, customer, items (query)`,
    );
  });
});
