/**
 * The HTTP error contract of DESIGN.md, over a real server: statuses, codes, `param`,
 * content type, auth before lookup, and never a 500 for a caller's mistake.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readSettings } from '../../src/config/settings.js';
import { createApp } from '../../src/http/app.js';
import { JSON_CONTENT_TYPE } from '../../src/http/errors.js';
import { listen, type RunningServer } from '../../src/http/server.js';
import { SHIPPED_ENDPOINTS, TEST_KEY, startTestService, type TestService } from '../support/service.js';
import { createLogger } from '../../src/core/logger.js';

const LOGS_ALL_ID = 'b699a50c-0586-48fa-95e6-6041369c6c05';
const USAGE_ID = '90ea8432-727f-4399-8617-f3fe240ba64a';
const Q = '/api/endpoints/query/';

function endpointFile(fields: { id: string; name: string; maxRows?: number; sandbox?: boolean; params: string[]; query: string[] }): string {
  return [
    `id: ${fields.id}`,
    `name: ${fields.name}`,
    'description: A contract-test endpoint.',
    'language: bq_sql',
    `max_rows: ${fields.maxRows ?? 1000}`,
    'cache: false',
    `sandbox: ${fields.sandbox ?? false}`,
    'redact_pii: false',
    ...(fields.params.length ? ['params:', ...fields.params.map((line) => `  ${line}`)] : ['params: {}']),
    'query: |',
    ...fields.query.map((line) => `  ${line}`),
    '',
  ].join('\n');
}

const ENDPOINTS: Record<string, string> = {
  // The shipped endpoints, so the real files are exercised alongside the temporary ones.
  'logs.all.yaml': readFileSync(join(SHIPPED_ENDPOINTS, 'logs.all.yaml'), 'utf8'),
  'usage.api-counts.yaml': readFileSync(join(SHIPPED_ENDPOINTS, 'usage.api-counts.yaml'), 'utf8'),
  'closed.yaml': endpointFile({
    id: '6f1c2a4e-8b3d-4c5e-9f70-1a2b3c4d5e6f',
    name: 'contract.closed',
    sandbox: false,
    params: ['project: { type: string, required: true }'],
    query: ['select t.id from `cloudflare.logs.prod` as t where t.project = @project order by t.id'],
  }),
  'capped.yaml': endpointFile({
    id: '0d9e8f7a-6b5c-4d3e-8f2a-1b0c9d8e7f6a',
    name: 'contract.capped',
    maxRows: 5,
    params: [],
    query: ['select t.id from `cloudflare.logs.prod` as t order by t.id'],
  }),
  'capped-limit.yaml': endpointFile({
    id: 'a3b4c5d6-e7f8-4a9b-8c0d-e1f2a3b4c5d6',
    name: 'contract.capped-limit',
    maxRows: 5,
    params: [],
    query: ['select t.id from `cloudflare.logs.prod` as t order by t.id limit 100'],
  }),
  'small-limit.yaml': endpointFile({
    id: 'c7d8e9f0-a1b2-4c3d-9e4f-5a6b7c8d9e0f',
    name: 'contract.small-limit',
    maxRows: 5,
    params: [],
    query: ['select t.id from `cloudflare.logs.prod` as t order by t.id limit 3'],
  }),
  'cast.yaml': endpointFile({
    id: 'e5f6a7b8-c9d0-4e1f-a2b3-c4d5e6f7a8b9',
    name: 'contract.cast',
    params: ['v: { type: string, required: true }'],
    query: ['select cast(@v as int64) as n'],
  }),
  'typed.yaml': endpointFile({
    id: 'f1e2d3c4-b5a6-4978-8a9b-0c1d2e3f4a5b',
    name: 'contract.typed',
    params: [
      'n: { type: integer, required: false }',
      'x: { type: number, required: false }',
      'b: { type: boolean, required: false }',
    ],
    query: ['select @n is null as n_absent, @x is null as x_absent, @b is null as b_absent'],
  }),
};

const edgeEvents = Array.from({ length: 20 }, (_, index) => ({
  id: `e${String(index).padStart(2, '0')}`,
  timestamp: `2024-05-01T10:${String(index).padStart(2, '0')}:00Z`,
  event_message: `GET /rest/v1/t${index}`,
  project: index < 2 ? 'p1' : 'p2',
  metadata: { request: { path: `/rest/v1/t${index}`, url: `https://p${index < 2 ? 1 : 2}.x/rest/v1/t${index}` } },
}));

let svc: TestService;

beforeAll(async () => {
  svc = await startTestService({ fixtures: { 'cloudflare.logs.prod': edgeEvents }, endpoints: ENDPOINTS });
  expect(svc.service.registry.problems).toEqual([]);
});
afterAll(() => svc.close());

/** Any request; the parsed body (or the raw text when it is not JSON), status and response. */
async function send(path: string, init: RequestInit = {}): Promise<{ status: number; body: any; response: Response }> {
  const response = await fetch(svc.url + path, init);
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // left as text; the assertions below will say so
  }
  return { status: response.status, body, response };
}

