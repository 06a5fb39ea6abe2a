/** CANNERY_BQ_* settings: what is accepted, and what is refused at start-up with a reason. */
import { describe, expect, it } from 'vitest';
import { bigQueryBackendOptions, createBigQueryBackend } from '../../src/backends/bigquery/backend.js';
import { readSettings } from '../../src/config/settings.js';
import { sourceNames } from '../../src/config/sources.js';

const BASE = { CANNERY_BACKEND: 'bigquery', CANNERY_BQ_PROJECT: 'my-project', CANNERY_BQ_DATASET: 'logs' };

describe('BigQuery settings', () => {
  it('reads every setting', () => {
    const settings = readSettings({
      ...BASE,
      CANNERY_BQ_LOCATION: 'europe-west1',
      CANNERY_BQ_API_ENDPOINT: 'http://127.0.0.1:9050/',
      CANNERY_BQ_MAX_BYTES_BILLED: '10000000000',
      CANNERY_BQ_TABLES: JSON.stringify({ 'cloudflare.logs.prod': 'other-proj.edge.requests', 'postgres.logs': 'pg.postgres_logs' }),
      CANNERY_QUERY_TIMEOUT_MS: '30000',
    });
    expect(settings.backend).toBe('bigquery');
    expect(settings.queryTimeoutMs).toBe(30_000);
    expect(settings.bigquery).toEqual({
      project: 'my-project',
      dataset: 'logs',
      location: 'europe-west1',
      apiEndpoint: 'http://127.0.0.1:9050',
      maxBytesBilled: '10000000000',
      tables: {
        'cloudflare.logs.prod': { project: 'other-proj', dataset: 'edge', table: 'requests' },
        'postgres.logs': { project: 'my-project', dataset: 'pg', table: 'postgres_logs' },
      },
    });
  });

  it('maps every source: overrides as given, the rest in the dataset under their sanitised names', () => {
    const settings = readSettings({ ...BASE, CANNERY_BQ_TABLES: '{"storage.logs.prod.2":"example.com:corp-logs.storage.events 2024"}' });
    const { tables, project } = bigQueryBackendOptions(settings.bigquery, sourceNames());
    expect(project).toBe('my-project');
    expect(tables.get('storage.logs.prod.2')).toEqual({ project: 'example.com:corp-logs', dataset: 'storage', table: 'events 2024' });
    expect(tables.get('deno-relay-logs')).toEqual({ project: 'my-project', dataset: 'logs', table: 'deno_relay_logs' });
    expect(tables.size).toBe(9);
  });

  it('needs no dataset when every source has its own table', () => {
    const tables = Object.fromEntries(sourceNames().map((source, i) => [source, `p${i}-project.d.t${i}`]));
    const settings = readSettings({ CANNERY_BACKEND: 'bigquery', CANNERY_BQ_PROJECT: 'my-project', CANNERY_BQ_TABLES: JSON.stringify(tables) });
    expect(bigQueryBackendOptions(settings.bigquery, sourceNames()).tables.get('postgres.logs')).toEqual({ project: 'p1-project', dataset: 'd', table: 't1' });
  });

  it("maps a declared source by CANNERY_BQ_TABLES over its file's bigquery.table, and refuses an entry that names no source", () => {
    const declared = [
      { name: 'shop.orders', columns: [{ name: 'id', type: 'STRING' as const, mode: 'NULLABLE' as const }], bigqueryTable: 'file-project.shop.orders' },
      { name: 'shop.items', columns: [{ name: 'id', type: 'STRING' as const, mode: 'NULLABLE' as const }] },
    ];
    const settings = readSettings({ ...BASE, CANNERY_BQ_TABLES: '{"shop.orders":"env-project.prod.orders","shop.items":"stock.items"}' });
    const { tables } = bigQueryBackendOptions(settings.bigquery, sourceNames(), declared);
    expect(tables.get('shop.orders')).toEqual({ project: 'env-project', dataset: 'prod', table: 'orders' });
    expect(tables.get('shop.items')).toEqual({ project: 'my-project', dataset: 'stock', table: 'items' });
    const misspelt = readSettings({ ...BASE, CANNERY_BQ_TABLES: '{"shop.order":"d.t"}' });
    expect(() => bigQueryBackendOptions(misspelt.bigquery, sourceNames(), declared)).toThrow(/CANNERY_BQ_TABLES: "shop\.order" is not a source \(did you mean "shop\.orders"\?\)/);
    const logTypo = readSettings({ ...BASE, CANNERY_BQ_TABLES: '{"cloudflare.log.prod":"d.t"}' });
    expect(() => bigQueryBackendOptions(logTypo.bigquery, sourceNames())).toThrow(/"cloudflare\.log\.prod" is not a source \(did you mean "cloudflare\.logs\.prod"\?\)/);
  });

  it("takes new declarations while serving (a source file's hot reload): the new source's table mapped, CANNERY_BQ_TABLES still winning", async () => {
    const column = { name: 'id', type: 'STRING' as const, mode: 'NULLABLE' as const };
    const settings = readSettings({ ...BASE, CANNERY_BQ_TABLES: '{"shop.orders":"sales.orders"}' });
    const orders = { name: 'shop.orders', columns: [column], bigqueryTable: 'file-project.shop.orders' };
    const backend = createBigQueryBackend(bigQueryBackendOptions(settings.bigquery, sourceNames(), [orders]));
    const mapped = () => new Map(backend.dialect.settings.name === 'bigquery' ? backend.dialect.settings.tables : []);
    expect(mapped().has('shop.items')).toBe(false);
    await backend.redeclare!([orders, { name: 'shop.items', columns: [column] }]);
    expect(mapped().get('shop.items')).toEqual({ project: 'my-project', dataset: 'logs', table: 'shop_items' });
    expect(mapped().get('shop.orders')).toEqual({ project: 'my-project', dataset: 'sales', table: 'orders' });
  });

  it('is not required for the duckdb backend, but is still checked when given', () => {
    expect(readSettings({}).bigquery).toEqual({ project: undefined, dataset: undefined, location: undefined, apiEndpoint: undefined, maxBytesBilled: undefined, tables: {} });
    expect(() => readSettings({ CANNERY_BQ_PROJECT: 'Bad_Project' })).toThrow(/CANNERY_BQ_PROJECT must be a project id/);
  });

  it.each([
    [{ CANNERY_BQ_PROJECT: '' }, /CANNERY_BQ_PROJECT must be set for BigQuery/],
    [{ CANNERY_BQ_DATASET: '' }, /CANNERY_BQ_DATASET must be set for BigQuery: the dataset of the sources without a CANNERY_BQ_TABLES entry \(cloudflare\.logs\.prod, /],
    [{ CANNERY_BQ_DATASET: 'logs`; drop' }, /CANNERY_BQ_DATASET must be a dataset name/],
    [{ CANNERY_BQ_LOCATION: 'us central' }, /CANNERY_BQ_LOCATION must be a location/],
    [{ CANNERY_BQ_API_ENDPOINT: 'localhost:9050' }, /CANNERY_BQ_API_ENDPOINT must be an http\(s\) URL/],
    [{ CANNERY_BQ_MAX_BYTES_BILLED: '10GB' }, /CANNERY_BQ_MAX_BYTES_BILLED must be a whole number of bytes/],
    [{ CANNERY_BQ_MAX_BYTES_BILLED: '0' }, /CANNERY_BQ_MAX_BYTES_BILLED/],
    [{ CANNERY_BQ_TABLES: '{not json' }, /CANNERY_BQ_TABLES must be a JSON object of source name to table: /],
    [{ CANNERY_BQ_TABLES: '["a"]' }, /CANNERY_BQ_TABLES must be a JSON object/],
    [{ CANNERY_BQ_TABLES: '{"postgres.logs":"just-a-table"}' }, /CANNERY_BQ_TABLES\["postgres\.logs"\] must be "project\.dataset\.table" or "dataset\.table"/],
    [{ CANNERY_BQ_TABLES: '{"postgres.logs":"p-project.d.t`x"}' }, /invalid table name "t`x"/],
    [{ CANNERY_BQ_TABLES: '{"postgres.logs":"P.d.t"}' }, /invalid project id "P"/],
    [{ CANNERY_BQ_TABLES: '{"postgres.logs":7}' }, /must be a string/],
  ])('refuses %o', (env, message) => {
    expect(() => readSettings({ ...BASE, ...env })).toThrow(message);
  });
});
