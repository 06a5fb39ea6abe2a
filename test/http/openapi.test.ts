/** The OpenAPI document: valid OpenAPI 3.1 (by a validator library), true to the YAML, served with a key. */
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../src/core/errors.js';
import { statusOf } from '../../src/http/errors.js';
import { startTestService, TEST_KEY, type TestService } from '../support/service.js';

let svc: TestService;
let document: any;

beforeAll(async () => {
  svc = await startTestService();
  const response = await svc.get('/openapi.json', { 'x-api-key': TEST_KEY });
  expect(response.status).toBe(200);
  document = await response.json();
});
afterAll(() => svc.close());

describe('GET /openapi.json', () => {
  it('validates as OpenAPI 3.1', async () => {
    const validator = new Validator();
    const result = await validator.validate(document);
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it('has one path per endpoint, by name', () => {
    expect(Object.keys(document.paths).sort()).toEqual(['/api/endpoints', '/api/endpoints/query/logs.all', '/api/endpoints/query/usage.api-counts', '/health']);
  });

  it('describes each parameter with its type, required, enum, format and description from the YAML', () => {
    const get = document.paths['/api/endpoints/query/usage.api-counts'].get;
    const interval = get.parameters.find((parameter: any) => parameter.name === 'interval');
    expect(interval).toEqual({
      name: 'interval',
      in: 'query',
      required: true,
      description: 'Bucket size and window.',
      schema: { type: 'string', enum: ['minutely', 'hourly', 'daily'] },
    });
    const project = get.parameters.find((parameter: any) => parameter.name === 'project');
    // An empty required value is a missing one.
    expect(project.schema).toEqual({ type: 'string', format: 'regex', minLength: 1 });
    const logs = document.paths['/api/endpoints/query/logs.all'].get.parameters;
    const start = logs.find((parameter: any) => parameter.name === 'iso_timestamp_start');
    expect(start).toMatchObject({ required: false, schema: { type: 'string', format: 'date-time' } });
    expect(logs.map((parameter: any) => parameter.name ?? parameter.$ref)).toContain('sql');
  });

  it('declares the API-key security schemes, the result envelope and the error body', () => {
    expect(document.components.securitySchemes).toEqual({
      ApiKey: { type: 'apiKey', in: 'header', name: 'X-API-KEY' },
      Bearer: { type: 'http', scheme: 'bearer' },
    });
    expect(document.security).toEqual([{ ApiKey: [] }, { Bearer: [] }]);
    expect(document.components.schemas.Result.required).toEqual(['result']);
    expect(document.components.schemas.Error.properties.error.properties.code.enum).toContain('sandbox_violation');
  });

  it('lists every error code, and each error status with exactly its codes', () => {
    expect(document.components.schemas.Error.properties.error.properties.code.enum).toEqual([...ERROR_CODES]);
    const { responses } = document.paths['/api/endpoints/query/logs.all'].get;
    const posted = document.paths['/api/endpoints/query/logs.all'].post.responses;
    for (const code of ERROR_CODES) {
      // Only a POST has a body whose type can be wrong.
      const listed = (code === 'unsupported_media_type' ? posted : responses)[String(statusOf(code))];
      expect(listed, code).toBeDefined();
      expect(listed.content['application/json'].schema.allOf[1].properties.error.properties.code.enum, code).toContain(code);
    }
    expect(Object.keys(responses).sort()).toEqual(['200', '304', '400', '401', '403', '404', '405', '406', '413', '414', '429', '431', '500', '502', '504']);
    expect(Object.keys(posted).sort()).toEqual(['200', '304', '400', '401', '403', '404', '405', '406', '413', '414', '415', '429', '431', '500', '502', '504']);
  });

  it('an optional parameter may be null in a JSON body, sql may not', () => {
    const { properties, required } = document.paths['/api/endpoints/query/logs.all'].post.requestBody.content['application/json'].schema;
    expect(required).toEqual(['project']);
    expect(properties.project).toMatchObject({ type: 'string', minLength: 1 });
    expect(properties.iso_timestamp_start).toMatchObject({ type: ['string', 'null'], format: 'date-time' });
    expect(properties.sql).toEqual({ type: 'string', maxLength: 100_000 });
    const interval = document.paths['/api/endpoints/query/usage.api-counts'].post.requestBody.content['application/json'].schema.properties.interval;
    expect(interval).toMatchObject({ type: 'string', enum: ['minutely', 'hourly', 'daily'] });
  });

  it('needs a key, like the endpoints it lists', async () => {
    const response = await svc.get('/openapi.json');
    expect(response.status).toBe(401);
  });
});

describe('GET /openapi.json: rows typed per column', () => {
  const NOW = new Date('2024-05-01T12:00:00Z');
  let typed: TestService;
  let doc: any;

  beforeAll(async () => {
    const request = (id: string, timestamp: string, path: string) => ({
      id,
      timestamp,
      event_message: `GET ${path} from 203.0.113.9`,
      project: 'typed',
      metadata: { request: { method: 'GET', path, url: `https://typed.cannery.dev${path}`, headers: { x_real_ip: '203.0.113.9' } }, response: { status_code: 200 } },
    });
    typed = await startTestService({
      clock: () => new Date(NOW),
      fixtures: { 'cloudflare.logs.prod': [request('t-1', '2024-05-01T11:30:00Z', '/rest/v1/a'), request('t-2', '2024-05-01T11:45:00.123456Z', '/auth/v1/token')] },
    });
    doc = await (await typed.get('/openapi.json', { 'x-api-key': TEST_KEY })).json();
  });
  afterAll(() => typed?.close());

  it("types each endpoint's row from its contract, as the wire carries each type", () => {
    expect(doc.components.schemas['usage.api-counts.Row']).toEqual({
      type: 'object',
      additionalProperties: false,
      required: ['timestamp', 'total_rest_requests', 'total_storage_requests', 'total_auth_requests', 'total_realtime_requests'],
      properties: {
        timestamp: { type: ['string', 'null'], description: 'DATETIME: YYYY-MM-DDTHH:MM:SS[.ffffff]' },
        total_rest_requests: { type: ['integer', 'null'] },
        total_storage_requests: { type: ['integer', 'null'] },
        total_auth_requests: { type: ['integer', 'null'] },
        total_realtime_requests: { type: ['integer', 'null'] },
      },
    });
    const logs = doc.components.schemas['logs.all.Row'];
    expect(logs.properties.timestamp).toEqual({ type: ['integer', 'null'], description: 'TIMESTAMP: Unix microseconds' });
    expect(logs.properties.metadata.items.properties.request.items.properties.path).toEqual({ type: ['string', 'null'] });
  });

  it('answers 200 with typed rows, or with the columns of a sandbox SELECT', () => {
    const schema = doc.paths['/api/endpoints/query/usage.api-counts'].get.responses['200'].content['application/json'].schema;
    expect(schema.properties.result).toEqual({
      type: 'array',
      maxItems: 1000,
      items: { anyOf: [{ $ref: '#/components/schemas/usage.api-counts.Row' }, { type: 'object', description: 'A row of the SELECT sent in `sql`: its own columns.' }] },
    });
  });

  it('describes what the service really answers: every row of both endpoints fits its typed schema', async () => {
    const ajv = new Ajv2020({ strict: false });
    const answers: [string, Awaited<ReturnType<TestService['call']>>][] = [
      ['logs.all.Row', await typed.call('/api/endpoints/query/logs.all?project=typed')],
      ['logs.all.Row', await typed.call('/api/endpoints/query/logs.all?project=typed', { 'svc-endpoint-redact-pii': 'true' })],
      ['usage.api-counts.Row', await typed.call('/api/endpoints/query/usage.api-counts?interval=minutely&project=typed')],
    ];
    for (const [name, { status, body }] of answers) {
      expect(status, name).toBe(200);
      expect(body.result.length, name).toBe(2);
      const validate = ajv.compile(doc.components.schemas[name]);
      for (const row of body.result) expect(validate(row) ? [] : validate.errors, `${name}: ${JSON.stringify(row)}`).toEqual([]);
    }
  });
});
