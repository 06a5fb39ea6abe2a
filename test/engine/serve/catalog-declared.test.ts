/**
 * The catalog (GET /api/endpoints) over a declared source: a sandbox endpoint's CTE columns carry
 * the declaration's types and nested fields, so the console completes them as it completes the
 * log sources' (web/src/completion.ts reads nothing else).
 */
import { describe, expect, it } from 'vitest';
import { parseEndpointFile } from '../../../src/config/endpoint-file.js';
import type { SourceDeclaration } from '../../../src/config/source-declaration.js';
import { BUILT_IN_SOURCES } from '../../../src/config/sources.js';
import { offlineCompileContext } from '../../../src/cli/offline-registry.js';
import { compileEndpoint } from '../../../src/engine/compile/compile.js';
import { catalogEndpoint, sourceShapes } from '../../../src/engine/serve/catalog.js';
import { completionsAt } from '../../../web/src/completion.js';
import { endpointText } from '../../support/endpoint-text.js';

const ORDERS: SourceDeclaration = {
  name: 'shop.orders',
  columns: [
    { name: 'order_id', type: 'STRING', mode: 'REQUIRED' },
    { name: 'total', type: 'NUMERIC', mode: 'NULLABLE' },
    { name: 'placed', type: 'DATE', mode: 'NULLABLE' },
    { name: 'tags', type: 'STRING', mode: 'REPEATED' },
    { name: 'items', type: 'RECORD', mode: 'REPEATED', fields: [{ name: 'sku', type: 'STRING', mode: 'NULLABLE' }, { name: 'qty', type: 'INT64', mode: 'NULLABLE' }] },
  ],
};

const text = endpointText('orders.sandbox', [], ['with orders as (select order_id, total, placed, tags, items from `shop.orders`)', 'select order_id from orders']).replace(
  'sandbox: false',
  'sandbox: true',
);
const compiled = compileEndpoint({ file: 'orders.yaml', ...parseEndpointFile(text, 'orders.yaml') }, offlineCompileContext('duckdb', [ORDERS]));

describe('the catalog over a declared source', () => {
  it("types a CTE's columns from the declaration, nested fields too, and the console completes them", () => {
    expect(compiled.problems).toEqual([]);
    const entry = catalogEndpoint(compiled.endpoint!, sourceShapes(BUILT_IN_SOURCES, [ORDERS]));
    expect(entry.ctes).toEqual([
      {
        name: 'orders',
        columns: [
          { name: 'order_id', type: 'string' },
          { name: 'total', type: 'numeric' },
          { name: 'placed', type: 'date' },
          { name: 'tags', type: 'string[]' },
          { name: 'items', type: 'record', fields: [{ name: 'sku', type: 'string' }, { name: 'qty', type: 'integer' }] },
        ],
      },
    ]);
    const sql = 'select i. from orders cross join unnest(items) as i';
    expect(completionsAt(sql, 'select i.'.length, entry)?.options.map((option) => option.label)).toEqual(['sku', 'qty']);
    const columns = completionsAt('select  from orders', 'select '.length, entry)?.options.filter((option) => option.type === 'property');
    expect(columns?.slice(0, 2)).toEqual([
      { label: 'order_id', type: 'property', detail: 'orders · string' },
      { label: 'total', type: 'property', detail: 'orders · numeric' },
    ]);
  });

  it('knows no columns of a source the model does not declare', () => {
    const entry = catalogEndpoint(compiled.endpoint!, sourceShapes());
    expect(entry.ctes?.[0]?.columns.map((column) => column.type)).toEqual([undefined, undefined, undefined, undefined, undefined]);
  });
});