const JSON_BODY = { 'content-type': 'application/json' };
const withKey = (init: RequestInit = {}): RequestInit => ({ ...init, headers: { 'x-api-key': TEST_KEY, ...(init.headers as Record<string, string>) } });

/** Asserts the error shape of DESIGN.md and returns the error object. */
function expectError(
  result: { status: number; body: any; response: Response },
  status: number,
  code: string,
  param?: string,
): { code: string; message: string; param?: string } {
  expect({ status: result.status, code: result.body?.error?.code }).toEqual({ status, code });
  expect(result.response.headers.get('content-type')).toBe(JSON_CONTENT_TYPE);
  expect(Object.keys(result.body)).toEqual(['error']);
  const error = result.body.error;
  expect(typeof error.message).toBe('string');
  expect(error.message.length).toBeGreaterThan(0);
  if (param === undefined) expect(error).not.toHaveProperty('param');
  else expect(error.param).toBe(param);
  return error;
}

describe('auth', () => {
  it('no key is 401 unauthorized, with a WWW-Authenticate challenge', async () => {
    const result = await send(`${Q}logs.all?project=p1`);
    const error = expectError(result, 401, 'unauthorized');
    expect(error.message).toMatch(/X-API-KEY/);
    expect(result.response.headers.get('www-authenticate')).toBe('Bearer');
  });

  it('a wrong key is 401, in either header', async () => {
    expectError(await send(`${Q}logs.all?project=p1`, { headers: { 'x-api-key': 'nope' } }), 401, 'unauthorized');
    expectError(await send(`${Q}logs.all?project=p1`, { headers: { authorization: 'Bearer nope' } }), 401, 'unauthorized');
  });

  it('a key that is a prefix or extension of a real key is refused', async () => {
    expectError(await send(`${Q}logs.all?project=p1`, { headers: { 'x-api-key': TEST_KEY.slice(0, -1) } }), 401, 'unauthorized');
    expectError(await send(`${Q}logs.all?project=p1`, { headers: { 'x-api-key': `${TEST_KEY}x` } }), 401, 'unauthorized');
  });

  it('an Authorization header that is not Bearer is 401', async () => {
    const basic = `Basic ${Buffer.from(`user:${TEST_KEY}`).toString('base64')}`;
    expectError(await send(`${Q}logs.all?project=p1`, { headers: { authorization: basic } }), 401, 'unauthorized');
    expectError(await send(`${Q}logs.all?project=p1`, { headers: { authorization: TEST_KEY } }), 401, 'unauthorized');
  });

  it('X-API-KEY is accepted', async () => {
    const { status, body } = await send(`${Q}logs.all?project=p1`, { headers: { 'X-API-KEY': TEST_KEY } });
    expect(status).toBe(200);
    expect(body.result).toHaveLength(2);
  });

  it('Authorization: Bearer <key> is accepted (scheme case-insensitive)', async () => {
    for (const authorization of [`Bearer ${TEST_KEY}`, `bearer ${TEST_KEY}`]) {
      const { status, body } = await send(`${Q}logs.all?project=p1`, { headers: { authorization } });
      expect(status).toBe(200);
      expect(body.result).toHaveLength(2);
    }
  });

  it('the second key of the harness key list is accepted', async () => {
    const { status } = await send(`${Q}logs.all?project=p1`, { headers: { 'x-api-key': 'second-key' } });
    expect(status).toBe(200);
  });

  describe('keys from CANNERY_API_KEYS', () => {
    let server: RunningServer;
    beforeAll(async () => {
      const { apiKeys } = readSettings({ CANNERY_API_KEYS: 'first-key, second-key ,' });
      expect(apiKeys).toEqual(['first-key', 'second-key']);
      server = await listen(createApp({ service: svc.service, apiKeys, logger: createLogger('silent') }), { port: 0, host: '127.0.0.1' });
    });
    afterAll(() => server.close());

    it('accepts each comma-separated key and nothing else', async () => {
      const status = async (headers: Record<string, string>) => (await fetch(`${server.url}${Q}logs.all?project=p1`, { headers })).status;
      expect(await status({ 'x-api-key': 'first-key' })).toBe(200);
      expect(await status({ 'x-api-key': 'second-key' })).toBe(200);
      expect(await status({ authorization: 'Bearer second-key' })).toBe(200);
      expect(await status({ 'x-api-key': TEST_KEY })).toBe(401);
      expect(await status({ 'x-api-key': 'first-key,second-key' })).toBe(401);
    });
  });

  it('auth is checked before the endpoint is looked up: an unknown endpoint without a key is 401, not 404', async () => {
    expectError(await send(`${Q}no.such.endpoint`), 401, 'unauthorized');
    expectError(await send(`${Q}00000000-0000-4000-8000-000000000000`), 401, 'unauthorized');
    expectError(await send(`${Q}no.such.endpoint`, { headers: { 'x-api-key': 'nope' } }), 401, 'unauthorized');
    expectError(await send(`${Q}no.such.endpoint`, { method: 'POST', body: '{}' }), 401, 'unauthorized');
  });

  it('auth is checked before parameters: a bad request without a key is 401', async () => {
    expectError(await send(`${Q}logs.all?nope=1&nope=2`), 401, 'unauthorized');
    expectError(await send(`${Q}logs.all`, { method: 'POST', body: '[not json' }), 401, 'unauthorized');
  });
});

