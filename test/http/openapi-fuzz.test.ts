/**
 * The service against its own OpenAPI document: requests generated from `/openapi.json` itself
 * (each operation's parameters, headers and body, from their schemas, valid and invalid, plus
 * methods and names the document does not have) are sent to the real server over a socket, and
 * every answer is checked against the document: its status is one the operation lists, below
 * 500, and its body has a listed content type and validates (ajv) against the listed schema.
 *
 * The ingest routes are described only by a `serve` that takes events, to a key that may send:
 * the second run starts one (CANNERY_INGEST=true) and sends its operations' requests the same way.
 *
 * This is what schemathesis does; it does not install from the registries this project reaches,
 * so the generation is fast-check's. The run is bounded and seeded (FUZZ_SEED replays another
 * seed); fast-check prints the seed and the smallest failing request. Sandbox SQL here is SQL a
 * client writes, right or wrong: hostile SQL against the translator is test/robustness/fuzz.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keyDigest } from '../../src/access/keys.js';
import { FIXTURES } from '../sql/sandbox/fixtures.js';
import { send, type RawRequest, type RawResponse } from '../robustness/raw-http.js';
import { startServe, type ServeProcess } from '../support/serve-process.js';
import { loadFixtures, SHIPPED_ENDPOINTS, startTestService, TEST_KEY, type TestService } from '../support/service.js';

type Json = Record<string, any>;

const SEED = Number(process.env.FUZZ_SEED ?? 20261115);
/** About three seconds of requests. */
const RUNS = 320;

let svc: TestService;
let document: Json;

beforeAll(async () => {
  // The fixture's day, so usage.api-counts' windows have rows in them.
  svc = await startTestService({ fixtures: FIXTURES, clock: () => new Date('2024-05-01T12:30:00Z') });
  const response = await svc.get('/openapi.json', { 'x-api-key': TEST_KEY });
  expect(response.status).toBe(200);
  document = (await response.json()) as Json;
});
afterAll(() => svc?.close());

/**
 * `node` with every `$ref` into the document replaced by what it names. A schema that contains
 * itself (a field's nested fields) is cut at its second appearance, where anything is allowed.
 */
function resolved(node: any, within: ReadonlySet<string> = new Set(), from: Json = document): any {
  if (Array.isArray(node)) return node.map((item) => resolved(item, within, from));
  if (node === null || typeof node !== 'object') return node;
  if (typeof node.$ref === 'string') {
    const ref = node.$ref as string;
    if (within.has(ref)) return {};
    const target = ref
      .slice(2)
      .split('/')
      .reduce((at: any, key) => at[key], from);
    return resolved(target, new Set([...within, ref]), from);
  }
  return Object.fromEntries(Object.entries(node).map(([key, value]) => [key, resolved(value, within, from)]));
}

interface Operation {
  path: string;
  method: string;
  parameters: Json[];
  body?: Json;
  responses: Json;
  /** The endpoint's CTEs, for sandbox SQL. */
  ctes: string[];
}

function operations(): Operation[] {
  const found: Operation[] = [];
  for (const [path, item] of Object.entries(document.paths as Json)) {
    for (const [method, operation] of Object.entries(item as Json)) {
      const op = resolved(operation);
      const name = path.split('/').pop()!;
      const endpoint = svc.service.registry.find(name);
      found.push({
        path,
        method: method.toUpperCase(),
        parameters: op.parameters ?? [],
        body: op.requestBody?.content?.['application/json']?.schema,
        responses: op.responses,
        ctes: endpoint?.analysis.ctes ?? [],
      });
    }
  }
  return found;
}

// --- values -------------------------------------------------------------------------------

const garbage = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 24 }),
  fc.constantFrom('', ' ', '\u0000', 'null', '%', '%zz', '\u{1F600}', 'x'.repeat(3000), 'x'.repeat(10_000), "' or 1=1 --", '{{projectId}}', '@project'),
);

