/**
 * Hot reload of source files over the real server, on a DuckDB file served read-only: a new
 * source's table is created and an endpoint over it served, a widened declaration migrated, and a
 * change the table cannot take (or a broken file) reported while the previous sources keep serving.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileContextFor } from '../../../src/cli/open-service.js';
import type { SourceDeclaration } from '../../../src/config/source-declaration.js';
import { readProjectSources } from '../../../src/config/source-model.js';
import { startHotReload, type HotReload } from '../../../src/engine/serve/hot-reload.js';
import { endpointText } from '../../support/endpoint-text.js';
import { startTestService, type TestService } from '../../support/service.js';
import { eventually } from '../../support/eventually.js';

const orders = (columns: string[]) => ['name: shop.orders', 'columns:', ...columns.map((column) => `  - ${column}`), ''].join('\n');
const ORDERS = orders(['{ name: order_id, type: STRING }', '{ name: total, type: INT64 }']);

let svc: TestService;
let reload: HotReload;
/** The declarations served, as `serve` hands them to the app for the catalog. */
let served: readonly SourceDeclaration[] = [];
let sources: string;
let endpoints: string;
const log: string[] = [];

beforeAll(async () => {
  sources = await mkdtemp(join(tmpdir(), 'cannery-reload-sources-'));
  await writeFile(join(sources, 'shop.orders.yaml'), ORDERS);
  svc = await startTestService({
    endpoints: { 'orders.yaml': endpointText('orders.count', [], ['select count(*) as n from `shop.orders`']) },
    env: { CANNERY_SOURCES: sources },
    declaredSources: () => served,
  });
  endpoints = join(svc.dir, 'endpoints');
  const declared = (await readProjectSources(sources)).sources;
  served = declared;
  reload = startHotReload({
    service: svc.service,
    dir: endpoints,
    context: () => compileContextFor(svc.service.backend),
    log: (line) => log.push(line),
    settleMs: 20,
    sources: { dir: sources, declared },
    onSources: (next) => (served = next),
  });
});
afterAll(async () => {
  reload.close();
  await svc.close();
  await rm(sources, { recursive: true, force: true });
});

const answer = async (name: string) => {
  const { status, body } = await svc.call(`/api/endpoints/query/${name}`);
  return { status, result: body.result, code: body.error?.code };
};

describe('hot reload of source files', () => {
  it('creates the table of a new source file and serves an endpoint over it', async () => {
    expect(await answer('orders.count')).toEqual({ status: 200, result: [{ n: 0 }], code: undefined });
    await writeFile(join(sources, 'shop.items.yaml'), 'name: shop.items\ncolumns:\n  - { name: sku, type: STRING }\n');
    await writeFile(join(endpoints, 'items.yaml'), endpointText('items.count', [], ['select count(sku) as n from `shop.items`']));
    await eventually(async () => expect(await answer('items.count')).toEqual({ status: 200, result: [{ n: 0 }], code: undefined }));
    expect(log).toContain(`reload: serving 2 declared source(s) from ${sources}`);
  });

  it('gives the console the columns of a CTE over the new source, typed from its declaration', async () => {
    const sandboxed = endpointText('items.sandbox', [], ['with items as (select sku from `shop.items`)', 'select count(*) as n from items']).replace('sandbox: false', 'sandbox: true');
    await writeFile(join(endpoints, 'items-sandbox.yaml'), sandboxed);
    await eventually(async () => {
      const { body } = await svc.call('/api/endpoints');
      const entry = body.endpoints.find((endpoint: { name: string }) => endpoint.name === 'items.sandbox');
      expect(entry?.ctes).toEqual([{ name: 'items', columns: [{ name: 'sku', type: 'string' }] }]);
    });
  });

  it('migrates a widened declaration with a new column, and compiles the endpoints over it again', async () => {
    // Over the column before it is declared: the endpoint does not compile, and is not served.
    await writeFile(join(endpoints, 'notes.yaml'), endpointText('orders.notes', [], ['select max(note) as note, sum(total) as total from `shop.orders`']));
    await eventually(async () => expect(log.some((line) => line.includes('notes.yaml') && line.includes('note'))).toBe(true));
    expect((await answer('orders.notes')).status).toBe(404);
    await writeFile(join(sources, 'shop.orders.yaml'), orders(['{ name: order_id, type: STRING }', '{ name: total, type: NUMERIC }', '{ name: note, type: STRING }']));
    await eventually(async () => expect(await answer('orders.notes')).toEqual({ status: 200, result: [{ note: null, total: null }], code: undefined }));
    expect(await answer('orders.count')).toMatchObject({ status: 200, result: [{ n: 0 }] });
  });

  it('keeps serving the previous sources when a change would reinterpret stored values, saying why and what to run', async () => {
    const before = log.length;
    await writeFile(join(sources, 'shop.orders.yaml'), orders(['{ name: order_id, type: INT64 }', '{ name: total, type: NUMERIC }', '{ name: note, type: STRING }']));
    await eventually(async () => expect(log.slice(before).some((line) => line.includes('still serving the previous sources'))).toBe(true));
    const refusal = log.slice(before).find((line) => line.includes('still serving the previous sources'))!;
    expect(refusal).toContain('source shop.orders: order_id:');
    expect(refusal).toContain('cannery sources drop shop.orders');
    expect(await answer('orders.notes')).toMatchObject({ status: 200, result: [{ note: null }] });
    expect(await answer('items.count')).toMatchObject({ status: 200, result: [{ n: 0 }] });
    expect((await svc.get('/health')).status).toBe(200);
  });

  it('reports a broken source file at its line and keeps serving', async () => {
    const before = log.length;
    await writeFile(join(sources, 'shop.items.yaml'), 'name: shop.items\ncolumns:\n  - { name: sku, type: STRIN }\n');
    await eventually(async () => expect(log.slice(before).some((line) => line.includes('still serving the previous sources'))).toBe(true));
    expect(log.slice(before).some((line) => line.includes(`${join(sources, 'shop.items.yaml')}:3`))).toBe(true);
    expect(await answer('items.count')).toMatchObject({ status: 200, result: [{ n: 0 }] });
  });
});