describe('endpoint lookup', () => {
  it('an unknown name is 404 endpoint_not_found', async () => {
    const error = expectError(await send(`${Q}no.such.endpoint`, withKey()), 404, 'endpoint_not_found');
    expect(error.message).toBe('no endpoint with id or name "no.such.endpoint"');
  });

  it('a misspelt name is 404 with the closest name', async () => {
    const error = expectError(await send(`${Q}usage.api-count?interval=hourly&project=p1`, withKey()), 404, 'endpoint_not_found');
    expect(error.message).toBe('no endpoint with id or name "usage.api-count" (did you mean "usage.api-counts"?)');
    // A segment as long as a URL allows: compared with no name of another length.
    expectError(await send(`${Q}${'x'.repeat(8000)}`, withKey()), 404, 'endpoint_not_found');
  });

  it('an unknown UUID is 404 endpoint_not_found', async () => {
    expectError(await send(`${Q}00000000-0000-4000-8000-000000000000`, withKey()), 404, 'endpoint_not_found');
  });

  // Observed: the registry falls back to the lower-cased segment for names too (its comment says
  // names match exactly). Harmless while the schema only allows lower-case names.
  it('names match exactly (only UUIDs are case-insensitive)', async () => {
    expectError(await send(`${Q}LOGS.ALL?project=p1`, withKey()), 404, 'endpoint_not_found');
  });

  it('a segment that is percent-encoded twice is decoded once', async () => {
    const error = expectError(await send(`${Q}logs%252Eall?project=p1`, withKey()), 404, 'endpoint_not_found');
    expect(error.message).toContain('logs%2Eall');
  });

  it('the UUID and the name give the same body', async () => {
    const byName = await send(`${Q}logs.all?project=p1`, withKey());
    const byId = await send(`${Q}${LOGS_ALL_ID}?project=p1`, withKey());
    expect(byName.status).toBe(200);
    expect(byId.status).toBe(200);
    expect(byId.body).toEqual(byName.body);
    expect(byName.body.result.map((row: { id: string }) => row.id)).toEqual(['e01', 'e00']);
  });

  it('a UUID in upper case finds the endpoint', async () => {
    const upper = await send(`${Q}${LOGS_ALL_ID.toUpperCase()}?project=p1`, withKey());
    expect(upper.status).toBe(200);
    expect(upper.body).toEqual((await send(`${Q}${LOGS_ALL_ID}?project=p1`, withKey())).body);
    const usage = await send(`${Q}${USAGE_ID.toUpperCase()}?interval=daily&project=p1`, withKey());
    expect(usage.status).toBe(200);
  });

  it('a percent-encoded name finds the endpoint', async () => {
    expect((await send(`${Q}logs%2Eall?project=p1`, withKey())).status).toBe(200);
  });

  it('a malformed percent-encoding in the endpoint segment is a 400, not a 500', async () => {
    // h3 refuses it before the handler runs; onError maps it to invalid_parameter.
    expectError(await send(`${Q}logs%E0%A4%A?project=p1`, withKey()), 400, 'invalid_parameter');
    expectError(await send(`${Q}%`, withKey()), 400, 'invalid_parameter');
  });
});