function timestamps(): fc.Arbitrary<string> {
  const instant = fc.date({ min: new Date('2024-04-24T00:00:00Z'), max: new Date('2024-05-02T00:00:00Z'), noInvalidDate: true });
  return fc.oneof(
    instant.map((date) => date.toISOString()),
    instant.map((date) => date.toISOString().replace('Z', '+02:00').replace('T', ' ')),
    instant.map((date) => date.toISOString().replace('.', '.1234').replace('Z', '-0530')),
  );
}

const badTimestamps = fc.constantFrom('2024-05-01T12:00:00', '2024-13-01T00:00:00Z', '2024-05-01T12:00:00.1234567Z', 'yesterday', '1714557600', '2024-05-01T25:00:00Z');
const patterns = fc.constantFrom('alpha', 'beta', 'al.*a', '^https://alpha\\.', '(?i)ALPHA', 'nomatch', '/rest/', '.');
const badPatterns = fc.constantFrom('(', '[a-', '(?<name>x)', 'a{1001}', '\\', '*');

/** SQL a client might send over `ctes`: most of it runs, some is wrong in the ways clients get it wrong. */
function sandboxSql(ctes: string[]): fc.Arbitrary<string> {
  const cte = fc.constantFrom(...ctes);
  const limit = fc.integer({ min: 0, max: 50 });
  const valid = fc.oneof(
    fc.tuple(cte, limit).map(([name, n]) => `select * from ${name} limit ${n}`),
    cte.map((name) => `select count(*) as n from ${name}`),
    fc.tuple(cte, fc.constantFrom('id', 'timestamp', 'event_message')).map(([name, column]) => `select ${column} from ${name} order by 1 desc limit 5`),
    fc.tuple(cte, patterns).map(([name, pattern]) => `select event_message from ${name} where regexp_contains(event_message, '${pattern.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}')`),
    fc.constant('select 1 as one, true as yes, null as nothing, 2.5 as half'),
    fc.constant('select @project as p'),
  );
  const invalid = fc.oneof(
    cte.map((name) => `select no_such_column from ${name}`),
    cte.map((name) => `select cast(event_message as int64) as n from ${name}`),
    fc.constantFrom(
      'select * from `cloudflare.logs.prod`',
      'delete from edge_logs',
      'select',
      'select * from edge_logs; select 1',
      'select * from information_schema.tables',
      `select 1 -- ${'x'.repeat(100_001)}`,
    ),
  );
  return fc.oneof({ weight: 3, arbitrary: valid }, { weight: 1, arbitrary: invalid });
}

/** A value for a parameter: from its schema mostly, garbage sometimes. */
function parameterValue(parameter: Json, ctes: string[]): fc.Arbitrary<string> {
  const schema = parameter.schema ?? {};
  let valid: fc.Arbitrary<string>;
  let invalid: fc.Arbitrary<string> = garbage;
  if (parameter.name === 'sql') valid = sandboxSql(ctes);
  else if (schema.enum) {
    valid = fc.constantFrom(...(schema.enum as unknown[]).filter((value) => value !== null).map(String));
    invalid = fc.oneof(garbage, fc.constantFrom('weekly', 'MINUTELY', 'daily '));
  } else if (schema.format === 'date-time') {
    valid = timestamps();
    invalid = fc.oneof(garbage, badTimestamps);
  } else if (schema.format === 'regex') {
    valid = patterns;
    invalid = fc.oneof(garbage, badPatterns);
  } else if (schema.type === 'integer') valid = fc.integer().map(String);
  else if (schema.type === 'number') valid = fc.double({ noNaN: true, noDefaultInfinity: true }).map(String);
  else if (schema.type === 'boolean') valid = fc.constantFrom('true', 'false');
  else valid = fc.oneof(fc.constantFrom('alpha', 'beta', 'gamma'), fc.string({ minLength: schema.minLength ?? 0, maxLength: 20 }));
  return fc.oneof({ weight: 4, arbitrary: valid }, { weight: 1, arbitrary: invalid });
}

