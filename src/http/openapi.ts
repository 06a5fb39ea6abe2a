/**
 * The OpenAPI 3.1 description of the running service: one path per endpoint (by name), its
 * parameters as declared in the YAML, its rows typed per column from its contract, the API-key
 * security schemes, the error body with every error code, and every status an operation can
 * answer. Built from the registry, so it is always what is served;
 * test/http/openapi-fuzz.test.ts holds the service to it.
 */
import { ERROR_CODES, type ErrorCode } from '../core/errors.js';
import type { EndpointContract, ParamSpec } from '../core/types.js';
import { wireSchema } from '../engine/contracts/column-types.js';
import type { CompiledEndpoint } from '../engine/compiled-endpoint.js';
import type { ContractOutcome } from '../engine/contracts/contract.js';
import { MAX_SANDBOX_SQL_LENGTH } from '../engine/serve/sandbox-compile.js';
import { statusOf } from './errors.js';
import { CATALOG_PATH, LOGS_PATH, LOGS_SHORT_PATH, QUERY_PATH, SOURCES_PATH } from './paths.js';

type Json = Record<string, unknown>;

const PARAM_FORMATS: Record<string, string> = { 'date-time': 'date-time', regex: 'regex' };

/** The values the caller's key or token fixes for an endpoint's parameters (access/scopes.ts fixedValues). */
export type FixedValues = (endpoint: CompiledEndpoint) => Record<string, string[]> | undefined;

/**
 * A value's schema; an empty required value is a missing one, so a required string has a
 * character at least. A fixed parameter takes its fixed values only (an empty one is the fixed
 * value too, so it is not required of the caller).
 */
function paramSchema(spec: ParamSpec, fixed: string[] | undefined): Json {
  const schema: Json = { type: spec.type };
  if (fixed) {
    const values = fixed.map((value) => typedValue(spec, value));
    schema.enum = values;
    if (values.length === 1) schema.default = values[0];
    return schema;
  }
  if (spec.enum) schema.enum = spec.enum;
  if (spec.format) schema.format = PARAM_FORMATS[spec.format];
  if (spec.required && spec.type === 'string' && !spec.enum) schema.minLength = 1;
  return schema;
}

/** A fixed value as the parameter's type writes it in JSON. */
function typedValue(spec: ParamSpec, value: string): string | number | boolean {
  if (spec.type === 'integer' || spec.type === 'number') return Number(value);
  if (spec.type === 'boolean') return value === 'true';
  return value;
}

function paramDescription(spec: ParamSpec, fixed: string[] | undefined): Json {
  const note = fixed ? `Fixed by your key or token: ${fixed.map((value) => JSON.stringify(value)).join(' or ')}; send it or leave it out.` : undefined;
  const text = [spec.description, note].filter(Boolean).join(' ');
  return text ? { description: text } : {};
}

function queryParameters(endpoint: CompiledEndpoint, fixed: Record<string, string[]> | undefined): Json[] {
  const parameters: Json[] = Object.entries(endpoint.definition.params).map(([name, spec]) => ({
    name,
    in: 'query',
    required: spec.required && !fixed?.[name],
    ...paramDescription(spec, fixed?.[name]),
    schema: paramSchema(spec, fixed?.[name]),
  }));
  if (endpoint.definition.sandbox) {
    parameters.push({
      name: 'sql',
      in: 'query',
      required: false,
      description: "A SELECT over this endpoint's CTEs that replaces its final selection (sandbox query).",
      schema: { type: 'string', maxLength: MAX_SANDBOX_SQL_LENGTH },
    });
  }
  parameters.push({ $ref: '#/components/parameters/RedactPii' }, { $ref: '#/components/parameters/IfNoneMatch' });
  return parameters;
}

/** In a body, a value may also be a JSON number or boolean for those types, and null is an absent optional one. */
function bodySchema(endpoint: CompiledEndpoint, fixed: Record<string, string[]> | undefined): Json {
  const properties: Json = {};
  for (const [name, spec] of Object.entries(endpoint.definition.params)) {
    const schema = paramSchema(spec, fixed?.[name]);
    const required = spec.required && !fixed?.[name];
    properties[name] = {
      ...schema,
      ...(required ? {} : { type: [spec.type, 'null'], ...(schema.enum ? { enum: [...(schema.enum as unknown[]), null] } : {}) }),
      ...paramDescription(spec, fixed?.[name]),
    };
  }
  if (endpoint.definition.sandbox) properties.sql = { type: 'string', maxLength: MAX_SANDBOX_SQL_LENGTH };
  const required = Object.entries(endpoint.definition.params).filter(([name, spec]) => spec.required && !fixed?.[name]).map(([name]) => name);
  return { type: 'object', additionalProperties: false, properties, ...(required.length ? { required } : {}) };
}

