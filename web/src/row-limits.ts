/** The endpoint panel's `rows`: the endpoint's cap, and its own query's LIMIT where that is lower. */
import type { CatalogEndpoint } from '../../src/core/types.js';

export function rowsText(endpoint: Pick<CatalogEndpoint, 'max_rows' | 'query_limit' | 'sandbox'>): string {
  const cap = endpoint.max_rows.toLocaleString('en-US');
  if (endpoint.query_limit === undefined) return `at most ${cap}`;
  const limit = endpoint.query_limit.toLocaleString('en-US');
  // A sandbox query replaces the final SELECT, LIMIT and all: only the cap holds it.
  return endpoint.sandbox ? `at most ${limit} (its query’s LIMIT); your own sql: at most ${cap}` : `at most ${limit} (its query’s LIMIT; the cap is ${cap})`;
}