/** Headers a caller sends: the key (mostly right), the document's header parameters, Accept. */
function headers(op: Operation): fc.Arbitrary<Record<string, string>> {
  const key = fc.oneof(
    { weight: 8, arbitrary: fc.constant({ 'x-api-key': TEST_KEY }) },
    { weight: 1, arbitrary: fc.constant({ authorization: `Bearer ${TEST_KEY}` }) },
    { weight: 1, arbitrary: fc.constantFrom({}, { 'x-api-key': 'wrong' }, { authorization: 'Basic abc' }) },
  );
  const documented = op.parameters
    .filter((parameter) => parameter.in === 'header')
    .map((parameter) =>
      fc.option(
        parameter.name === 'If-None-Match'
          ? fc.constantFrom('*', '"nope"', 'W/"x", *', '')
          : fc.oneof(fc.constantFrom('true', 'false', 'TRUE', 'False'), fc.constantFrom('maybe', '', 'true, true')),
        { nil: undefined },
      ).map((value) => (value === undefined ? {} : { [parameter.name.toLowerCase()]: value })),
    );
  const accept = fc.option(
    fc.constantFrom('application/json', 'application/x-ndjson', 'text/csv', '*/*', 'text/html', 'text/csv, */*;q=0.1', 'application/json;q=0, */*;q=0'),
    { nil: undefined, freq: 2 },
  );
  const huge = fc.oneof({ weight: 30, arbitrary: fc.constant({}) }, { weight: 1, arbitrary: fc.constant({ 'x-padding': 'p'.repeat(70 * 1024) }) });
  return fc.tuple(key, accept, huge, ...documented).map(([keyHeaders, acceptValue, padding, ...rest]) =>
    Object.assign({}, keyHeaders, acceptValue === undefined ? {} : { accept: acceptValue }, padding, ...rest),
  );
}

/** The query string: each documented parameter present or not (a required one mostly present), now and then repeated or joined by an unknown one. */
function queryString(op: Operation): fc.Arbitrary<string> {
  const entries = op.parameters
    .filter((parameter) => parameter.in === 'query')
    .map((parameter) =>
      fc
        .tuple(fc.integer({ min: 0, max: 19 }), parameterValue(parameter, op.ctes))
        .map(([roll, value]): [string, string][] => {
          const present = parameter.required ? roll > 0 : roll > 8;
          if (!present) return [];
          return roll === 19 ? [[parameter.name, value], [parameter.name, value]] : [[parameter.name, value]];
        }),
    );
  const unknown = fc.oneof(
    { weight: 9, arbitrary: fc.constant<[string, string][]>([]) },
    { weight: 1, arbitrary: fc.constantFrom<[string, string][]>([['projct', 'alpha']], [['SQL', 'select 1']], [['', 'x']]) },
  );
  return fc.tuple(unknown, ...entries).map(([extra, ...lists]) => new URLSearchParams([...lists.flat(), ...extra]).toString());
}

/** A POST body: an object from the body schema (its values valid, of other types, or null), or something else. */
function body(op: Operation): fc.Arbitrary<string> {
  const schema = op.body ?? { properties: {} };
  const byName = new Map(op.parameters.filter((parameter) => parameter.in === 'query').map((parameter) => [parameter.name, parameter]));
  const members = Object.entries((schema.properties ?? {}) as Json).map(([name, property]) => {
    const asParameter = byName.get(name) ?? { name, schema: property };
    const value = fc.oneof(
      { weight: 6, arbitrary: parameterValue(asParameter, op.ctes) as fc.Arbitrary<unknown> },
      { weight: 1, arbitrary: fc.constantFrom<unknown>(null, 7, true, ['alpha'], { eq: 'alpha' }) },
    );
    const required = (schema.required ?? []).includes(name);
    return fc.tuple(fc.integer({ min: 0, max: 9 }), value).map(([roll, one]) => ((required ? roll > 0 : roll > 4) ? [[name, one]] : []));
  });
  const object = fc.tuple(...members).map((lists) => JSON.stringify(Object.fromEntries(lists.flat() as [string, unknown][])));
  const other = fc.constantFrom(
    '',
    '[]',
    'null',
    '"alpha"',
    '{"project": ',
    'not json',
    '{"project": "alpha", "project": "beta"}',
    '{"project": "alpha", "extra": 1}',
    JSON.stringify({ project: 'alpha', pad: 'x'.repeat(2 * 1024 * 1024) }),
  );
  return fc.oneof({ weight: 5, arbitrary: object }, { weight: 1, arbitrary: other });
}

