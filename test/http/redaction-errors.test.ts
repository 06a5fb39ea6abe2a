/**
 * Redaction reaches error messages (issue 15, case 2): a backend quotes the value it failed on,
 * so with redaction on (the header, or `redact_pii: true` on the endpoint) every error a request
 * gets is redacted like its rows would be. Without redaction the same errors still quote the
 * values, which shows the errors below would leak them.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryPath } from '../endpoints/edge-fixtures.js';
import { SHIPPED_ENDPOINTS, startTestService, type TestService } from '../support/service.js';

const PII = ['203.0.113.9', 'alice@example.com', '2001:db8::7'];
const HEADER = { 'svc-endpoint-redact-pii': 'true' };

const edgeEvents = [
  {
    id: 'e1',
    timestamp: '2024-05-01T10:00:00Z',
    project: 'p1',
    event_message: 'GET | 200 | 203.0.113.9 | alice@example.com | 2001:db8::7',
    metadata: { request: { path: '/rest/v1/x', headers: { x_real_ip: '203.0.113.9' } } },
  },
];

const ALWAYS = [
  'id: 3f1e2d4c-5b6a-4789-8a9b-0c1d2e3f4a5b',
  'name: redaction.always-sandbox',
  'description: Edge rows of one project, always redacted, sandbox on.',
  'language: bq_sql',
  'max_rows: 100',
  'cache: false',
  'sandbox: true',
  'redact_pii: true',
  'params:',
  '  project: { type: string, required: true }',
  'query: |',
  '  with edge_logs as (select t.id, t.event_message, t.metadata from `cloudflare.logs.prod` as t where t.project = @project)',
  '  select id from edge_logs',
  '',
].join('\n');

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService({
    fixtures: { 'cloudflare.logs.prod': edgeEvents },
    endpoints: { 'logs.all.yaml': readFileSync(join(SHIPPED_ENDPOINTS, 'logs.all.yaml'), 'utf8'), 'always.yaml': ALWAYS },
  });
  expect(svc.service.registry.problems).toEqual([]);
});
afterAll(() => svc.close());

/** Failures that quote a row's value: casts of every kind, and a regular expression built from a row. */
const FAILING: [string, string][] = [
  ['an INT64 cast', 'select cast(event_message as int64) from edge_logs'],
  ['a TIMESTAMP cast', 'select cast(event_message as timestamp) from edge_logs'],
  ['a DATE cast', 'select cast(event_message as date) from edge_logs'],
  ['TIMESTAMP()', 'select timestamp(event_message) from edge_logs'],
  ['a FLOAT64 cast of a nested field', 'select cast(h.x_real_ip as float64) from edge_logs cross join unnest(metadata) as m cross join unnest(m.request) as r cross join unnest(r.headers) as h'],
  ['a regular expression made of a row', "select regexp_contains('x', concat('(', event_message)) from edge_logs"],
];

function expectNoPii(text: string): void {
  for (const value of PII) expect(text).not.toContain(value);
}

describe('with redaction on, an error quoting a row is redacted', () => {
  it.each(FAILING)('%s, by the header', async (_what, sql) => {
    const { status, body } = await svc.call(queryPath('logs.all', { project: 'p1', sql }), HEADER);
    expect(status).toBe(400);
    expect(body.error).toMatchObject({ code: 'invalid_parameter', param: 'sql' });
    expectNoPii(JSON.stringify(body));
    expect(body.error.message).toContain('REDACTED');
  });

  it.each(FAILING)('%s, on an endpoint with redact_pii: true', async (_what, sql) => {
    const { status, body } = await svc.call(queryPath('redaction.always-sandbox', { project: 'p1', sql }));
    expect(status).toBe(400);
    expect(body.error).toMatchObject({ code: 'invalid_parameter', param: 'sql' });
    expectNoPii(JSON.stringify(body));
    expect(body.error.message).toContain('REDACTED');
  });

  it('a value taken apart before it leaves (the bypass output redaction alone cannot see) is read redacted on an endpoint that is always redacted', async () => {
    const sql = "select replace(event_message, '.', ' . ') as m, split(h.x_real_ip, '.') as parts from edge_logs cross join unnest(metadata) as m0 cross join unnest(m0.request) as r cross join unnest(r.headers) as h";
    const { status, body } = await svc.call(queryPath('redaction.always-sandbox', { project: 'p1', sql }));
    expect(status).toBe(200);
    expect(body.result).toEqual([{ m: 'GET | 200 | REDACTED | REDACTED | REDACTED', parts: ['REDACTED'] }]);
    expect(JSON.stringify(body)).not.toMatch(/203|alice|2001/);
  });

  it('by POST too', async () => {
    const response = await fetch(`${svc.url}/api/endpoints/query/logs.all`, {
      method: 'POST',
      headers: { 'x-api-key': 'test-key-1', 'content-type': 'application/json', ...HEADER },
      body: JSON.stringify({ project: 'p1', sql: FAILING[0]![1] }),
    });
    expect(response.status).toBe(400);
    expectNoPii(await response.text());
  });
});

describe('with redaction off', () => {
  it('the same error quotes the value, as the backend wrote it', async () => {
    const { status, body } = await svc.call(queryPath('logs.all', { project: 'p1', sql: FAILING[0]![1] }));
    expect(status).toBe(400);
    expect(body.error.message).toContain("'Bad int64 value: GET | 200 | 203.0.113.9 | alice@example.com | 2001:db8::7'");
  });
});