/** The error codes answered with `status`. */
function codesOf(status: number): ErrorCode[] {
  return ERROR_CODES.filter((code) => statusOf(code) === status);
}

/** Each error status, with exactly the codes it carries. */
function errorResponse(status: number, description: string, headers?: Json): Json {
  const codes = codesOf(status);
  const schema = { allOf: [{ $ref: '#/components/schemas/Error' }, { properties: { error: { properties: { code: { enum: codes } } } } }] };
  return {
    description: `${description} Codes: ${codes.join(', ')}.`,
    ...(headers ? { headers } : {}),
    content: { 'application/json': { schema } },
  };
}

/** Every answer a query path gives besides its rows. */
function queryResponses(): Json {
  return {
    '304': { $ref: '#/components/responses/NotModified' },
    '400': errorResponse(400, 'A parameter, header, body or sql the service refuses, or an answer over CANNERY_MAX_RESULT_BYTES.'),
    '401': errorResponse(401, 'No API key or token, or one not allowed (unknown, expired, a signature that does not verify).', { 'WWW-Authenticate': { schema: { type: 'string' } } }),
    '403': errorResponse(403, "An endpoint outside the key's or token's scope, or a parameter value other than the one it fixes."),
    '404': errorResponse(404, 'No endpoint with that id or name.'),
    '405': errorResponse(405, 'A method other than GET, HEAD and POST.', { Allow: { schema: { type: 'string' } } }),
    '406': errorResponse(406, 'Accept refuses JSON and accepts neither NDJSON nor CSV.'),
    '413': errorResponse(413, 'A request body over 1 MiB.'),
    '414': errorResponse(414, 'A URL over 8,192 characters: send long parameters in a POST body.'),
    '429': errorResponse(429, "The key's or token's own rate is spent, or too many backend queries are running and waiting.", { 'Retry-After': { schema: { type: 'integer' } } }),
    '431': { $ref: '#/components/responses/HeadersTooLarge' },
    '500': errorResponse(500, 'A bug in cannery.'),
    '502': errorResponse(502, 'The backend failed to run the query.'),
    '504': errorResponse(504, 'The query ran longer than CANNERY_QUERY_TIMEOUT_MS.'),
  };
}

/** A row of the stored query: every column, typed as the wire carries it. */
function rowSchema(contract: EndpointContract): Json {
  return {
    type: 'object',
    additionalProperties: false,
    required: contract.columns.map((column) => column.name),
    properties: Object.fromEntries(contract.columns.map((column) => [column.name, wireSchema(column.type)])),
  };
}

function rowSchemaName(endpoint: CompiledEndpoint): string {
  return `${endpoint.definition.name}.Row`;
}

/** A 200 with rows: `json` is the schema of the JSON form; NDJSON and CSV are text. */
function rowsResponse(json: Json): Json {
  return {
    description: 'The rows: JSON by default; NDJSON (a row a line) or CSV when Accept asks for them.',
    headers: {
      'Cache-Control': { schema: { type: 'string' }, description: '`private, max-age=<seconds>` for a cached endpoint, else `no-store`.' },
      ETag: { schema: { type: 'string' }, description: 'Cached endpoints only.' },
      Age: { schema: { type: 'string' }, description: 'Cached endpoints only.' },
      'X-Cache': { schema: { type: 'string', enum: ['HIT', 'MISS', 'STALE'] }, description: 'Cached endpoints only.' },
    },
    content: {
      'application/json': { schema: json },
      'application/x-ndjson': { schema: { type: 'string' } },
      'text/csv': { schema: { type: 'string' } },
    },
  };
}

/** The 200 response: typed rows when the contract is known, else the free-form envelope. */
function resultResponse(endpoint: CompiledEndpoint, contract: EndpointContract | undefined): Json {
  if (!contract) return { $ref: '#/components/responses/Result' };
  const typed = { $ref: `#/components/schemas/${rowSchemaName(endpoint)}` };
  // With sandbox SQL the caller's SELECT decides the columns.
  const items = endpoint.definition.sandbox
    ? { anyOf: [typed, { type: 'object', description: 'A row of the SELECT sent in `sql`: its own columns.' }] }
    : typed;
  return rowsResponse({ type: 'object', required: ['result'], properties: { result: { type: 'array', maxItems: endpoint.definition.max_rows, items } } });
}