interface Generated {
  /** The operation's index in `operations()`, whose responses the answer must be among. */
  op: number;
  request: RawRequest;
}

const QUERY_PATH = '/api/endpoints/query/';

function requests(ops: Operation[]): fc.Arbitrary<Generated> {
  return fc.oneof(
    ...ops.map((op, index) =>
      fc
        .tuple(
          fc.oneof({ weight: 12, arbitrary: fc.constant(op.method) }, { weight: 1, arbitrary: fc.constantFrom('PUT', 'DELETE', 'PATCH', 'OPTIONS') }),
          queryString(op),
          headers(op),
          body(op),
          op.path.startsWith(QUERY_PATH)
            ? fc.oneof({ weight: 12, arbitrary: fc.constant(op.path) }, { weight: 1, arbitrary: fc.constantFrom(`${QUERY_PATH}no.such.endpoint`, `${QUERY_PATH}LOGS.ALL`) })
            : fc.constant(op.path),
        )
        .map(([method, query, sent, text, path]): Generated => {
          const withBody = method === 'POST' || method === 'PUT' || method === 'PATCH';
          return {
            op: index,
            request: {
              method,
              path: query && method === 'GET' ? `${path}?${query}` : path,
              headers: withBody ? { 'content-type': 'application/json', ...sent } : sent,
              ...(withBody ? { body: text } : {}),
            },
          };
        }),
    ),
  );
}

// --- checking answers -------------------------------------------------------------------

const ajv = new Ajv2020({ strict: false, allErrors: true });
const validators = new Map<object, ValidateFunction>();

function validatorOf(schema: object): ValidateFunction {
  let validate = validators.get(schema);
  if (!validate) validators.set(schema, (validate = ajv.compile(schema)));
  return validate;
}

/** The answer is one the document lists for the operation, with a body it describes. */
function expectDocumented(op: Pick<Operation, 'responses'>, request: RawRequest, response: RawResponse): void {
  const context = `${request.method} ${request.path.slice(0, 200)}\nheaders ${JSON.stringify(request.headers).slice(0, 200)}\nbody ${String(request.body).slice(0, 200)}\n-> ${response.status} ${response.contentType} ${response.text.slice(0, 300)}`;
  expect(response.status, context).toBeLessThan(500);
  const listed = op.responses[String(response.status)] ?? op.responses.default;
  expect(listed, `status ${response.status} is not in the document\n${context}`).toBeDefined();
  if (!listed.content) {
    expect(response.text, `the document says no body\n${context}`).toBe('');
    return;
  }
  // A HEAD-less run: every listed answer with content has a body (an empty CSV/NDJSON of no rows aside).
  const type = response.contentType.split(';')[0]!.trim();
  const media = listed.content[type];
  expect(media, `content type ${type} is not listed for ${response.status}\n${context}`).toBeDefined();
  if (type !== 'application/json') return;
  const validate = validatorOf(media.schema);
  const valid = validate(JSON.parse(response.text));
  expect(valid, `${ajv.errorsText(validate.errors)}\n${context}`).toBe(true);
}

