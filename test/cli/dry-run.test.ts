/**
 * `cannery check --dry-run`, as CI runs it (the built CLI in a child process), against a local
 * server that speaks BigQuery's REST API: endpoints' dry runs, and a project's declared sources
 * against their tables. `npm test` builds dist/ first (pretest).
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { cannery as runCli, CLI, type Run } from '../support/cannery-cli.js';
import { startFakeBigQuery, type FakeBigQuery, type SchemaField } from '../support/bigquery-server.js';
import { endpointText } from '../support/endpoint-text.js';
import { SHIPPED_ENDPOINTS as SHIPPED } from '../support/shipped-endpoints.js';

function cannery(args: string[], env: Record<string, string>): Promise<Run> {
  return runCli(args, { env });
}

let fake: FakeBigQuery;
let env: Record<string, string>;
beforeAll(async () => {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run npm run build first`);
  fake = await startFakeBigQuery();
  env = { CANNERY_BQ_PROJECT: 'test-proj', CANNERY_BQ_DATASET: 'logs', CANNERY_BQ_API_ENDPOINT: fake.url };
});
afterAll(() => fake?.close());
beforeEach(() => {
  fake.requests.length = 0;
});

describe('cannery check --dry-run', () => {
  it('prints the bytes each endpoint would scan, from a BigQuery dry run of its compiled SQL', async () => {
    fake.answer((body) => ({ dryRunBytes: body.query.includes('bucketed') ? 52_428_800 : 1_288_490_188 }));
    const run = await cannery(['check', '--dry-run', '--endpoints', SHIPPED], env);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout.trim().split('\n').sort()).toEqual([
      expect.stringMatching(/logs\.all\.yaml: logs\.all would scan 1\.2 GiB \(1288490188 bytes\)$/),
      expect.stringMatching(/usage\.api-counts\.yaml: usage\.api-counts would scan 50\.0 MiB \(52428800 bytes\)$/),
    ]);
    expect(run.stderr).toContain('ok: 2 endpoint(s)');
    const sent = fake.queries();
    expect(sent).toHaveLength(2);
    for (const body of sent) {
      expect(body).toMatchObject({ dryRun: true, useLegacySql: false, parameterMode: 'NAMED' });
      expect(body.query).toContain('`test-proj.logs.cloudflare_logs_prod`');
      for (const parameter of body.queryParameters) expect(parameter.parameterValue).toEqual({ value: null });
    }
  });

  it('exits 1 naming the endpoint BigQuery refuses, in source names', async () => {
    fake.answer((body) =>
      body.query.includes('bucketed')
        ? { error: { status: 400, reason: 'invalidQuery', message: 'Unrecognized name: pathh at [1:30]; in test-proj:logs.cloudflare_logs_prod' } }
        : { dryRunBytes: 10 },
    );
    const run = await cannery(['check', '--dry-run', '--endpoints', SHIPPED], env);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('logs.all would scan 10 bytes (10 bytes)');
    expect(run.stdout).toMatch(
      /usage\.api-counts\.yaml: BigQuery dry run failed: usage\.api-counts: BigQuery could not run the query \(invalidQuery\): Unrecognized name: pathh; in cloudflare\.logs\.prod$/m,
    );
    expect(run.stderr).toContain('1 endpoint(s) failed the BigQuery dry run');
  });

  it('needs the BigQuery project and dataset', async () => {
    const run = await cannery(['check', '--dry-run', '--endpoints', SHIPPED], { CANNERY_BQ_API_ENDPOINT: fake.url });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('CANNERY_BQ_PROJECT must be set for BigQuery');
    expect(fake.requests).toEqual([]);
  });
});

describe('cannery check --dry-run, declared sources', () => {
  const SOURCE = [
    'name: shop.orders',
    'columns:',
    '  - { name: order_id, type: STRING, mode: REQUIRED }',
    '  - { name: customer, type: STRING }',
    '  - { name: total, type: NUMERIC }',
    '  - { name: tags, type: STRING }',
    '  - { name: coupon, type: STRING }',
    '  - name: items',
    '    type: RECORD',
    '    mode: REPEATED',
    '    fields:',
    '      - { name: sku, type: STRING }',
    '      - { name: qty, type: INT64 }',
    '      - { name: gift, type: BOOL }',
    'bigquery:',
    '  table: test-proj.shop.orders',
    '',
  ].join('\n');
  /** The table as declared, in BigQuery's legacy names. */
  const AS_DECLARED: SchemaField[] = [
    { name: 'order_id', type: 'STRING', mode: 'REQUIRED' },
    { name: 'customer', type: 'STRING', mode: 'NULLABLE' },
    { name: 'total', type: 'NUMERIC' },
    { name: 'tags', type: 'STRING' },
    { name: 'coupon', type: 'STRING' },
    {
      name: 'items',
      type: 'RECORD',
      mode: 'REPEATED',
      fields: [
        { name: 'sku', type: 'STRING' },
        { name: 'qty', type: 'INTEGER' },
        { name: 'gift', type: 'BOOLEAN' },
      ],
    },
  ];
  let project: string;
  beforeAll(async () => {
    project = await mkdtemp(join(tmpdir(), 'cannery-dry-run-'));
    await mkdir(join(project, 'endpoints'));
    await mkdir(join(project, 'sources'));
    await writeFile(join(project, 'sources', 'shop.orders.yaml'), SOURCE);
    await writeFile(
      join(project, 'endpoints', 'orders.yaml'),
      endpointText('shop.orders-of', ['customer: { type: string, required: true }'], ['select order_id, total from `shop.orders` where customer = @customer']),
    );
  });
  afterAll(() => rm(project, { recursive: true, force: true }));
  const check = () => runCli(['check', '--dry-run', '--endpoints', 'endpoints'], { cwd: project, env });

  it("passes a declaration that matches its table, legacy type names and all, and dry-runs the endpoint over the mapped table", async () => {
    fake.table('test-proj.shop.orders', { schema: { fields: AS_DECLARED } });
    fake.answer(() => ({ dryRunBytes: 2048 }));
    const run = await check();
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toBe(
      ['sources/shop.orders.yaml: source shop.orders matches test-proj.shop.orders', 'endpoints/orders.yaml: shop.orders-of would scan 2.0 KiB (2048 bytes)', ''].join('\n'),
    );
    expect(fake.tableReads()).toEqual(['test-proj.shop.orders']);
    expect(fake.queries()[0]?.query).toContain('`test-proj.shop.orders`');
  });

  it('names every difference at the line that declares it, nested fields alike, and exits 1', async () => {
    fake.table('test-proj.shop.orders', {
      schema: {
        fields: [
          { name: 'order_id', type: 'STRING', mode: 'REQUIRED' },
          { name: 'Customer', type: 'STRING' },
          { name: 'total', type: 'FLOAT' },
          { name: 'tags', type: 'STRING', mode: 'REPEATED' },
          {
            name: 'items',
            type: 'RECORD',
            mode: 'REPEATED',
            fields: [
              { name: 'sku', type: 'STRING', mode: 'REQUIRED' },
              { name: 'qty', type: 'STRING' },
              { name: 'weight', type: 'FLOAT' },
            ],
          },
          { name: 'discount', type: 'NUMERIC' },
        ],
      },
    });
    fake.answer(() => ({ dryRunBytes: 10 }));
    const run = await check();
    expect(run.code).toBe(1);
    const table = 'test-proj.shop.orders';
    expect(run.stdout.trim().split('\n')).toEqual([
      `sources/shop.orders.yaml:4: source shop.orders: column customer is spelled Customer in ${table}`,
      `sources/shop.orders.yaml:5: source shop.orders: column total is declared NUMERIC; ${table} has it FLOAT64`,
      `sources/shop.orders.yaml:6: source shop.orders: column tags is declared NULLABLE; ${table} has it REPEATED`,
      `sources/shop.orders.yaml:7: source shop.orders: column coupon is declared, but ${table} has no such column`,
      `sources/shop.orders.yaml:12: source shop.orders: column items.sku is declared NULLABLE; ${table} has it REQUIRED`,
      `sources/shop.orders.yaml:13: source shop.orders: column items.qty is declared INT64; ${table} has it STRING`,
      `sources/shop.orders.yaml:14: source shop.orders: column items.gift is declared, but ${table} has no such column`,
      `sources/shop.orders.yaml:8: source shop.orders: ${table} has column items.weight (FLOAT64, NULLABLE), which is not declared`,
      `sources/shop.orders.yaml:1: source shop.orders: ${table} has column discount (NUMERIC, NULLABLE), which is not declared`,
      'endpoints/orders.yaml: shop.orders-of would scan 10 bytes (10 bytes)',
    ]);
    expect(run.stderr).toContain('9 difference(s) between the declared sources and their BigQuery tables');
  });

  it("exits 1 naming a declared source whose table BigQuery does not have", async () => {
    fake.table('test-proj.shop.orders', undefined);
    fake.table('test-proj.shop.customers', { schema: { fields: [{ name: 'id', type: 'STRING' }] } });
    fake.answer(() => ({ dryRunBytes: 10 }));
    const run = await check();
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(
      'sources/shop.orders.yaml:1: source shop.orders: BigQuery has no table test-proj.shop.orders (Not found: Table test-proj:shop.orders)\n',
    );
    expect(run.stderr).toContain('1 difference(s) between the declared sources and their BigQuery tables');
  });
});
