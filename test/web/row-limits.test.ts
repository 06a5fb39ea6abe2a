import { describe, expect, it } from 'vitest';
import { rowsText } from '../../web/src/row-limits.js';

describe('rowsText', () => {
  it('says the cap alone when the query writes no lower LIMIT', () => {
    expect(rowsText({ max_rows: 1000, sandbox: true })).toBe('at most 1,000');
  });

  it('says both where they differ: the query’s LIMIT for its own answer, the cap for a sandbox query', () => {
    expect(rowsText({ max_rows: 1000, query_limit: 100, sandbox: true })).toBe('at most 100 (its query’s LIMIT); your own sql: at most 1,000');
    expect(rowsText({ max_rows: 1000, query_limit: 100, sandbox: false })).toBe('at most 100 (its query’s LIMIT; the cap is 1,000)');
  });
});