describe('the service against its OpenAPI document', () => {
  it('answers every generated request as the document says', async () => {
    const ops = operations();
    expect(ops.map((op) => `${op.method} ${op.path}`).sort()).toEqual([
      'GET /api/endpoints',
      'GET /api/endpoints/query/logs.all',
      'GET /api/endpoints/query/usage.api-counts',
      'GET /health',
      'POST /api/endpoints/query/logs.all',
      'POST /api/endpoints/query/usage.api-counts',
    ]);
    const statuses = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(requests(ops), async (generated) => {
        const response = await send(svc.url, generated.request);
        statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
        expectDocumented(ops[generated.op]!, generated.request, response);
      }),
      { seed: SEED, numRuns: RUNS },
    );
    // The default run reaches the answers worth checking: rows, and each kind of mistake's error.
    if (process.env.FUZZ_SEED === undefined) {
      for (const status of [200, 304, 400, 401, 404, 405, 406, 413, 414, 431]) expect(statuses.get(status) ?? 0, `no ${status} in ${JSON.stringify([...statuses])}`).toBeGreaterThan(0);
    }
  });
});

// --- the ingest routes ----------------------------------------------------------------------

/**
 * The ingest routes, as a `serve` that takes events (CANNERY_INGEST=true) describes them to a key
 * that may send: requests generated from those operations (their sources, both ways of naming one
 * on Logflare's route) with the mistakes shippers make (bodies that are not events or not JSON,
 * events of the wrong types, wrong content types and encodings, gzip that is not, more events than
 * the queue holds, a body past the bound, keys without the scope), each answered as the document
 * says and below 500; the server answers /health and takes a good request after.
 */
