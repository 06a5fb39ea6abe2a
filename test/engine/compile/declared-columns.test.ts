/**
 * `cannery check`'s column check (engine/compile/compile.ts with a context's `columns`): every
 * column and nested field an endpoint reads exists in its source's declaration, top-level, in a
 * RECORD, or reached through UNNEST of a REPEATED RECORD; a name that does not is a problem at the
 * endpoint's file and line, with the declared name it likely meant, on either backend.
 */
import { describe, expect, it } from 'vitest';
import { parseEndpointFile } from '../../../src/config/endpoint-file.js';
import { parseSourceFile } from '../../../src/config/source-files.js';
import { offlineCompileContext } from '../../../src/cli/offline-registry.js';
import { compileEndpoint } from '../../../src/engine/compile/compile.js';
import { endpointText, lineOf } from '../../support/endpoint-text.js';
import { SHOP_ORDERS } from '../../support/shop-orders.js';

const ORDERS = parseSourceFile(
  `${SHOP_ORDERS}  - name: shipping
    type: RECORD
    fields:
      - name: address
        type: RECORD
        fields: [ { name: city, type: STRING }, { name: country, type: STRING } ]
`,
  'shop.orders.yaml',
).declaration!;

function problemsOf(query: string[], backend: 'all' | 'bigquery' = 'all'): { line: number; message: string }[] {
  const text = endpointText('shop.case', [], query);
  const outcome = compileEndpoint({ file: 'case.yaml', ...parseEndpointFile(text, 'case.yaml') }, offlineCompileContext(backend, [ORDERS]));
  return outcome.problems.map((problem) => ({ line: problem.line, message: problem.message }));
}

/** The one problem of `query`, at the line holding `needle`. */
function expectProblem(query: string[], needle: string, message: string, backend: 'all' | 'bigquery' = 'all'): void {
  expect(problemsOf(query, backend)).toEqual([{ line: lineOf(endpointText('shop.case', [], query), needle), message: expect.stringContaining(message) }]);
}

describe('columns an endpoint reads are declared', () => {
  it('passes a query that reads declared columns, nested fields and UNNESTed records', () => {
    expect(
      problemsOf([
        'select o.order_id, total, o.shipping.address.city, shipping.address.country, i.sku, qty',
        'from `shop.orders` as o cross join unnest(o.items) as i',
        "where o.customer = 'ada'",
      ]),
    ).toEqual([]);
  });

  it('names an unknown column of a source read by its alias, with the declared one meant', () => {
    expectProblem(['select o.order_id,', '  o.totl', 'from `shop.orders` as o'], 'o.totl', 'Name totl not found inside o (shop.orders) (did you mean "total"?); its columns: order_id, customer, total, items, shipping');
  });

  it('names an unknown column read unqualified', () => {
    expectProblem(['select order_id', 'from `shop.orders`', "where custmer = 'ada'"], 'custmer', 'Unrecognized name: custmer (not a column of shop.orders, nor a field of an UNNEST alias in scope) (did you mean "customer"?)');
  });

  it('names an unknown field of a RECORD, by its path', () => {
    expectProblem(['select o.shipping.adress.city', 'from `shop.orders` as o'], 'adress', 'Field name adress does not exist in o.shipping (did you mean "address"?); its fields: address');
    expectProblem(['select shipping.address.cty', 'from `shop.orders`'], 'cty', 'Field name cty does not exist in shipping.address (did you mean "city"?)');
  });

  it('names an unknown field reached through UNNEST of a REPEATED RECORD, qualified or not', () => {
    expectProblem(['select i.skus', 'from `shop.orders` as o cross join unnest(o.items) as i'], 'i.skus', 'Field name skus does not exist in i (an element of shop.orders.items) (did you mean "sku"?)');
    expectProblem(['select o.order_id', 'from `shop.orders` as o cross join unnest(o.items)', 'where qtty > 1'], 'qtty', 'Unrecognized name: qtty');
  });

  it('refuses a field of a REPEATED RECORD read without UNNEST', () => {
    expectProblem(['select o.items.sku', 'from `shop.orders` as o'], 'o.items.sku', 'Cannot access field sku on o.items, an array: UNNEST it first');
  });

  it('checks the shipped log sources the same way', () => {
    expectProblem(
      ['select r.ur', 'from `cloudflare.logs.prod` as t cross join unnest(t.metadata) as m cross join unnest(m.request) as r'],
      'r.ur',
      'Field name ur does not exist in r (an element of cloudflare.logs.prod.metadata.request) (did you mean "url"?)',
    );
  });

  it('checks columns when only BigQuery is checked too', () => {
    expectProblem(['select o.totl', 'from `shop.orders` as o'], 'o.totl', 'Name totl not found inside o (shop.orders) (did you mean "total"?)', 'bigquery');
  });

  it('names a column a CTE over the source lacks, where the CTE is read', () => {
    expectProblem(['with recent as (select order_id, total from `shop.orders`)', 'select customer', 'from recent'], 'select customer', 'Unrecognized name: customer (not a column of recent');
  });
});
