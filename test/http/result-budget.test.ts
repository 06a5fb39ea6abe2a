/**
 * CANNERY_MAX_RESULT_BYTES over the real server: an answer over it is a JSON 400
 * result_too_large naming the limit, in every format and for a cached endpoint (never stored);
 * answers within it are untouched, and the service answers as before afterwards.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JSON_CONTENT_TYPE } from '../../src/http/errors.js';
import { FIXTURES, sandboxPath } from '../sql/sandbox/fixtures.js';
import { startTestService, TEST_KEY, type TestService } from '../support/service.js';
import { parsePrometheusText } from '../support/prometheus-text.js';

const LIMIT = 16 * 1024;

/** The kind of query: every space of a row's message replaced by the message, three times over (30 kB for the five rows here). */
const OVERSIZED = [
  "with a as (select replace(event_message, ' ', event_message) as m from edge_logs),",
  "b as (select replace(m, ' ', m) as m from a),",
  "c as (select replace(m, ' ', m) as m from b)",
  'select m from c',
].join(' ');

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService({ fixtures: FIXTURES, env: { CANNERY_MAX_RESULT_BYTES: String(LIMIT) } });
});
afterAll(() => svc.close());

function expectTooLarge(status: number, body: any): void {
  expect(status).toBe(400);
  expect(body.error.code).toBe('result_too_large');
  expect(body.error.message).toContain(`${LIMIT}-byte limit`);
  expect(body.error.message).toContain('CANNERY_MAX_RESULT_BYTES');
}

describe('an answer over CANNERY_MAX_RESULT_BYTES', () => {
  it('is 400 result_too_large naming the limit, where it was a 200 of any size', async () => {
    const { status, body, response } = await svc.call(sandboxPath({ project: 'alpha', sql: OVERSIZED }));
    expect(response.headers.get('content-type')).toBe(JSON_CONTENT_TYPE);
    expectTooLarge(status, body);
  });

  it.each(['application/x-ndjson', 'text/csv'])('is the same JSON error when %s is asked for', async (accept) => {
    const { status, body } = await svc.call(sandboxPath({ project: 'alpha', sql: OVERSIZED }), { accept });
    expectTooLarge(status, body);
  });

  it('is the same when redaction is on', async () => {
    const { status, body } = await svc.call(sandboxPath({ project: 'alpha', sql: OVERSIZED }), { 'svc-endpoint-redact-pii': 'true' });
    expectTooLarge(status, body);
  });

  it('is a 400 by POST too, and the next request is answered as usual', async () => {
    const response = await fetch(`${svc.url}/api/endpoints/query/logs.all`, {
      method: 'POST',
      headers: { 'x-api-key': TEST_KEY, 'content-type': 'application/json' },
      body: JSON.stringify({ project: 'alpha', sql: OVERSIZED }),
    });
    expectTooLarge(response.status, await response.json());
    const { status, body } = await svc.call(sandboxPath({ project: 'alpha' }));
    expect(status).toBe(200);
    expect(body.result).toHaveLength(5);
  });

  it('is counted as a backend failure with its own code', async () => {
    await svc.call(sandboxPath({ project: 'alpha', sql: OVERSIZED }));
    const samples = parsePrometheusText(await (await svc.get('/metrics', { 'x-api-key': TEST_KEY })).text());
    expect(samples.value('cannery_backend_query_errors_total', { endpoint: 'logs.all', code: 'result_too_large' })).toBeGreaterThan(0);
    expect(samples.value('cannery_http_requests_total', { route: 'query', endpoint: 'logs.all', status: '400' })).toBeGreaterThan(0);
  });
});

describe('answers within CANNERY_MAX_RESULT_BYTES', () => {
  it('are whole, in every format', async () => {
    const sql = 'select id, event_message, metadata from edge_logs order by id';
    const json = await svc.call(sandboxPath({ project: 'alpha', sql }));
    expect(json.status).toBe(200);
    expect(json.body.result.map((row: { id: string }) => row.id)).toEqual(['e1', 'e2', 'e3', 'e4', 'e5']);
    const ndjson = await svc.get(sandboxPath({ project: 'alpha', sql }), { 'x-api-key': TEST_KEY, accept: 'application/x-ndjson' });
    expect((await ndjson.text()).trimEnd().split('\n').map((line) => JSON.parse(line))).toEqual(json.body.result);
  });
});

describe('a sandbox query that needs more memory than CANNERY_DUCKDB_MEMORY_LIMIT', () => {
  /** 10,000 rows of about 100 kB: DuckDB computes each vector of 2,048 of them before any row reaches the byte budget. */
  const HUGE = OVERSIZED.replace('select m from c', `select concat(${Array(16).fill('m').join(', ')}, cast(k as string)) as n from c cross join unnest(generate_array(1, 2000)) as k`);
  let small: TestService;
  beforeAll(async () => {
    small = await startTestService({ fixtures: FIXTURES, env: { CANNERY_DUCKDB_MEMORY_LIMIT: '100MB' } });
  });
  afterAll(() => small?.close());

  it("is the caller's 400 naming the limit's setting, and the next query is answered as usual", async () => {
    const { status, body } = await small.call(sandboxPath({ project: 'alpha', sql: HUGE }));
    expect(status).toBe(400);
    expect(body.error).toMatchObject({ code: 'invalid_parameter', param: 'sql', message: expect.stringContaining('Out of Memory') });
    expect(body.error.message).toContain('CANNERY_DUCKDB_MEMORY_LIMIT');
    const next = await small.call(sandboxPath({ project: 'alpha' }));
    expect(next.status).toBe(200);
    expect(next.body.result).toHaveLength(5);
  });
});