describe('routing', () => {
  it('an unknown route is a 404 JSON error', async () => {
    for (const path of ['/nope', '/api', '/api/endpoints/query', `${Q}logs.all/extra`]) {
      const result = await send(path, withKey());
      const error = expectError(result, 404, 'not_found');
      expect(error.message).toContain(Q);
    }
  });

  it('an unknown route is 404 without a key too (there is nothing to protect)', async () => {
    expectError(await send('/nope'), 404, 'not_found');
  });

  it('PUT, DELETE and PATCH on the query path are 405 with a JSON error and Allow', async () => {
    for (const method of ['PUT', 'DELETE', 'PATCH']) {
      const result = await send(`${Q}logs.all?project=p1`, withKey({ method }));
      const error = expectError(result, 405, 'method_not_allowed');
      expect(error.message).toMatch(/GET/);
      expect(result.response.headers.get('allow')).toBe('GET, HEAD, POST');
    }
  });

  it.each(['/health', '/openapi.json', '/metrics'])('%s answers GET and HEAD, and any other method 405 with Allow: GET, HEAD', async (path) => {
    expect((await send(path, withKey())).status).toBe(200);
    const head = await fetch(svc.url + path, { method: 'HEAD', headers: { 'x-api-key': TEST_KEY } });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
    for (const method of ['POST', 'PUT', 'DELETE']) {
      const result = await send(path, withKey({ method }));
      expectError(result, 405, 'method_not_allowed');
      expect(result.response.headers.get('allow')).toBe('GET, HEAD');
    }
  });
});

