/**
 * Both shipped endpoints, end to end over the real h3 server, on the BigQuery backend
 * (CANNERY_BACKEND=bigquery settings through openService) against a local server that speaks
 * BigQuery's REST API, compared with the same endpoints on DuckDB.
 *
 * The DuckDB service answers from fixtures; the fake BigQuery answers each query with those
 * same rows written in BigQuery's REST form (TIMESTAMP as int64 or as float seconds, paged two
 * rows at a time). The HTTP bodies must be identical: one wire format, whichever backend runs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readSettings } from '../../../src/config/settings.js';
import type { Service } from '../../../src/engine/serve/service.js';
import { createApp } from '../../../src/http/app.js';
import { listen, type RunningServer } from '../../../src/http/server.js';
import { openService } from '../../../src/cli/open-service.js';
import { apiRequest, edgeLog, EDGE, queryPath } from '../../endpoints/edge-fixtures.js';
import { restRows, startFakeBigQuery, type FakeBigQuery, type SchemaField, type TimestampForm } from '../../support/bigquery-server.js';
import { SHIPPED_ENDPOINTS, startTestService, TEST_KEY, type TestService } from '../../support/service.js';
import { createLogger } from '../../../src/core/logger.js';
import { quoteString as bigQueryQuoteString } from '../../../src/sql/dialects/bigquery/quote.js';
import { REDACTION_RULES } from '../../../src/sql/sandbox/redaction-rules.js';

const NOW = new Date('2024-05-01T12:34:56.789Z');

const FIXTURES = {
  [EDGE]: [
    edgeLog('e-1', '2024-05-01T08:00:00.123456Z', 'proj-a', {
      request: { method: 'POST', path: '/rest/v1/items', search: null, headers: { user_agent: 'curl/8.5.0', x_real_ip: '10.0.0.1' }, cf: { country: 'NZ' } },
      response: { status_code: 201, origin_time: 5_000_000_000, headers: { cf_cache_status: 'MISS' } },
      cached: false,
      ratio: 0.25,
      tags: ['alpha', 'beta'],
      attempts: [{ n: 1, ok: false }, { n: 2, ok: true, note: 'retried after 503' }],
    }),
    edgeLog('e-2', '2024-05-01T07:00:00Z', 'proj-a', { request: { method: 'GET', path: '/auth/v1/token' }, tags: [] }),
    edgeLog('e-3', '2024-05-01T06:59:59.5Z', 'proj-a'),
    edgeLog('e-4', '2024-04-30T23:00:00Z', 'proj-a', { request: { method: 'GET', path: '/storage/v1/object/a' } }),
    apiRequest('u-1', '2024-05-01T12:00:00Z', 'usage', '/rest/v1/items'),
    apiRequest('u-2', '2024-05-01T12:00:30.25Z', 'usage', '/storage/v1/object/x'),
    apiRequest('u-3', '2024-05-01T12:20:00Z', 'usage', '/realtime/v1/websocket'),
    apiRequest('u-4', '2024-05-01T12:34:00Z', 'usage', '/auth/v1/user'),
  ],
};

const LOGS_ALL_COLUMNS: SchemaField[] = [
  { name: 'id', type: 'STRING' },
  { name: 'timestamp', type: 'TIMESTAMP' },
  { name: 'event_message', type: 'STRING' },
];
const USAGE_COLUMNS: SchemaField[] = [
  { name: 'timestamp', type: 'DATETIME' },
  ...['total_rest_requests', 'total_storage_requests', 'total_auth_requests', 'total_realtime_requests'].map((name) => ({ name, type: 'INTEGER' })),
];

/**
 * The BigQuery schema of a repeated record holding these values: what the source table's
 * `metadata` would be declared as in BigQuery.
 */
function recordSchema(name: string, records: Record<string, unknown>[]): SchemaField {
  const fields = new Map<string, unknown[]>();
  for (const record of records) for (const [key, value] of Object.entries(record)) fields.set(key, [...(fields.get(key) ?? []), value]);
  return {
    name,
    type: 'RECORD',
    mode: 'REPEATED',
    fields: [...fields].map(([key, values]) => {
      const known = values.filter((value) => value !== null);
      const sample = known.flatMap((value) => (Array.isArray(value) ? value : [value]));
      if (sample.some((value) => typeof value === 'object' && value !== null)) return recordSchema(key, sample as Record<string, unknown>[]);
      const type =
        typeof sample[0] === 'boolean' ? 'BOOLEAN' : typeof sample[0] === 'number' ? (sample.every(Number.isInteger) ? 'INTEGER' : 'FLOAT') : 'STRING';
      return { name: key, type, mode: known.some(Array.isArray) ? 'REPEATED' : 'NULLABLE' };
    }),
  };
}

