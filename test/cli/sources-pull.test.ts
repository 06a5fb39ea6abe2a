/**
 * `cannery sources pull PROJECT.DATASET.TABLE`, the built CLI in a child process, with the real
 * BigQuery client pointed at a local server that speaks BigQuery's REST API (tables.get). The
 * printed file is read back by the source file loader, and `check --dry-run` finds it matching the
 * table it came from.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { parseSourceFile } from '../../src/config/source-files.js';
import { cannery } from '../support/cannery-cli.js';
import { startFakeBigQuery, type FakeBigQuery } from '../support/bigquery-server.js';

let fake: FakeBigQuery;
let folder: string;
let env: Record<string, string>;
beforeAll(async () => {
  fake = await startFakeBigQuery();
  folder = await mkdtemp(join(tmpdir(), 'cannery-pull-'));
  env = { CANNERY_BQ_API_ENDPOINT: fake.url };
  // An orders table as BigQuery returns it: legacy type names, a repeated record holding a record, descriptions, day partitions.
  fake.table('test-proj.shop.orders', {
    description: 'One row per order.',
    timePartitioning: { type: 'DAY', field: 'created_at' },
    schema: {
      fields: [
        { name: 'order_id', type: 'STRING', mode: 'REQUIRED', description: 'The id: "o-" and digits' },
        { name: 'qty', type: 'INTEGER' },
        { name: 'total', type: 'NUMERIC' },
        { name: 'paid', type: 'BOOLEAN', mode: 'NULLABLE' },
        { name: 'updated_at', type: 'TIMESTAMP' },
        { name: 'created_at', type: 'TIMESTAMP', mode: 'REQUIRED' },
        { name: 'tags', type: 'STRING', mode: 'REPEATED' },
        { name: 'shipped_to', type: 'GEOGRAPHY' },
        {
          name: 'items',
          type: 'RECORD',
          mode: 'REPEATED',
          fields: [
            { name: 'sku', type: 'STRING' },
            { name: 'price', type: 'FLOAT' },
            { name: 'options', type: 'STRUCT', fields: [{ name: 'gift', type: 'BOOL' }, { name: 'note', type: 'STRING' }] },
          ],
        },
      ],
    },
  });
});
afterAll(async () => {
  await fake?.close();
  await rm(folder, { recursive: true, force: true });
});
beforeEach(() => {
  fake.requests.length = 0;
});

describe('cannery sources pull', () => {
  it("prints the table's schema as a source file: nested and repeated fields, modes, descriptions, standard type names, the partition column as time column", async () => {
    const run = await cannery(['sources', 'pull', 'test-proj.shop.orders'], { env });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe(
      [
        '# yaml-language-server: $schema=../node_modules/cannery/schemas/source.schema.json',
        "# Pulled by `cannery sources pull` from BigQuery's schema of test-proj.shop.orders.",
        '# Left out, as no source file can declare them (endpoints cannot read them): shipped_to (GEOGRAPHY).',
        'name: shop.orders',
        'description: "One row per order."',
        'time_column: created_at',
        'columns:',
        '  - { name: order_id, type: STRING, mode: REQUIRED, description: "The id: \\"o-\\" and digits" }',
        '  - { name: qty, type: INT64 }',
        '  - { name: total, type: NUMERIC }',
        '  - { name: paid, type: BOOL }',
        '  - { name: updated_at, type: TIMESTAMP }',
        '  - { name: created_at, type: TIMESTAMP, mode: REQUIRED }',
        '  - { name: tags, type: STRING, mode: REPEATED }',
        '  - name: items',
        '    type: RECORD',
        '    mode: REPEATED',
        '    fields:',
        '      - { name: sku, type: STRING }',
        '      - { name: price, type: FLOAT64 }',
        '      - name: options',
        '        type: RECORD',
        '        fields:',
        '          - { name: gift, type: BOOL }',
        '          - { name: note, type: STRING }',
        'bigquery:',
        '  table: test-proj.shop.orders',
        '',
      ].join('\n'),
    );
    expect(run.stderr).toBe('cannery: left out shipped_to (GEOGRAPHY): a source file cannot declare it\n');
    expect(fake.tableReads()).toEqual(['test-proj.shop.orders']);
    expect(fake.requests[0]?.query).toMatchObject({ view: 'BASIC' });

    // The loader reads back what was printed, descriptions and all.
    const { declaration, problems } = parseSourceFile(run.stdout, 'shop.orders.yaml');
    expect(problems).toEqual([]);
    expect(declaration?.columns[0]).toEqual({ name: 'order_id', type: 'STRING', mode: 'REQUIRED', description: 'The id: "o-" and digits' });
    expect(declaration?.columns.at(-1)?.fields?.[2]?.fields).toEqual([
      { name: 'gift', type: 'BOOL', mode: 'NULLABLE' },
      { name: 'note', type: 'STRING', mode: 'NULLABLE' },
    ]);

    // Declared as pulled, the source matches its table, the column no file can declare said but not counted.
    await mkdir(join(folder, 'endpoints'), { recursive: true });
    await mkdir(join(folder, 'sources'), { recursive: true });
    await writeFile(join(folder, 'sources', 'shop.orders.yaml'), run.stdout);
    const check = await cannery(['check', '--dry-run', '--endpoints', 'endpoints'], { cwd: folder, env: { ...env, CANNERY_BQ_PROJECT: 'test-proj', CANNERY_BQ_DATASET: 'logs' } });
    expect(check.code, check.stdout + check.stderr).toBe(0);
    expect(check.stdout).toBe(
      [
        'sources/shop.orders.yaml: source shop.orders: test-proj.shop.orders has column shipped_to (GEOGRAPHY), which no source file can declare; not a difference',
        'sources/shop.orders.yaml: source shop.orders matches test-proj.shop.orders',
        '',
      ].join('\n'),
    );
  });

  it('takes --name, and a DATASET.TABLE in CANNERY_BQ_PROJECT', async () => {
    fake.table('test-proj.crm.customer list', { schema: { fields: [{ name: 'id', type: 'INT64', mode: 'REQUIRED' }] } });
    const named = await cannery(['sources', 'pull', 'crm.customer list', '--name', 'crm.customers'], { env: { ...env, CANNERY_BQ_PROJECT: 'test-proj' } });
    expect(named.code, named.stderr).toBe(0);
    expect(named.stdout).toContain('\nname: crm.customers\ncolumns:\n  - { name: id, type: INT64, mode: REQUIRED }\nbigquery:\n  table: "test-proj.crm.customer list"\n');
    // A table's name may hold what a source's cannot: the default name writes it as _.
    const unnamed = await cannery(['sources', 'pull', 'test-proj.crm.customer list'], { env });
    expect(unnamed.stdout).toContain('\nname: crm.customer_list\n');
    expect(fake.tableReads()).toEqual(['test-proj.crm.customer list', 'test-proj.crm.customer list']);
  });

  it('exits 1 naming a table or dataset BigQuery does not have, printing nothing', async () => {
    const table = await cannery(['sources', 'pull', 'test-proj.shop.refunds'], { env });
    expect(table.code).toBe(1);
    expect(table.stdout).toBe('');
    expect(table.stderr).toContain('BigQuery has no table test-proj.shop.refunds: Not found: Table test-proj:shop.refunds');
    const dataset = await cannery(['sources', 'pull', 'test-proj.billing.refunds'], { env });
    expect(dataset.code).toBe(1);
    expect(dataset.stderr).toContain('BigQuery has no table test-proj.billing.refunds: Not found: Dataset test-proj:billing');
  });

  it('refuses a --name no source file can have, printing nothing, and a table not written PROJECT.DATASET.TABLE before asking BigQuery', async () => {
    const badName = await cannery(['sources', 'pull', 'test-proj.shop.orders', '--name', 'shop orders'], { env });
    expect(badName.code).toBe(1);
    expect(badName.stdout).toBe('');
    expect(badName.stderr).toContain('name must be letters, digits and _ in segments joined by . or -');
    const badTable = await cannery(['sources', 'pull', 'orders'], { env });
    expect(badTable.code).toBe(1);
    expect(badTable.stderr).toContain('cannery sources pull: the table must be "project.dataset.table" or "dataset.table" (got "orders")');
    expect(fake.tableReads()).toEqual(['test-proj.shop.orders']);
  });
});