describe('parameters', () => {
  it('a missing required parameter is 400 missing_parameter naming it', async () => {
    const error = expectError(await send(`${Q}logs.all`, withKey()), 400, 'missing_parameter', 'project');
    expect(error.message).toContain('project');
  });

  it('an empty required parameter is missing', async () => {
    expectError(await send(`${Q}logs.all?project=`, withKey()), 400, 'missing_parameter', 'project');
  });

  it('a value outside the enum is 400 invalid_parameter, listing the allowed values', async () => {
    const error = expectError(await send(`${Q}usage.api-counts?interval=weekly&project=p1`, withKey()), 400, 'invalid_parameter', 'interval');
    expect(error.message).toContain('minutely, hourly, daily');
  });

  it('an invalid RE2 pattern is 400 invalid_parameter', async () => {
    const error = expectError(await send(`${Q}usage.api-counts?interval=daily&project=${encodeURIComponent('(unclosed')}`, withKey()), 400, 'invalid_parameter', 'project');
    expect(error.message).toMatch(/regular expression/);
  });

  it('a malformed timestamp is 400 invalid_parameter with an example', async () => {
    const error = expectError(await send(`${Q}logs.all?project=p1&iso_timestamp_start=yesterday`, withKey()), 400, 'invalid_parameter', 'iso_timestamp_start');
    expect(error.message).toContain('2024-05-01T12:00:00Z');
    expectError(await send(`${Q}logs.all?project=p1&iso_timestamp_end=2024-05-01T10:00:00`, withKey()), 400, 'invalid_parameter', 'iso_timestamp_end');
  });

  it('a valid timestamp bound (with an offset, + encoded) filters rows', async () => {
    const start = encodeURIComponent('2024-05-01T12:00:30+02:00');
    const { status, body } = await send(`${Q}logs.all?project=p1&iso_timestamp_start=${start}`, withKey());
    expect(status).toBe(200);
    expect(body.result.map((row: { id: string }) => row.id)).toEqual(['e01']);
  });

  it('an empty optional parameter means absent', async () => {
    const { status, body } = await send(`${Q}logs.all?project=p1&iso_timestamp_start=&iso_timestamp_end=`, withKey());
    expect(status).toBe(200);
    expect(body.result).toHaveLength(2);
  });

  it('integer, number and boolean values are checked', async () => {
    expectError(await send(`${Q}contract.typed?n=1.5`, withKey()), 400, 'invalid_parameter', 'n');
    expectError(await send(`${Q}contract.typed?x=abc`, withKey()), 400, 'invalid_parameter', 'x');
    expectError(await send(`${Q}contract.typed?b=yes`, withKey()), 400, 'invalid_parameter', 'b');
    const ok = await send(`${Q}contract.typed?n=-3&x=2.5&b=false`, withKey());
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ result: [{ n_absent: false, x_absent: false, b_absent: false }] });
    const absent = await send(`${Q}contract.typed`, withKey());
    expect(absent.body).toEqual({ result: [{ n_absent: true, x_absent: true, b_absent: true }] });
  });

  it('an undeclared parameter is 400 unknown_parameter with a suggestion and the accepted names', async () => {
    const error = expectError(await send(`${Q}logs.all?project=p1&projct=p1`, withKey()), 400, 'unknown_parameter', 'projct');
    expect(error.message).toContain('did you mean "project"?');
    expect(error.message).toContain('project, iso_timestamp_start, iso_timestamp_end');
    const far = expectError(await send(`${Q}logs.all?project=p1&zzzzzzzz=1`, withKey()), 400, 'unknown_parameter', 'zzzzzzzz');
    expect(far.message).not.toContain('did you mean');
  });

  // Undeclared names that Object.prototype has must not slip through a `name in params` check.
  it('an undeclared parameter named like an Object.prototype member is 400 unknown_parameter', async () => {
    for (const name of ['constructor', 'toString', '__proto__', 'hasOwnProperty']) {
      expectError(await send(`${Q}logs.all?project=p1&${name}=x`, withKey()), 400, 'unknown_parameter', name);
    }
  });

  it('an undeclared parameter is refused even when empty', async () => {
    expectError(await send(`${Q}logs.all?project=p1&projct=`, withKey()), 400, 'unknown_parameter', 'projct');
  });

  it('a parameter given twice is 400 naming it', async () => {
    const error = expectError(await send(`${Q}logs.all?project=p1&project=p2`, withKey()), 400, 'invalid_parameter', 'project');
    expect(error.message).toMatch(/more than once/);
    // Even with the same value twice.
    expectError(await send(`${Q}logs.all?project=p1&project=p1`, withKey()), 400, 'invalid_parameter', 'project');
  });

  it('sql on an endpoint without sandboxing is 400 sandbox_not_enabled', async () => {
    const error = expectError(await send(`${Q}contract.closed?project=p1&sql=${encodeURIComponent('select 1')}`, withKey()), 400, 'sandbox_not_enabled', 'sql');
    expect(error.message).toContain('contract.closed');
  });

  it('an empty sql on an endpoint without sandboxing means absent', async () => {
    const { status, body } = await send(`${Q}contract.closed?project=p1&sql=`, withKey());
    expect(status).toBe(200);
    expect(body).toEqual({ result: [{ id: 'e00' }, { id: 'e01' }] });
  });

  it('sql on a sandboxed endpoint runs over its CTEs', async () => {
    const result = await send(`${Q}logs.all?project=p1&sql=${encodeURIComponent('select count(*) as n from edge_logs')}`, withKey());
    expect(result.status).toBe(200);
    expect(result.body.result).toHaveLength(1);
  });

  it('sql reading a source table is 400 sandbox_violation naming param sql', async () => {
    const result = await send(`${Q}logs.all?project=p1&sql=${encodeURIComponent('select * from `cloudflare.logs.prod`')}`, withKey());
    expect(result.status).toBe(400);
    expect(result.body.error).toMatchObject({ code: 'sandbox_violation', param: 'sql' });
  });
});