function operation(endpoint: CompiledEndpoint, method: 'get' | 'post', contract: EndpointContract | undefined, fixed: Record<string, string[]> | undefined): Json {
  const { definition } = endpoint;
  const responses = { '200': resultResponse(endpoint, contract), ...queryResponses() };
  const base: Json = {
    operationId: `${method}_${definition.name.replace(/[^A-Za-z0-9_]/g, '_')}`,
    summary: definition.name,
    description: `${definition.description}\n\nAlso callable by id: ${QUERY_PATH}${definition.id}. At most ${definition.max_rows} rows.`,
    tags: ['endpoints'],
    responses,
  };
  if (method === 'get') return { ...base, parameters: queryParameters(endpoint, fixed) };
  return {
    ...base,
    responses: { ...responses, '415': errorResponse(415, 'A body sent without a JSON Content-Type (application/json, or a +json type).') },
    parameters: [{ $ref: '#/components/parameters/RedactPii' }, { $ref: '#/components/parameters/IfNoneMatch' }],
    requestBody: { required: true, content: { 'application/json': { schema: bodySchema(endpoint, fixed) } } },
  };
}

/** The answers of both ingest routes (http/ingest.ts), but the body's and the route's own. */
function ingestResponses(): Json {
  return {
    '200': {
      description: 'Every event of the request committed (durable); `batch` names the committed batch that holds them.',
      content: {
        'application/json': {
          schema: { type: 'object', required: ['accepted', 'batch'], properties: { accepted: { type: 'integer' }, batch: { type: 'string', format: 'uuid' } } },
        },
      },
    },
    '400': errorResponse(400, 'An event that does not fit the source (`invalid_event`, naming its index and field): nothing of the request was written.'),
    '401': errorResponse(401, 'No API key or token, or one not allowed.', { 'WWW-Authenticate': { schema: { type: 'string' } } }),
    '403': errorResponse(403, "The key's or token's ingest scope does not name the source."),
    '404': errorResponse(404, 'No such source, or a server that takes no events.'),
    '405': errorResponse(405, 'A method other than POST.', { Allow: { schema: { type: 'string' } } }),
    '413': errorResponse(413, 'A body over CANNERY_INGEST_MAX_BYTES, as sent or unpacked from gzip.'),
    '414': errorResponse(414, 'A URL over 8,192 characters.'),
    '415': errorResponse(415, 'A Content-Type other than application/json or application/x-ndjson, or a Content-Encoding other than gzip.'),
    '429': errorResponse(429, "The writer is behind (its queue is full), or the key's own rate is spent: send again after Retry-After.", {
      'Retry-After': { schema: { type: 'integer' } },
    }),
    '431': { $ref: '#/components/responses/HeadersTooLarge' },
  };
}

const EVENTS_BODY = {
  'application/json': { schema: { oneOf: [{ type: 'array', items: { type: 'object' } }, { type: 'object' }] } },
  'application/x-ndjson': { schema: { type: 'string', description: 'One JSON object a line.' } },
};

/** A source that takes events: its name and its UUID (Logflare's `source=`). */
export interface IngestSourceRef {
  name: string;
  id: string;
}

/** The ingest routes for the sources the caller may send to (docs/ingest.md); none when the server takes no events. */
function ingestPaths(sources: readonly IngestSourceRef[]): Json {
  if (sources.length === 0) return {};
  const paths: Json = {};
  const encoding = { name: 'Content-Encoding', in: 'header', required: false, description: '`gzip` for a gzipped body.', schema: { type: 'string', enum: ['gzip', 'identity'] } };
  for (const { name, id } of sources) {
    paths[`${SOURCES_PATH}${name}/events`] = {
      post: {
        operationId: `ingest_${name.replace(/[^A-Za-z0-9_]/g, '_')}`,
        summary: `Events into ${name} (id ${id}): NDJSON or a JSON array, checked against its declared columns; answered once committed.`,
        tags: ['ingest'],
        parameters: [encoding],
        requestBody: { required: true, content: EVENTS_BODY },
        responses: ingestResponses(),
      },
    };
  }
  const logflare = (operationId: string) => ({
    post: {
      operationId,
      summary: "Logflare's ingest: one event or `{\"batch\": [...]}`; `message` is event_message, `metadata` the metadata record, a missing timestamp the time received, a missing id a new UUID.",
      tags: ['ingest'],
      parameters: [
        { name: 'source_name', in: 'query', required: false, description: 'The source by name; this or `source`.', schema: { type: 'string', enum: sources.map((source) => source.name) } },
        { name: 'source', in: 'query', required: false, description: "The source by its UUID, as Logflare's clients name it; this or `source_name`.", schema: { type: 'string', format: 'uuid', enum: sources.map((source) => source.id) } },
        encoding,
      ],
      requestBody: { required: true, content: { 'application/json': { schema: { type: 'object' } } } },
      responses: ingestResponses(),
    },
  });
  paths[LOGS_PATH] = logflare('logflare_ingest');
  paths[LOGS_SHORT_PATH] = logflare('logflare_ingest_logs');
  return paths;
}