describe('the ingest routes against their OpenAPI document', () => {
  const SHIPPER = 'fuzz-shipper-key';
  const READER = 'fuzz-reader-key';
  const UNSCOPED = 'fuzz-unscoped-key';
  let dir: string;
  let serve: ServeProcess;
  let ingestDocument: Json;

  const MAX_BYTES = 64 * 1024;
  /** Each request may commit: fewer than the read-only run's. */
  const INGEST_RUNS = 200;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'cannery-ingest-fuzz-'));
    await writeFile(
      join(dir, 'keys.yaml'),
      `keys:\n  - { name: reader, sha256: ${keyDigest(READER)} }\n  - { name: shipper, sha256: ${keyDigest(SHIPPER)}, endpoints: [], ingest: [gotrue.logs.prod, postgres.logs] }\n`,
    );
    await loadFixtures(join(dir, 'data.duckdb'), { 'gotrue.logs.prod': [{ id: 'seed', timestamp: '2026-11-27T10:00:00Z', event_message: 'seeded', metadata: { level: 'info' } }] });
    serve = await startServe(['--db', join(dir, 'data.duckdb'), '--endpoints', SHIPPED_ENDPOINTS], {
      CANNERY_API_KEYS: UNSCOPED,
      CANNERY_KEYS_FILE: join(dir, 'keys.yaml'),
      CANNERY_COMPILE_CACHE: 'off',
      CANNERY_CONSOLE: 'false',
      CANNERY_LOG_LEVEL: 'error',
      CANNERY_INGEST: 'true',
      CANNERY_INGEST_MAX_BYTES: String(MAX_BYTES),
      CANNERY_INGEST_QUEUE_EVENTS: '500',
    });
    const response = await fetch(`${serve.url}/openapi.json`, { headers: { 'x-api-key': SHIPPER } });
    expect(response.status).toBe(200);
    ingestDocument = (await response.json()) as Json;
  }, 60_000);
  afterAll(async () => {
    await serve?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('answers every generated request to an ingest route as the document says, and stays healthy', async () => {
    const ops = Object.entries(ingestDocument.paths as Json).flatMap(([path, item]) =>
      Object.entries(item as Json)
        .filter(([, operation]) => (operation as Json).tags?.includes('ingest'))
        .map(([method, operation]) => {
          const op = resolved(operation, new Set(), ingestDocument);
          return { path, method: method.toUpperCase(), parameters: (op.parameters ?? []) as Json[], responses: op.responses as Json };
        }),
    );
    expect(ops.map((op) => `${op.method} ${op.path}`).sort()).toEqual([
      'POST /api/logs',
      'POST /api/sources/gotrue.logs.prod/events',
      'POST /api/sources/postgres.logs/events',
      'POST /logs',
    ]);
    const logflareIds = ops.find((op) => op.path === '/api/logs')!.parameters.find((parameter) => parameter.name === 'source')!.schema.enum as string[];
    expect(logflareIds).toHaveLength(2);
    const statuses = new Map<number, number>();
    const generated = fc.oneof(...ops.map((op, index) => ingestRequest(op, logflareIds).map((request) => ({ op: index, request }))));
    await fc.assert(
      fc.asyncProperty(generated, async ({ op, request }) => {
        const response = await send(serve.url, request);
        statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
        expectDocumented(ops[op]!, request, response);
      }),
      { seed: SEED, numRuns: INGEST_RUNS },
    );
    if (process.env.FUZZ_SEED === undefined) {
      for (const status of [200, 400, 401, 403, 404, 405, 413, 415]) expect(statuses.get(status) ?? 0, `no ${status} in ${JSON.stringify([...statuses])}`).toBeGreaterThan(0);
    }
    expect((await fetch(`${serve.url}/health`)).status).toBe(200);
    const after = await fetch(`${serve.url}/api/sources/gotrue.logs.prod/events`, {
      method: 'POST',
      headers: { 'x-api-key': SHIPPER, 'content-type': 'application/x-ndjson' },
      body: JSON.stringify({ id: 'after-fuzz', timestamp: '2026-11-28T12:00:00Z', event_message: 'still taking events' }),
    });
    expect(after.status, await after.clone().text()).toBe(200);
    expect(serve.child.exitCode).toBeNull();
  }, 300_000);

  const event = fc.record(
    {
      id: fc.uuid(),
      timestamp: fc.oneof(timestamps(), fc.constant(1764331200123), fc.constant(1764331200123456)),
      event_message: fc.string({ minLength: 1, maxLength: 40 }),
      project: fc.constantFrom('alpha', 'beta'),
      metadata: fc.record({ level: fc.constantFrom('info', 'warn', 'error'), path: fc.constantFrom('/token', '/user') }, { requiredKeys: [] }),
    },
    { requiredKeys: ['timestamp'] },
  );
  /** An event a source refuses: a value of another type, a timestamp that is none, metadata that is not a record. */
  const badEvent = fc.oneof(
    event.map((one) => ({ ...one, timestamp: 'yesterday' })),
    event.map((one) => ({ ...one, event_message: 42 })),
    event.map((one) => ({ ...one, metadata: 'flat' })),
    event.map((one) => ({ ...one, metadata: { level: { nested: [1, [2]] } } })),
    fc.constantFrom<unknown>(null, 7, 'text', [], [{}]),
  );
  const events = fc.oneof(
    { weight: 6, arbitrary: fc.array(event, { maxLength: 20 }) },
    { weight: 2, arbitrary: fc.tuple(fc.array(event, { maxLength: 5 }), badEvent).map(([good, bad]) => [...good, bad]) },
    // More than the queue holds (500), under the byte bound: taken whole when nothing waits, else a 429.
    { weight: 1, arbitrary: fc.integer({ min: 501, max: 1200 }).map((count) => Array.from({ length: count }, (_, index) => ({ timestamp: '2026-11-28T12:00:00Z', event_message: `n${index}` }))) },
  );
  const bodyText = fc.oneof(
    { weight: 4, arbitrary: events.map((list) => ({ text: JSON.stringify(list), kind: 'json' })) },
    { weight: 3, arbitrary: events.map((list) => ({ text: list.map((one) => JSON.stringify(one)).join('\n'), kind: 'ndjson' })) },
    { weight: 2, arbitrary: events.map((list) => ({ text: JSON.stringify({ batch: list }), kind: 'json' })) },
    { weight: 2, arbitrary: event.map((one) => ({ text: JSON.stringify(one), kind: 'json' })) },
    {
      weight: 2,
      arbitrary: fc
        .constantFrom('', 'not json', '{"batch": ', '{"batch": 7}', '[1, 2', '\u0000\u0001', 'null', '"event"', '{}\n{', JSON.stringify({ pad: 'x'.repeat(MAX_BYTES) }))
        .map((text) => ({ text, kind: 'json' })),
    },
  );
  const gzipGarbage = fc.oneof(
    fc.uint8Array({ maxLength: 64 }).map((bytes) => Buffer.from(bytes)),
    fc.uint8Array({ maxLength: 64 }).map((bytes) => Buffer.concat([Buffer.from([0x1f, 0x8b, 0x08, 0x00]), Buffer.from(bytes)])),
    fc.constant(gzipSync(Buffer.alloc(4 << 20, ' '))),
  );
  const ingestRequest = (op: { path: string; method: string; parameters: Json[] }, ids: string[]): fc.Arbitrary<RawRequest> => {
    const logflare = op.path === '/api/logs' || op.path === '/logs';
    const names = op.parameters.find((parameter) => parameter.name === 'source_name')?.schema.enum as string[] | undefined;
    const query = logflare
      ? fc.oneof(
          { weight: 4, arbitrary: fc.constantFrom(...names!).map((name) => `?source_name=${encodeURIComponent(name)}`) },
          { weight: 4, arbitrary: fc.constantFrom(...ids).map((id) => `?source=${id}`) },
          {
            weight: 2,
            arbitrary: fc.constantFrom(
              '',
              '?source=00000000-0000-4000-8000-000000000000',
              '?source=not-a-uuid',
              '?source_name=cloudflare.logs.prod',
              '?source_name=no.such.source',
              `?source=${ids[0]}&source_name=${names![0]}`,
              `?source_name=${names![0]}&api_key=${SHIPPER}`,
              '?source_name=',
            ),
          },
        )
      : fc.constant('');
    const path = logflare
      ? fc.constant(op.path)
      : fc.oneof({ weight: 10, arbitrary: fc.constant(op.path) }, { weight: 1, arbitrary: fc.constantFrom('/api/sources/no.such/events', '/api/sources/cloudflare.logs.prod/events', '/api/sources/%zz/events') });
    const key = fc.oneof(
      { weight: 10, arbitrary: fc.constant<Record<string, string>>({ 'x-api-key': SHIPPER }) },
      { weight: 1, arbitrary: fc.constantFrom<Record<string, string>>({ 'x-api-key': READER }, { 'x-api-key': UNSCOPED }, {}, { 'x-api-key': 'wrong' }, { authorization: `Bearer ${SHIPPER}` }) },
    );
    const type = fc.oneof(
      { weight: 8, arbitrary: fc.constant<string | undefined>(undefined) },
      { weight: 1, arbitrary: fc.constantFrom<string | undefined>('text/plain', 'multipart/form-data; boundary=x', 'application/json; charset=utf-8', 'application/ndjson', 'garbage', '') },
    );
    const encoding = fc.oneof({ weight: 6, arbitrary: fc.constant('identity') }, { weight: 3, arbitrary: fc.constant('gzip') }, { weight: 1, arbitrary: fc.constantFrom('br', 'deflate', 'gzip, gzip', 'x-gzip') });
    const method = fc.oneof({ weight: 15, arbitrary: fc.constant('POST') }, { weight: 1, arbitrary: fc.constantFrom('GET', 'PUT', 'DELETE') });
    return fc
      .tuple(method, path, query, key, type, encoding, bodyText, fc.option(gzipGarbage, { freq: 3 }))
      .map(([verb, at, search, keyHeaders, contentType, coding, { text, kind }, garbled]) => {
        const body = coding === 'identity' ? text : (garbled ?? gzipSync(text));
        const headers: Record<string, string> = { ...keyHeaders, 'content-type': contentType ?? (kind === 'ndjson' ? 'application/x-ndjson' : 'application/json') };
        if (coding !== 'identity') headers['content-encoding'] = coding;
        return verb === 'GET' ? { method: verb, path: `${at}${search}`, headers: keyHeaders } : { method: verb, path: `${at}${search}`, headers, body };
      });
  };
});