describe('POST with a JSON body', () => {
  const post = (path: string, body: string, headers: Record<string, string> = {}) =>
    send(path, withKey({ method: 'POST', body, headers: { 'content-type': 'application/json', ...headers } }));

  it('a JSON object gives the same answer as GET', async () => {
    const viaGet = await send(`${Q}logs.all?project=p1&iso_timestamp_end=${encodeURIComponent('2024-05-01T10:00:00Z')}`, withKey());
    const viaPost = await post(`${Q}logs.all`, JSON.stringify({ project: 'p1', iso_timestamp_end: '2024-05-01T10:00:00Z' }));
    expect(viaPost.status).toBe(200);
    expect(viaPost.response.headers.get('content-type')).toBe(JSON_CONTENT_TYPE);
    expect(viaPost.body).toEqual(viaGet.body);
    expect(viaPost.body.result.map((row: { id: string }) => row.id)).toEqual(['e00']);
  });

  it('query-string and body parameters combine', async () => {
    const { status, body } = await post(`${Q}logs.all?project=p1`, JSON.stringify({ iso_timestamp_end: '2024-05-01T10:00:00Z' }));
    expect(status).toBe(200);
    expect(body.result).toHaveLength(1);
  });

  it('JSON numbers, booleans and null are accepted for typed parameters', async () => {
    const { status, body } = await post(`${Q}contract.typed`, JSON.stringify({ n: 3, x: 2.5, b: true }));
    expect(status).toBe(200);
    expect(body).toEqual({ result: [{ n_absent: false, x_absent: false, b_absent: false }] });
    const nulls = await post(`${Q}contract.typed`, JSON.stringify({ n: null }));
    expect(nulls.body).toEqual({ result: [{ n_absent: true, x_absent: true, b_absent: true }] });
  });

  it('the same errors apply to body parameters', async () => {
    expectError(await post(`${Q}logs.all`, JSON.stringify({})), 400, 'missing_parameter', 'project');
    expectError(await post(`${Q}logs.all`, JSON.stringify({ project: 'p1', projct: 'p1' })), 400, 'unknown_parameter', 'projct');
    expectError(await post(`${Q}usage.api-counts`, JSON.stringify({ project: 'p1', interval: 'weekly' })), 400, 'invalid_parameter', 'interval');
    expectError(await post(`${Q}logs.all?project=p1`, JSON.stringify({ project: 'p1' })), 400, 'invalid_parameter', 'project');
    expectError(await post(`${Q}contract.closed`, JSON.stringify({ project: 'p1', sql: 'select 1' })), 400, 'sandbox_not_enabled', 'sql');
  });

  it('an empty body is no parameters', async () => {
    expectError(await post(`${Q}logs.all`, ''), 400, 'missing_parameter', 'project');
    expect((await post(`${Q}logs.all?project=p1`, '')).status).toBe(200);
  });

  it('invalid JSON is 400', async () => {
    const error = expectError(await post(`${Q}logs.all`, '{"project": '), 400, 'invalid_parameter');
    expect(error.message).toMatch(/JSON object/);
  });

  it('a JSON body that is not an object is 400', async () => {
    for (const body of ['[]', '["project", "p1"]', '"p1"', '42', 'null', 'true']) {
      expectError(await post(`${Q}logs.all`, body), 400, 'invalid_parameter');
    }
  });

  it('"sql": null is 400: the document says a string, and a null query is more likely a bug than a wish for the default', async () => {
    const error = expectError(await post(`${Q}logs.all`, JSON.stringify({ project: 'p1', sql: null })), 400, 'invalid_parameter', 'sql');
    expect(error.message).toContain('must be a string');
    expectError(await post(`${Q}logs.all`, JSON.stringify({ project: 'p1', sql: 42 })), 400, 'invalid_parameter', 'sql');
    expectError(await post(`${Q}logs.all`, JSON.stringify({ project: 'p1', sql: true })), 400, 'invalid_parameter', 'sql');
  });

  it('a name given twice in the body is 400 naming it, as in the query string (JSON.parse would keep the last)', async () => {
    const error = expectError(await post(`${Q}logs.all`, '{"project": "p1", "project": "p2"}'), 400, 'invalid_parameter', 'project');
    expect(error.message).toMatch(/more than once/);
    // The same name, spelled with an escape.
    expectError(await post(`${Q}logs.all`, '{"project": "p1", "proj\\u0065ct": "p2"}'), 400, 'invalid_parameter', 'project');
    expectError(await post(`${Q}logs.all`, '{"project": "p1", "sql": "select 1", "sql": "select 2"}'), 400, 'invalid_parameter', 'sql');
    // Names inside strings are not names.
    expect((await post(`${Q}logs.all`, JSON.stringify({ project: 'p1', sql: 'select \'{"project": 1, "project": 2}\' as x' }))).status).toBe(200);
  });

  it('an object or array value is 400 naming the parameter', async () => {
    expectError(await post(`${Q}logs.all`, JSON.stringify({ project: ['p1'] })), 400, 'invalid_parameter', 'project');
    expectError(await post(`${Q}logs.all`, JSON.stringify({ project: { eq: 'p1' } })), 400, 'invalid_parameter', 'project');
  });
});