/**
 * `contracts` types each endpoint's rows; an endpoint without one gets free-form rows. `fixed`
 * gives the values the caller's key or token fixes (default: none).
 */
export function openApiDocument(
  endpoints: readonly CompiledEndpoint[],
  version: string,
  contracts?: ReadonlyMap<CompiledEndpoint, ContractOutcome>,
  fixed: FixedValues = () => undefined,
  ingestSources: readonly IngestSourceRef[] = [],
): Json {
  const rowSchemas: Json = {};
  const paths: Json = {
    '/health': {
      get: {
        operationId: 'health',
        summary: 'Liveness (`status`: `degraded` while the shared cache store is down), the backend, the cache tiers, the endpoints served and the files that failed to load.',
        security: [],
        responses: {
          '200': { description: 'The service is up.', content: { 'application/json': { schema: { type: 'object' } } } },
          '405': errorResponse(405, 'A method other than GET and HEAD.', { Allow: { schema: { type: 'string' } } }),
          '413': errorResponse(413, 'A request body over 1 MiB.'),
          '414': errorResponse(414, 'A URL over 8,192 characters.'),
          '431': { $ref: '#/components/responses/HeadersTooLarge' },
        },
      },
    },
  };
  paths[CATALOG_PATH] = {
    get: {
      operationId: 'list_endpoints',
      summary: "Every endpoint the caller's key or token may run: id, name, description, settings, parameter specs, the values the key fixes and, with sandboxing, the CTEs with their columns.",
      responses: {
        '200': { description: 'The endpoints.', content: { 'application/json': { schema: { $ref: '#/components/schemas/Endpoints' } } } },
        '401': errorResponse(401, 'No API key or token, or one not allowed.', { 'WWW-Authenticate': { schema: { type: 'string' } } }),
        '405': errorResponse(405, 'A method other than GET and HEAD.', { Allow: { schema: { type: 'string' } } }),
        '429': errorResponse(429, "The key's or token's own rate is spent.", { 'Retry-After': { schema: { type: 'integer' } } }),
        '413': errorResponse(413, 'A request body over 1 MiB.'),
        '414': errorResponse(414, 'A URL over 8,192 characters.'),
        '431': { $ref: '#/components/responses/HeadersTooLarge' },
      },
    },
  };
  for (const endpoint of endpoints) {
    const contract = contracts?.get(endpoint)?.contract;
    if (contract) rowSchemas[rowSchemaName(endpoint)] = rowSchema(contract);
    const fixedHere = fixed(endpoint);
    paths[`${QUERY_PATH}${endpoint.definition.name}`] = { get: operation(endpoint, 'get', contract, fixedHere), post: operation(endpoint, 'post', contract, fixedHere) };
  }
  Object.assign(paths, ingestPaths(ingestSources));
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
          description: '`true` (any case) redacts IP and e-mail addresses in this response and its errors, and every string sandbox `sql` reads; `false` keeps the endpoint setting.',
          schema: { type: 'string' },
        },
        IfNoneMatch: {
          name: 'If-None-Match',
          in: 'header',
          required: false,
          description: "An ETag of a cached endpoint's earlier answer: 304 while it is still the answer.",
          schema: { type: 'string' },
        },
      },
      schemas: {
        ...rowSchemas,
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
                  query_limit: { type: 'integer', description: "The LIMIT the endpoint's own query writes, when below max_rows." },
                  cache: { oneOf: [{ const: false }, { type: 'object', properties: { ttl_seconds: { type: 'integer' }, warm_every_seconds: { type: 'integer' } } }] },
                  sandbox: { type: 'boolean' },
                  redact_pii: { type: 'boolean' },
                  params: { type: 'object', additionalProperties: { type: 'object' }, description: 'Parameter specs as the endpoint file declares them.' },
                  fixed: {
                    type: 'object',
                    additionalProperties: { type: 'array', items: { type: 'string' } },
                    description: "The values the caller's key or token allows for the parameters it fixes: one value, fixed to it; several, one of them.",
                  },
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
            type: { type: 'string', enum: ['string', 'integer', 'number', 'boolean', 'timestamp', 'string[]', 'integer[]', 'number[]', 'boolean[]', 'timestamp[]', 'record'] },
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
        Result: rowsResponse({ $ref: '#/components/schemas/Result' }),
        NotModified: { description: "If-None-Match named this answer's ETag: no body." },
        HeadersTooLarge: { description: "Request line and headers over 64 KiB: node's own answer, with no body." },
      },
    },
  };
}
