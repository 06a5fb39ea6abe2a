/**
 * A project's declared source on the BigQuery backend: the table sent to BigQuery is the file's
 * `bigquery.table` when it names one, else CANNERY_BQ_DATASET and the name with `_`.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openService } from '../../../src/cli/open-service.js';
import { readSettings } from '../../../src/config/settings.js';
import { createLogger } from '../../../src/core/logger.js';
import type { Service } from '../../../src/engine/serve/service.js';
import { createApp } from '../../../src/http/app.js';
import { listen, type RunningServer } from '../../../src/http/server.js';
import { restRows, startFakeBigQuery, type FakeBigQuery } from '../../support/bigquery-server.js';
import { endpointText } from '../../support/endpoint-text.js';
import { TEST_KEY } from '../../support/service.js';

let project: string;
let fake: FakeBigQuery;
let service: Service;
let server: RunningServer;

beforeAll(async () => {
  project = await mkdtemp(join(tmpdir(), 'cannery-bq-sources-'));
  await mkdir(join(project, 'endpoints'));
  await mkdir(join(project, 'sources'));
  await writeFile(
    join(project, 'sources', 'shop.orders.yaml'),
    'name: shop.orders\ncolumns:\n  - { name: order_id, type: STRING }\n  - { name: customer, type: STRING }\n',
  );
  await writeFile(
    join(project, 'sources', 'shop.customers.yaml'),
    'name: shop.customers\ncolumns:\n  - { name: id, type: STRING }\n  - { name: name, type: STRING }\nbigquery:\n  table: other-proj.crm.customers\n',
  );
  await writeFile(
    join(project, 'endpoints', 'orders.yaml'),
    endpointText('shop.orders-of', ['customer: { type: string, required: true }'], [
      'select o.order_id, c.name from `shop.orders` as o join `shop.customers` as c on c.id = o.customer where o.customer = @customer',
    ]),
  );
  fake = await startFakeBigQuery();
  fake.answer(() => ({ result: { schema: { fields: [{ name: 'order_id', type: 'STRING' }, { name: 'name', type: 'STRING' }] }, rows: restRows([{ name: 'order_id', type: 'STRING' }, { name: 'name', type: 'STRING' }], [{ order_id: 'o-1', name: 'Ada' }]) } }));
  const settings = {
    ...readSettings({ CANNERY_BACKEND: 'bigquery', CANNERY_BQ_PROJECT: 'test-proj', CANNERY_BQ_DATASET: 'shop', CANNERY_BQ_API_ENDPOINT: fake.url }),
    endpointsDir: join(project, 'endpoints'),
  };
  service = await openService(settings);
  server = await listen(createApp({ service, apiKeys: [TEST_KEY], logger: createLogger('silent') }), { port: 0, host: '127.0.0.1' });
});

afterAll(async () => {
  await server?.close();
  await service?.close();
  await service?.backend.close();
  await fake?.close();
  await rm(project, { recursive: true, force: true });
});

describe('a declared source on BigQuery', () => {
  it("sends the mapped tables' names and answers the rows", async () => {
    const response = await fetch(`${server.url}/api/endpoints/query/shop.orders-of?customer=c-1`, { headers: { 'x-api-key': TEST_KEY } });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ result: [{ order_id: 'o-1', name: 'Ada' }] });
    const sent = String(fake.queries().at(-1)?.query);
    expect(sent).toContain('`test-proj.shop.shop_orders`');
    expect(sent).toContain('`other-proj.crm.customers`');
  });
});