describe('success and row caps', () => {
  it('a success is 200 {"result": [...]} in JSON with charset', async () => {
    const { status, body, response } = await send(`${Q}contract.closed?project=p1`, withKey());
    expect(status).toBe(200);
    expect(response.headers.get('content-type')).toBe(JSON_CONTENT_TYPE);
    expect(body).toEqual({ result: [{ id: 'e00' }, { id: 'e01' }] });
  });

  it('no rows is an empty result, not an error', async () => {
    const { status, body } = await send(`${Q}contract.closed?project=nobody`, withKey());
    expect(status).toBe(200);
    expect(body).toEqual({ result: [] });
  });

  it('max_rows caps a query without LIMIT', async () => {
    const { status, body } = await send(`${Q}contract.capped`, withKey());
    expect(status).toBe(200);
    expect(body.result.map((row: { id: string }) => row.id)).toEqual(['e00', 'e01', 'e02', 'e03', 'e04']);
  });

  it('max_rows caps a query whose LIMIT is larger', async () => {
    const { body } = await send(`${Q}contract.capped-limit`, withKey());
    expect(body.result).toHaveLength(5);
  });

  it('a LIMIT below max_rows is kept', async () => {
    const { body } = await send(`${Q}contract.small-limit`, withKey());
    expect(body.result.map((row: { id: string }) => row.id)).toEqual(['e00', 'e01', 'e02']);
  });
});

