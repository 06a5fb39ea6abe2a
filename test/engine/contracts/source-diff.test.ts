/**
 * What a change of source files does (engine/contracts/source-diff.ts): the changes between two
 * declarations, and which endpoints read each removed or retyped column, nested or through UNNEST.
 */
import { describe, expect, it } from 'vitest';
import { parseEndpointFile } from '../../../src/config/endpoint-file.js';
import type { SourceDeclaration } from '../../../src/config/source-declaration.js';
import { parseSourceFile } from '../../../src/config/source-files.js';
import { BUILT_IN_SOURCES } from '../../../src/config/sources.js';
import { offlineCompileContext } from '../../../src/cli/offline-registry.js';
import { compileEndpoint } from '../../../src/engine/compile/compile.js';
import type { CompiledEndpoint } from '../../../src/engine/compiled-endpoint.js';
import { diffSources, sourceReadChanges } from '../../../src/engine/contracts/source-diff.js';
import { sourceColumnsLookup } from '../../../src/sql/analyse/shapes.js';
import { endpointText } from '../../support/endpoint-text.js';
import { SHOP_ORDERS } from '../../support/shop-orders.js';

const ORDERS = SHOP_ORDERS;

function declaration(text: string): SourceDeclaration {
  const { declaration, problems } = parseSourceFile(text, 'sources/shop.orders.yaml');
  expect(problems).toEqual([]);
  return declaration!;
}

function endpoint(name: string, query: string[], sources: SourceDeclaration[]): CompiledEndpoint {
  const text = endpointText(name, [], query);
  const outcome = compileEndpoint({ file: `${name}.yaml`, ...parseEndpointFile(text, `${name}.yaml`) }, offlineCompileContext('duckdb', sources));
  expect(outcome.problems).toEqual([]);
  return outcome.endpoint!;
}

const before = [declaration(ORDERS)];
const totals = endpoint('shop.totals', ['select o.order_id, o.total from `shop.orders` as o'], before);
const quantities = endpoint('shop.quantities', ['select qty from `shop.orders` as o cross join unnest(o.items)'], before);
const everything = endpoint('shop.everything', ['select * from `shop.orders`'], before);
const logs = endpoint('logs.ids', ['select t.id from `cloudflare.logs.prod` as t'], before);
const endpoints = [totals, quantities, everything, logs];
const columns = sourceColumnsLookup(BUILT_IN_SOURCES, before);

function readChanges(after: SourceDeclaration[]) {
  const diffs = diffSources(before, after);
  return { diffs, reads: Object.fromEntries([...sourceReadChanges(endpoints, diffs, before, columns)].map(([name, changes]) => [name, changes.map((change) => `${change.compatibility}: ${change.message}`)])) };
}

describe('diffSources and sourceReadChanges', () => {
  it('finds nothing for the same declarations', () => {
    expect(readChanges(before)).toEqual({ diffs: [], reads: {} });
  });

  it('an added column and a tightened mode break no endpoint', () => {
    const after = declaration(ORDERS.replace('{ name: customer, type: STRING }', '{ name: customer, type: STRING, mode: REQUIRED }').replace('  - name: items', '  - { name: note, type: STRING }\n  - name: items'));
    const { diffs, reads } = readChanges([after]);
    expect(diffs).toEqual([
      {
        name: 'shop.orders',
        status: 'changed',
        file: 'sources/shop.orders.yaml',
        changes: [
          { path: 'customer', message: 'column customer mode NULLABLE -> REQUIRED', breaksReaders: false, readBy: [] },
          { path: 'note', message: 'column note added (STRING)', breaksReaders: false, readBy: [] },
        ],
      },
    ]);
    expect(reads).toEqual({});
  });

  it('a removed column breaks the endpoints that read it, by name or through *', () => {
    const { diffs, reads } = readChanges([declaration(ORDERS.replace('  - { name: total, type: NUMERIC }\n', ''))]);
    expect(diffs[0]!.changes).toEqual([{ path: 'total', message: 'column total removed', breaksReaders: true, readBy: ['shop.totals', 'shop.everything'] }]);
    expect(reads).toEqual({
      'shop.totals': ['breaking: reads shop.orders.total: column total removed (sources/shop.orders.yaml)'],
      'shop.everything': ['breaking: reads shop.orders.total: column total removed (sources/shop.orders.yaml)'],
    });
  });

  it('a retyped field of a REPEATED RECORD breaks the endpoint that reads it through UNNEST, unqualified', () => {
    const { reads } = readChanges([declaration(ORDERS.replace('{ name: qty, type: INT64 }', '{ name: qty, type: STRING }'))]);
    expect(reads).toEqual({
      'shop.quantities': ['breaking: reads shop.orders.items.qty: column items.qty retyped INT64 -> STRING (sources/shop.orders.yaml)'],
      'shop.everything': ['breaking: reads shop.orders.items.qty: column items.qty retyped INT64 -> STRING (sources/shop.orders.yaml)'],
    });
  });

  it('a mode change to REPEATED or NULLABLE breaks the readers', () => {
    const { diffs, reads } = readChanges([declaration(ORDERS.replace('{ name: order_id, type: STRING, mode: REQUIRED }', '{ name: order_id, type: STRING }'))]);
    expect(diffs[0]!.changes.map((change) => change.message)).toEqual(['column order_id mode REQUIRED -> NULLABLE']);
    expect(Object.keys(reads)).toEqual(['shop.totals', 'shop.everything']);
  });

  it('a removed source breaks every endpoint that reads it; an added one none', () => {
    const other = declaration(ORDERS.replace('name: shop.orders', 'name: shop.returns'));
    const { diffs, reads } = readChanges([other]);
    expect(diffs.map((diff) => [diff.name, diff.status])).toEqual([
      ['shop.returns', 'added'],
      ['shop.orders', 'removed'],
    ]);
    expect(Object.keys(reads)).toEqual(['shop.totals', 'shop.quantities', 'shop.everything']);
    expect(reads['shop.totals']).toEqual(['breaking: reads source shop.orders: source removed (sources/shop.orders.yaml)']);
  });
});
