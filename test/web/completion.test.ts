/** Completion of sandbox SQL from an endpoint's CTEs, through table and UNNEST aliases. */
import { describe, expect, it } from 'vitest';
import type { CatalogEndpoint } from '../../src/core/types.js';
import { completionsAt } from '../../web/src/completion.js';

const request = { name: 'request', type: 'record' as const, fields: [{ name: 'path', type: 'string' as const }, { name: 'method', type: 'string' as const }] };
const ENDPOINT: CatalogEndpoint = {
  id: '00000000-0000-4000-8000-000000000000',
  name: 'logs',
  description: '',
  max_rows: 10,
  cache: false,
  sandbox: true,
  redact_pii: false,
  params: { project: { type: 'string', required: true } },
  ctes: [
    { name: 'edge_logs', columns: [{ name: 'id', type: 'string' }, { name: 'metadata', type: 'record', fields: [request] }] },
    { name: 'auth_logs', columns: [{ name: 'id', type: 'string' }, { name: 'msg', type: 'string' }] },
  ],
};

/** Completions at the `|` in `text`. */
const at = (text: string) => {
  const pos = text.indexOf('|');
  return completionsAt(text.replace('|', ''), pos, ENDPOINT);
};
const labels = (text: string) => at(text)?.options.map((option) => option.label);

describe('completionsAt', () => {
  it('offers the CTE names, and the columns of the CTEs the query reads', () => {
    expect(labels('select | from auth_logs')?.slice(0, 4)).toEqual(['edge_logs', 'auth_logs', 'id', 'msg']);
    expect(at('select count(*) from ed|')).toEqual({ from: 'select count(*) from '.length, options: expect.arrayContaining([{ label: 'edge_logs', type: 'table', detail: 'CTE' }]) });
  });

  it('offers the fields after a dot, through a table alias, UNNEST aliases and a bare column', () => {
    expect(labels('select t.| from edge_logs as t')).toEqual(['id', 'metadata']);
    expect(labels('select r.| from edge_logs t cross join unnest(t.metadata) as m cross join unnest(m.request) r')).toEqual(['path', 'method']);
    expect(labels('select m.request.| from edge_logs cross join unnest(metadata) as m')).toEqual(['path', 'method']);
    expect(labels('select edge_logs.metadata.| from edge_logs')).toEqual(['request']);
    expect(at('select r.pa| from edge_logs cross join unnest(metadata) m cross join unnest(m.request) as r')?.from).toBe('select r.'.length);
  });

  it('offers the fields of UNNESTed records as bare words, and the parameters after @', () => {
    expect(labels('select | from edge_logs cross join unnest(metadata) as m cross join unnest(m.request) as r')).toEqual(
      expect.arrayContaining(['edge_logs', 'id', 'metadata', 'request', 'path', 'method']),
    );
    expect(labels('select * from auth_logs where id = @p|')).toEqual(['@project']);
  });

  it('offers the functions the sandbox allows, each with what it does, and no other', () => {
    const functions = at('select coun|')!.options.filter((option) => option.type === 'function');
    expect(functions.map((option) => option.label)).toEqual(expect.arrayContaining(['count', 'countif', 'timestamp_trunc', 'regexp_contains']));
    expect(functions.find((option) => option.label === 'countif')?.detail).toMatch(/\w/);
    expect(functions.map((option) => option.label)).not.toContain('read_csv');
  });

  it('offers nothing after a dot it cannot follow, and survives an alias defined by itself', () => {
    expect(at('select nowhere.| from edge_logs')).toBeUndefined();
    expect(at('select r.| from edge_logs cross join unnest(r) as r')).toBeUndefined();
    expect(labels('select | where')?.slice(0, 2)).toEqual(['edge_logs', 'auth_logs']);
  });
});