/** BigQuery has no NULL arrays: a repeated field DuckDB holds as NULL (an absent nested record) BigQuery answers as []. */
function withoutNullArrays(fields: SchemaField[], row: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    fields.map((field) => {
      const value = row[field.name];
      const one = (element: unknown) => (field.type === 'RECORD' && element !== null ? withoutNullArrays(field.fields ?? [], element as Record<string, unknown>) : element);
      return [field.name, field.mode === 'REPEATED' ? ((value as unknown[] | null) ?? []).map(one) : one(value)];
    }),
  );
}

let fake: FakeBigQuery;
let duck: TestService;
let bigquery: { url: string; service: Service; server: RunningServer };
/** The result the fake BigQuery answers the next query with. */
let answer: { fields: SchemaField[]; rows: Record<string, unknown>[]; timestamps: TimestampForm } = { fields: [], rows: [], timestamps: 'int64' };

async function startBigQueryService(env: Record<string, string> = {}) {
  const settings = {
    ...readSettings({
      CANNERY_BACKEND: 'bigquery',
      CANNERY_BQ_PROJECT: 'test-proj',
      CANNERY_BQ_DATASET: 'logs',
      CANNERY_BQ_API_ENDPOINT: fake.url,
      CANNERY_BQ_MAX_BYTES_BILLED: '5000000000',
      ...env,
    }),
    endpointsDir: SHIPPED_ENDPOINTS,
  };
  const service = await openService(settings);
  const server = await listen(createApp({ service, apiKeys: [TEST_KEY], logger: createLogger('silent') }), { port: 0, host: '127.0.0.1' });
  return { url: server.url, service, server };
}

async function stop(running: typeof bigquery | undefined) {
  await running?.server.close();
  await running?.service.close();
  await running?.service.backend.close();
}

async function call(url: string, path: string, headers: Record<string, string> = {}) {
  const response = await fetch(url + path, { headers: { 'x-api-key': TEST_KEY, ...headers } });
  return { status: response.status, text: await response.text(), response };
}

beforeAll(async () => {
  fake = await startFakeBigQuery();
  duck = await startTestService({ fixtures: FIXTURES, clock: () => new Date(NOW) });
  bigquery = await startBigQueryService();
  fake.answer(() => ({ result: { schema: { fields: answer.fields }, rows: restRows(answer.fields, answer.rows, answer.timestamps) }, pageSize: 2 }));
});
afterAll(async () => {
  await stop(bigquery);
  await duck?.close();
  await fake?.close();
});

/**
 * Calls `path` on DuckDB, has the fake BigQuery answer with the same rows, calls `path` on
 * BigQuery: the bodies must be the same bytes (BigQuery's [] for DuckDB's NULL arrays aside).
 */
async function compare(path: string, timestamps: TimestampForm) {
  const fromDuckDb = await call(duck.url, path);
  expect(fromDuckDb.status, fromDuckDb.text).toBe(200);
  const rows = JSON.parse(fromDuckDb.text).result as Record<string, unknown>[];
  const fields = path.includes('logs.all')
    ? [...LOGS_ALL_COLUMNS, recordSchema('metadata', rows.flatMap((row) => row.metadata as Record<string, unknown>[]))]
    : USAGE_COLUMNS;
  answer = { fields, rows, timestamps };
  fake.requests.length = 0;
  const fromBigQuery = await call(bigquery.url, path);
  expect(fromBigQuery.status, fromBigQuery.text).toBe(200);
  expect(fromBigQuery.response.headers.get('content-type')).toBe('application/json; charset=utf-8');
  expect(fromBigQuery.text).toBe(JSON.stringify({ result: rows.map((row) => withoutNullArrays(fields, row)) }));
  return JSON.parse(fromBigQuery.text).result as Record<string, unknown>[];
}

describe('logs.all on BigQuery', () => {
  it.each<TimestampForm>(['int64', 'float'])('answers what DuckDB answers (TIMESTAMP as %s), nested repeated metadata included', async (form) => {
    const rows = await compare(queryPath('logs.all', { project: 'proj-a' }), form);
    expect(rows.map((row) => row.id)).toEqual(['e-1', 'e-2', 'e-3', 'e-4']);
    expect(rows[0]).toMatchObject({ timestamp: 1714550400123456, metadata: [{ tags: ['alpha', 'beta'], response: [{ status_code: 201, origin_time: 5_000_000_000 }] }] });
    // Four rows, two per page: jobs.query, then one getQueryResults.
    expect(fake.polls().map((poll) => poll.pageToken)).toEqual(['page-2']);
  });

  it('sends the mapped SQL with typed parameters, the row cap, labels and the bytes cap', async () => {
    await compare(queryPath('logs.all', { project: 'proj-a', iso_timestamp_start: '2024-05-01T06:00:00+02:00' }), 'int64');
    const [sent] = fake.queries();
    expect(sent.query).toContain('FROM `test-proj.logs.cloudflare_logs_prod` AS `t`');
    expect(sent.query).toContain('FROM `test-proj.logs.pgbouncer_logs_prod` AS `t`');
    expect(sent.query).toMatch(/ORDER BY `timestamp` DESC LIMIT 100$/);
    expect(sent.queryParameters).toEqual([
      { name: 'project', parameterType: { type: 'STRING' }, parameterValue: { value: 'proj-a' } },
      { name: 'iso_timestamp_start', parameterType: { type: 'STRING' }, parameterValue: { value: '2024-05-01T04:00:00.000000Z' } },
      { name: 'iso_timestamp_end', parameterType: { type: 'STRING' }, parameterValue: { value: null } },
    ]);
    expect(sent).toMatchObject({ parameterMode: 'NAMED', useLegacySql: false, labels: { cannery_endpoint: 'logs_all' }, maximumBytesBilled: '5000000000', maxResults: 1000 });
  });
});

