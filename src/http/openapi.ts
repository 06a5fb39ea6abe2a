/**
 * The OpenAPI 3.1 description of the running service: one path per endpoint (by name), its
 * parameters as declared in the YAML, the API-key security schemes, the result envelope and
 * the error body. Built from the registry, so it is always what is served.
 */
import type { ErrorCode } from '../core/errors.js';
import type { ParamSpec } from '../core/types.js';
import type { CompiledEndpoint } from '../engine/compiled-endpoint.js';
import { CATALOG_PATH, QUERY_PATH } from './paths.js';

type Json = Record<string, unknown>;

const ERROR_CODES: ErrorCode[] = [
  'unauthorized', 'endpoint_not_found', 'not_found', 'method_not_allowed', 'missing_parameter', 'invalid_parameter',
  'unknown_parameter', 'sandbox_not_enabled', 'sandbox_violation', 'invalid_header', 'query_failed', 'query_timeout', 'internal',
];

const PARAM_FORMATS: Record<string, string> = { 'date-time': 'date-time', regex: 'regex' };

function paramSchema(spec: ParamSpec): Json {
  const schema: Json = { type: spec.type };
  if (spec.enum) schema.enum = spec.enum;
  if (spec.format) schema.format = PARAM_FORMATS[spec.format];
  return schema;
}

function queryParameters(endpoint: CompiledEndpoint): Json[] {
  const parameters: Json[] = Object.entries(endpoint.definition.params).map(([name, spec]) => ({
    name,
    in: 'query',
    required: spec.required,
    ...(spec.description ? { description: spec.description } : {}),
    schema: paramSchema(spec),
  }));
  if (endpoint.definition.sandbox) {
    parameters.push({
      name: 'sql',
      in: 'query',
      required: false,
      description: "A SELECT over this endpoint's CTEs that replaces its final selection (sandbox query).",
      schema: { type: 'string', maxLength: 100_000 },
    });
  }
  parameters.push({ $ref: '#/components/parameters/RedactPii' });
  return parameters;
}

function bodySchema(endpoint: CompiledEndpoint): Json {
  const properties: Json = {};
  for (const [name, spec] of Object.entries(endpoint.definition.params)) {
    properties[name] = { ...paramSchema(spec), ...(spec.description ? { description: spec.description } : {}) };
  }
  if (endpoint.definition.sandbox) properties.sql = { type: 'string', maxLength: 100_000 };
  const required = Object.entries(endpoint.definition.params).filter(([, spec]) => spec.required).map(([name]) => name);
  return { type: 'object', additionalProperties: false, properties, ...(required.length ? { required } : {}) };
}

const errorResponses: Json = {
  '400': { $ref: '#/components/responses/Error' },
  '401': { $ref: '#/components/responses/Error' },
  '404': { $ref: '#/components/responses/Error' },
  '502': { $ref: '#/components/responses/Error' },
  '504': { $ref: '#/components/responses/Error' },
};

function operation(endpoint: CompiledEndpoint, method: 'get' | 'post'): Json {
  const { definition } = endpoint;
  const base: Json = {
    operationId: `${method}_${definition.name.replace(/[^A-Za-z0-9_]/g, '_')}`,
    summary: definition.name,
    description: `${definition.description}\n\nAlso callable by id: ${QUERY_PATH}${definition.id}. At most ${definition.max_rows} rows.`,
    tags: ['endpoints'],
    responses: { '200': { $ref: '#/components/responses/Result' }, ...errorResponses },
  };
  if (method === 'get') return { ...base, parameters: queryParameters(endpoint) };
  return {
    ...base,
    parameters: [{ $ref: '#/components/parameters/RedactPii' }],
    requestBody: { required: true, content: { 'application/json': { schema: bodySchema(endpoint) } } },
  };
}

