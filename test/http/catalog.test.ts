/**
 * GET /api/endpoints over a real socket: every endpoint served with its settings and parameter
 * specs as the YAML declares them, and on sandbox endpoints the CTEs with the columns and nested
 * fields the source schemas give them. Behind a key, like the endpoints it lists.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUILT_IN_SOURCES } from '../../src/config/sources.js';
import { endpointText } from '../support/endpoint-text.js';
import { parsePrometheusText } from '../support/prometheus-text.js';
import { SHIPPED_ENDPOINTS, startTestService, TEST_KEY, type TestService } from '../support/service.js';

let svc: TestService;
let endpoints: any[];

beforeAll(async () => {
  svc = await startTestService({
    endpoints: {
      'logs.all.yaml': await readFile(join(SHIPPED_ENDPOINTS, 'logs.all.yaml'), 'utf8'),
      'usage.api-counts.yaml': await readFile(join(SHIPPED_ENDPOINTS, 'usage.api-counts.yaml'), 'utf8'),
      'plain.yaml': endpointText('plain.count', ['n: { type: integer, required: false }'], ['with a as (select 1 as x) select x + coalesce(@n, 0) as y from a']),
    },
  });
  const { status, body } = await svc.call('/api/endpoints');
  expect(status).toBe(200);
  endpoints = body.endpoints;
});
afterAll(() => svc.close());

const named = (name: string) => endpoints.find((endpoint) => endpoint.name === name);

describe('GET /api/endpoints', () => {
  it('lists every endpoint served with its identity, settings and parameter specs', () => {
    expect(endpoints.map((endpoint) => endpoint.name).sort()).toEqual(['logs.all', 'plain.count', 'usage.api-counts']);
    const usage = named('usage.api-counts');
    expect(usage).toMatchObject({
      id: '90ea8432-727f-4399-8617-f3fe240ba64a',
      max_rows: 1000,
      cache: { ttl_seconds: 900, warm_every_seconds: 300 },
      sandbox: true,
      redact_pii: false,
      params: {
        interval: { type: 'string', required: true, enum: ['minutely', 'hourly', 'daily'], description: 'Bucket size and window.' },
        project: { type: 'string', required: true, format: 'regex' },
      },
    });
    expect(usage.description).toMatch(/^Per-bucket API request counts/);
    expect(named('logs.all')).toMatchObject({ cache: false, max_rows: 1000, query_limit: 100, params: { iso_timestamp_start: { format: 'date-time', required: false } } });
    // usage.api-counts writes no LIMIT of its own.
    expect(usage).not.toHaveProperty('query_limit');
  });

  it('gives a sandbox endpoint its CTEs, each with the columns and nested fields of the source it reads', () => {
    const logs = named('logs.all');
    expect(logs.ctes.map((cte: any) => cte.name)).toEqual([
      'edge_logs', 'postgres_logs', 'function_edge_logs', 'function_logs', 'auth_logs',
      'realtime_logs', 'storage_logs', 'postgrest_logs', 'pgbouncer_logs',
    ]);
    const postgres = logs.ctes.find((cte: any) => cte.name === 'postgres_logs');
    expect(postgres.columns.map((column: any) => [column.name, column.type])).toEqual([
      ['id', 'string'], ['timestamp', 'timestamp'], ['event_message', 'string'], ['identifier', 'string'], ['metadata', 'record'],
    ]);
    const metadata = postgres.columns[4];
    const parsed = metadata.fields.find((field: any) => field.name === 'parsed');
    const declared = BUILT_IN_SOURCES.find((source) => source.name === 'postgres.logs')!.metadata.parsed as Record<string, string>;
    expect(parsed.fields).toEqual(Object.entries(declared).map(([name, type]) => ({ name, type })));

    const usage = named('usage.api-counts');
    expect(usage.ctes).toEqual([
      { name: 'requests', columns: [{ name: 'timestamp', type: 'timestamp' }, { name: 'path', type: 'string' }] },
      { name: 'bucketed', columns: [{ name: 'bucket' }, { name: 'path', type: 'string' }] },
    ]);
  });

  it('gives no CTEs for an endpoint without sandboxing: there is nothing a caller could send them', () => {
    expect(named('plain.count')).not.toHaveProperty('ctes');
    expect(named('plain.count').params).toEqual({ n: { type: 'integer', required: false } });
  });

  it('answers as /openapi.json describes it', async () => {
    const { body: document } = await svc.call('/openapi.json');
    const ajv = new Ajv({ strict: false });
    ajv.addSchema(document, 'openapi.json');
    const validate = ajv.getSchema('openapi.json#/components/schemas/Endpoints')!;
    expect(validate({ endpoints }), JSON.stringify(validate.errors)).toBe(true);
    expect(validate({ endpoints: [{ ...endpoints[0], ctes: [{ name: 'x', columns: [{ type: 'record' }] }] }] })).toBe(false);
  });

  it('needs a key, like the endpoints it lists', async () => {
    const missing = await svc.get('/api/endpoints');
    expect(missing.status).toBe(401);
    expect(((await missing.json()) as any).error.code).toBe('unauthorized');
    const wrong = await svc.get('/api/endpoints', { authorization: 'Bearer not-a-key' });
    expect(wrong.status).toBe(401);
    const bearer = await svc.get('/api/endpoints', { authorization: `Bearer ${TEST_KEY}` });
    expect(bearer.status).toBe(200);
    expect(bearer.headers.get('content-type')).toBe('application/json; charset=utf-8');
    const metrics = parsePrometheusText(await (await svc.get('/metrics', { 'x-api-key': TEST_KEY })).text());
    expect(metrics.value('cannery_http_requests_total', { route: 'endpoints', endpoint: '', status: '401' })).toBe(2);
  });
});