describe('usage.api-counts on BigQuery', () => {
  it.each(['minutely', 'hourly', 'daily'])('answers what DuckDB answers (%s): DATETIME buckets and INT64 counts', async (interval) => {
    const rows = await compare(queryPath('usage.api-counts', { interval, project: 'usage' }), 'float');
    expect(rows.length).toBeGreaterThan(0);
    const [sent] = fake.queries();
    expect(sent.query).toContain('TIMESTAMP_SUB(CURRENT_TIMESTAMP(), INTERVAL 60 MINUTE)');
    expect(sent.queryParameters).toEqual([
      { name: 'project', parameterType: { type: 'STRING' }, parameterValue: { value: 'usage' } },
      { name: 'interval', parameterType: { type: 'STRING' }, parameterValue: { value: interval } },
    ]);
  });

  it('has a DATETIME bucket as YYYY-MM-DDTHH:MM:SS and the counts as numbers', async () => {
    const rows = await compare(queryPath('usage.api-counts', { interval: 'minutely', project: 'usage' }), 'int64');
    expect(rows[0]).toEqual({ timestamp: '2024-05-01T12:00:00', total_rest_requests: 1, total_storage_requests: 1, total_auth_requests: 0, total_realtime_requests: 0 });
  });
});

describe('sandbox queries on BigQuery', () => {
  it("compile the caller's SELECT over the endpoint's CTEs with the same dialect: sources mapped, the cap kept", async () => {
    answer = { fields: [{ name: 'id', type: 'STRING' }], rows: [{ id: 'pg-1' }], timestamps: 'int64' };
    fake.requests.length = 0;
    const sql = "select id from postgres_logs where regexp_contains(event_message, 'ERROR') limit 5";
    const { status, text } = await call(bigquery.url, queryPath('logs.all', { project: 'proj-a', sql }));
    expect(status, text).toBe(200);
    expect(JSON.parse(text)).toEqual({ result: [{ id: 'pg-1' }] });
    const [sent] = fake.queries();
    // Sealed (sql/generator/sealed.ts): the CTE under its generated name, read under the caller's.
    expect(sent.query).toContain('WITH postgres_logs__1 AS (SELECT `t`.`id`, `t`.`timestamp`, `t`.`event_message`, `t`.`identifier`, `t`.`metadata` FROM `test-proj.logs.postgres_logs` AS `t`');
    expect(sent.query).toMatch(/ SELECT `id` FROM `postgres_logs__1` AS `postgres_logs` WHERE REGEXP_CONTAINS\(`event_message`, 'ERROR'\) LIMIT 5$/);
    expect(sent.queryParameters.map((parameter: { name: string }) => parameter.name)).toEqual(['project', 'iso_timestamp_start', 'iso_timestamp_end']);
  });
});