export function openApiDocument(endpoints: readonly CompiledEndpoint[], version: string): Json {
  const paths: Json = {
    '/health': {
      get: {
        operationId: 'health',
        summary: 'Liveness (`status`: `degraded` while the shared cache store is down), the backend, the cache tiers, the endpoints served and the files that failed to load.',
        security: [],
        responses: { '200': { description: 'The service is up.', content: { 'application/json': { schema: { type: 'object' } } } } },
      },
    },
  };
  paths[CATALOG_PATH] = {
    get: {
      operationId: 'list_endpoints',
      summary: 'Every endpoint served: id, name, description, settings, parameter specs and, with sandboxing, the CTEs with their columns.',
      responses: {
        '200': { description: 'The endpoints.', content: { 'application/json': { schema: { $ref: '#/components/schemas/Endpoints' } } } },
        '401': { $ref: '#/components/responses/Error' },
      },
    },
  };
  for (const endpoint of endpoints) {
    paths[`${QUERY_PATH}${endpoint.definition.name}`] = { get: operation(endpoint, 'get'), post: operation(endpoint, 'post') };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'cannery',
      version,
      description: 'Stored, named SQL queries served over HTTP. Each path runs one endpoint.',
    },
    security: [{ ApiKey: [] }, { Bearer: [] }],
    paths,
    components: {
      securitySchemes: {
        ApiKey: { type: 'apiKey', in: 'header', name: 'X-API-KEY' },
        Bearer: { type: 'http', scheme: 'bearer' },
      },
      parameters: {
        RedactPii: {
          name: 'SVC-ENDPOINT-REDACT-PII',
          in: 'header',
          required: false,
          description: '`true` (any case) redacts IP and e-mail addresses in this response; `false` keeps the endpoint setting.',
          schema: { type: 'string' },
        },
      },
      schemas: {
        Result: {
          type: 'object',
          required: ['result'],
          properties: {
            result: {
              type: 'array',
              description: 'Rows. TIMESTAMP values are integer Unix microseconds, DATETIME "YYYY-MM-DDTHH:MM:SS[.ffffff]", repeated records arrays of objects.',
              items: { type: 'object', additionalProperties: true },
            },
          },
        },
        Endpoints: {
          type: 'object',
          required: ['endpoints'],
          properties: {
            endpoints: {
              type: 'array',
              items: {
                type: 'object',
                required: ['id', 'name', 'description', 'max_rows', 'cache', 'sandbox', 'redact_pii', 'params'],
                properties: {
                  id: { type: 'string', format: 'uuid' },
                  name: { type: 'string' },
                  description: { type: 'string' },
                  max_rows: { type: 'integer' },
                  cache: { oneOf: [{ const: false }, { type: 'object', properties: { ttl_seconds: { type: 'integer' }, warm_every_seconds: { type: 'integer' } } }] },
                  sandbox: { type: 'boolean' },
                  redact_pii: { type: 'boolean' },
                  params: { type: 'object', additionalProperties: { type: 'object' }, description: 'Parameter specs as the endpoint file declares them.' },
                  ctes: {
                    type: 'array',
                    description: 'Sandbox endpoints only: the CTEs a sandbox query reads.',
                    items: {
                      type: 'object',
                      properties: { name: { type: 'string' }, columns: { type: 'array', items: { $ref: '#/components/schemas/Field' } } },
                    },
                  },
                },
              },
            },
          },
        },
        Field: {
          type: 'object',
          required: ['name'],
          description: 'A column or nested field; no type when it is computed.',
          properties: {
            name: { type: 'string' },
            type: { type: 'string', enum: ['string', 'integer', 'number', 'boolean', 'timestamp', 'record'] },
            fields: { type: 'array', items: { $ref: '#/components/schemas/Field' } },
          },
        },
        Error: {
          type: 'object',
          required: ['error'],
          properties: {
            error: {
              type: 'object',
              required: ['code', 'message'],
              properties: {
                code: { type: 'string', enum: ERROR_CODES },
                message: { type: 'string' },
                param: { type: 'string', description: 'The parameter to blame, when there is one.' },
              },
            },
          },
        },
      },
      responses: {
        Result: { description: 'The rows.', content: { 'application/json': { schema: { $ref: '#/components/schemas/Result' } } } },
        Error: { description: 'What was wrong and what is allowed.', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } },
      },
    },
  };
}