describe('backend failures', () => {
  it('a value the backend cannot use is an error with a message, never a 500', async () => {
    const result = await send(`${Q}contract.cast?v=abc`, withKey());
    expect(result.status).not.toBe(500);
    expect(result.response.headers.get('content-type')).toBe(JSON_CONTENT_TYPE);
    expect(result.body.error.message).toContain('contract.cast');
  });

  it('is 502 query_failed (observed; a caller-controlled value would better be a 400)', async () => {
    const error = expectError(await send(`${Q}contract.cast?v=abc`, withKey()), 502, 'query_failed');
    expect(error.message).toMatch(/the query failed/);
  });

  it('the same endpoint succeeds with a castable value', async () => {
    const { status, body } = await send(`${Q}contract.cast?v=42`, withKey());
    expect(status).toBe(200);
    expect(body).toEqual({ result: [{ n: 42 }] });
  });
});

describe('health', () => {
  it('GET /health needs no key and lists the endpoints', async () => {
    const { status, body, response } = await send('/health');
    expect(status).toBe(200);
    expect(response.headers.get('content-type')).toBe(JSON_CONTENT_TYPE);
    expect(body.status).toBe('ok');
    expect(body.backend).toBe('duckdb');
    expect(body.cache).toEqual({ tier: 'in-process' });
    expect([...body.endpoints].sort()).toEqual(
      ['contract.capped', 'contract.capped-limit', 'contract.cast', 'contract.closed', 'contract.small-limit', 'contract.typed', 'logs.all', 'usage.api-counts'],
    );
    expect(body.problems).toEqual([]);
  });
});

describe('never a 500', () => {
  it('none of the contract cases above answers 500', async () => {
    const cases: [string, RequestInit][] = [
      [`${Q}logs.all`, {}],
      [`${Q}logs.all?project=p1`, { headers: { authorization: 'Bearer' } }],
      [`${Q}logs.all?project=p1`, { headers: { authorization: 'Bearer    ' } }],
      [`${Q}logs.all?project=p1`, { headers: { 'x-api-key': '   ' } }],
      [`${Q}%`, withKey()],
      [`${Q}logs.all?%=1`, withKey()],
      [`${Q}logs.all?project=%ZZ`, withKey()],
      [`${Q}logs.all?project=p1&iso_timestamp_start=0000-01-01T00:00:00Z`, withKey()],
      [`${Q}logs.all?project=p1&iso_timestamp_start=9999-12-31T23:59:59-01:00`, withKey()],
      [`${Q}contract.typed?n=99999999999999999999`, withKey()],
      [`${Q}logs.all`, withKey({ method: 'POST', headers: JSON_BODY, body: '{"project": "p1", "__proto__": {"x": 1}}' })],
      [`${Q}logs.all`, withKey({ method: 'POST', headers: JSON_BODY, body: '\u0000' })],
      [`${Q}logs.all`, withKey({ method: 'DELETE' })],
      ['/health', { method: 'POST' }],
    ];
    for (const [path, init] of cases) {
      const result = await send(path, init);
      expect({ path, method: init.method ?? 'GET', status: result.status }).not.toMatchObject({ status: 500 });
      expect(result.response.headers.get('content-type')).toBe(JSON_CONTENT_TYPE);
    }
  });
});
