/**
 * `cannery new` in a project that declares its own sources: the endpoint reads the first declared
 * one (or `--source`), and its files pass `check` and `test` as written, for a source with a
 * filter column and a time column, and for one with neither (every type, nested records too).
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cannery } from '../support/cannery-cli.js';

let folder: string;
beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'cannery-new-declared-'));
  await mkdir(join(folder, 'sources'));
  await writeFile(
    join(folder, 'sources', 'shop.orders.yaml'),
    [
      'name: shop.orders',
      'time_column: created_at',
      'columns:',
      '  - { name: order_id, type: STRING, mode: REQUIRED }',
      '  - { name: total, type: NUMERIC }',
      '  - { name: created_at, type: TIMESTAMP, mode: REQUIRED }',
      '  - { name: tags, type: STRING, mode: REPEATED }',
      '  - { name: items, type: RECORD, mode: REPEATED, fields: [ { name: sku, type: STRING }, { name: qty, type: INT64 } ] }',
      '',
    ].join('\n'),
  );
  await writeFile(
    join(folder, 'sources', 'sensors.yaml'),
    [
      'name: sensors',
      'columns:',
      '  - { name: reading, type: FLOAT64, mode: REQUIRED }',
      '  - { name: ok, type: BOOL }',
      '  - { name: day, type: DATE }',
      '  - { name: at, type: TIME }',
      '  - { name: raw, type: BYTES }',
      '  - { name: extra, type: JSON }',
      '  - { name: place, type: RECORD, fields: [ { name: lat, type: FLOAT64 }, { name: n, type: INTEGER } ] }',
      '',
    ].join('\n'),
  );
});
afterAll(() => rm(folder, { recursive: true, force: true }));

describe('cannery new over declared sources', () => {
  it('reads the first declared source by default, offers the others, and passes check and test', async () => {
    const made = await cannery(['new', 'orders.recent'], { cwd: folder });
    expect(made.code, made.stderr).toBe(0);
    expect(made.stderr).toContain('over sensors; `--source NAME` reads another: shop.orders, cloudflare.logs.prod,');
    const madeOrders = await cannery(['new', 'orders.by-id', '--source', 'shop.orders'], { cwd: folder });
    expect(madeOrders.code, madeOrders.stderr).toBe(0);
    const endpoint = await readFile(join(folder, 'endpoints', 'orders.by-id.yaml'), 'utf8');
    expect(endpoint).toContain('  select t.order_id, t.total, t.created_at\n  from `shop.orders` as t\n  where t.order_id = @order_id\n  order by t.created_at desc\n');
    expect(endpoint).toContain("# BigQuery Standard SQL. Sources are read by name in backticks: the project's own\n# (sensors, shop.orders) and the log sources");

    const checked = await cannery(['check', '--backend', 'duckdb'], { cwd: folder });
    expect(checked.code, checked.stdout + checked.stderr).toBe(0);
    const tested = await cannery(['test'], { cwd: folder });
    expect(tested.stdout).toMatch(/4 passed, 0 failed/);
    expect(tested.code, tested.stdout).toBe(0);
  });

  it('refuses a --source that is no source, with a close spelling', async () => {
    const run = await cannery(['new', 'x.y', '--source', 'shop.order'], { cwd: folder });
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain('--source shop.order is not a source (did you mean "shop.orders"?)');
  });
});