describe('sandbox queries on BigQuery with PII redaction on', () => {
  it('send each string the SQL reads wrapped in the RE2 redaction, and redact the answer too', async () => {
    // What BigQuery would answer if it ignored the redaction: the answer's own redaction still holds.
    answer = { fields: [{ name: 'm', type: 'STRING' }], rows: [{ m: 'GET from 203 . 0 . 113 . 9 and 10.0.0.1' }], timestamps: 'int64' };
    fake.requests.length = 0;
    const sql = "select replace(event_message, '.', ' . ') as m from edge_logs where event_message like '%10.0.0%'";
    const { status, text } = await call(bigquery.url, queryPath('logs.all', { project: 'proj-a', sql }), { 'svc-endpoint-redact-pii': 'true' });
    expect(status, text).toBe(200);
    expect(JSON.parse(text)).toEqual({ result: [{ m: 'GET from 203 . 0 . 113 . 9 and REDACTED' }] });
    const [sent] = fake.queries();
    const caller = sent.query.slice(sent.query.lastIndexOf(') SELECT ') + 2);
    // Both reads, each through every rule, as BigQuery string literals of the RE2 patterns.
    expect(caller.split('REGEXP_REPLACE(').length - 1).toBe(2 * (2 ** REDACTION_RULES.length - 1));
    for (const rule of REDACTION_RULES) expect(caller).toContain(`${bigQueryQuoteString(rule.pattern)}, ${bigQueryQuoteString(rule.replacement)})`);
    expect(caller).toMatch(/^SELECT REPLACE\(\(CASE WHEN .*`event_message`.* LIKE '%10\.0\.0%'\) LIMIT 1000$/);
  });
});

describe('errors over HTTP', () => {
  it('a value BigQuery rejects is 400 invalid_parameter naming the parameter', async () => {
    fake.answer(() => ({ error: { status: 400, reason: 'invalidQuery', message: 'Cannot parse regular expression: invalid perl operator: (?i' } }));
    const { status, text } = await call(bigquery.url, queryPath('usage.api-counts', { interval: 'hourly', project: 'ab(?i)c' }));
    expect(status).toBe(400);
    expect(JSON.parse(text)).toEqual({
      error: { code: 'invalid_parameter', param: 'project', message: 'parameter "project" was rejected by BigQuery: Cannot parse regular expression: invalid perl operator: (?i' },
    });
  });

  it('any other failure is 502 query_failed', async () => {
    fake.answer(() => ({ error: { status: 404, reason: 'notFound', message: 'Not found: Table test-proj:logs.cloudflare_logs_prod was not found in location US' } }));
    const { status, text } = await call(bigquery.url, queryPath('logs.all', { project: 'nowhere' }));
    expect(status).toBe(502);
    expect(JSON.parse(text).error).toEqual({
      code: 'query_failed',
      message: 'logs.all: BigQuery could not run the query (notFound): Not found: Table cloudflare.logs.prod was not found in location US',
    });
  });

  it("with redaction on, BigQuery's message is redacted: it quotes the row it failed on", async () => {
    fake.answer(() => ({ error: { status: 400, reason: 'invalidQuery', message: 'Bad int64 value: GET | 200 | 203.0.113.9 | [2001:db8::7]:443' } }));
    const path = queryPath('logs.all', { project: 'proj-a', sql: 'select cast(event_message as int64) as n from edge_logs' });
    const plain = await call(bigquery.url, path);
    expect(JSON.parse(plain.text).error.message).toContain('203.0.113.9');
    const response = await fetch(bigquery.url + path, { headers: { 'x-api-key': TEST_KEY, 'svc-endpoint-redact-pii': 'true' } });
    const text = await response.text();
    // A sandbox query BigQuery refuses is the caller's mistake, as on DuckDB.
    expect(response.status).toBe(400);
    expect(JSON.parse(text).error).toMatchObject({ code: 'invalid_parameter', param: 'sql' });
    expect(JSON.parse(text).error.message).toMatch(/Bad int64 value: GET \| 200 \| REDACTED \| \[REDACTED\]:443$/);
    expect(text).not.toContain('203.0.113.9');
    expect(text).not.toContain('2001:db8::7');
  });

  it('a sandbox query that fails as it runs is the same 400 invalid_parameter on both backends', async () => {
    // event_message is `edge e-1`...: no INT64; proj-a has 4 rows to divide. BigQuery's messages for them, verbatim.
    const cases = [
      { sql: 'select cast(event_message as int64) as n from edge_logs', message: 'Bad int64 value: edge e-1' },
      { sql: 'select count(*) / 0 as q from edge_logs', message: 'division by zero: 4 / 0' },
      { sql: 'select nope from edge_logs', message: 'Unrecognized name: nope at [1:8]' },
    ];
    for (const { sql, message } of cases) {
      fake.answer(() => ({ error: { status: 400, reason: 'invalidQuery', message } }));
      const path = queryPath('logs.all', { project: 'proj-a', sql });
      for (const url of [duck.url, bigquery.url]) {
        const { status, text } = await call(url, path);
        expect(status, `${sql} on ${url === duck.url ? 'DuckDB' : 'BigQuery'}: ${text}`).toBe(400);
        expect(JSON.parse(text).error).toMatchObject({ code: 'invalid_parameter', param: 'sql' });
      }
    }
  });

  it('a query past CANNERY_QUERY_TIMEOUT_MS is 504 query_timeout', async () => {
    fake.answer(() => ({ running: true, holdMs: 50 }));
    const short = await startBigQueryService({ CANNERY_QUERY_TIMEOUT_MS: '300' });
    try {
      const { status, text } = await call(short.url, queryPath('logs.all', { project: 'slow' }));
      expect(status).toBe(504);
      expect(JSON.parse(text).error.code).toBe('query_timeout');
    } finally {
      await stop(short);
    }
  });
});
