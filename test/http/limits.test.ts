/**
 * Limits over the real server: URL length (cannery's JSON 414, then node's own 431), sandbox
 * `sql` length, and backend queries at once with a bounded queue (429 with Retry-After), with
 * the backend held so the slots stay taken as long as the test needs.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { JSON_CONTENT_TYPE } from '../../src/http/errors.js';
import { MAX_HEADER_BYTES, MAX_URL_LENGTH } from '../../src/http/limits.js';
import { MAX_SANDBOX_SQL_LENGTH } from '../../src/engine/serve/sandbox-compile.js';
import { cachedEndpoint } from '../engine/serve/cache/harness.js';
import { endpointText } from '../support/endpoint-text.js';
import { startOpsService, type OpsService } from '../support/ops-service.js';

const Q = '/api/endpoints/query/';

let ops: OpsService;

beforeAll(async () => {
  ops = await startOpsService({
    endpoints: {
      'plain.yaml': endpointText('limits.plain', ['v: { type: string, required: true }'], ['select @v as v']).replace('sandbox: false', 'sandbox: true'),
      'cached.yaml': cachedEndpoint('limits.cached', '{ ttl_seconds: 60 }', ['v: { type: string, required: true }'], ['select @v as v']),
    },
    maxConcurrentQueries: 1,
    maxQueuedQueries: 1,
  });
});
afterAll(() => ops.close());

describe('URL length', () => {
  it(`a URL over ${MAX_URL_LENGTH} characters is a JSON 414 that says to POST`, async () => {
    const path = `${Q}limits.plain?v=`;
    const atLimit = await ops.send(path + 'a'.repeat(MAX_URL_LENGTH - path.length));
    expect(atLimit.status).toBe(200);

    const response = await ops.send(`${path}${'a'.repeat(20_000)}`);
    expect(response.status).toBe(414);
    expect(response.headers.get('content-type')).toBe(JSON_CONTENT_TYPE);
    const { error } = (await response.json()) as any;
    expect(error.code).toBe('uri_too_long');
    expect(error.message).toContain(`the limit is ${MAX_URL_LENGTH}`);
    expect(error.message).toContain('POST');
  });

  it(`past ${MAX_HEADER_BYTES} bytes of request line and headers, node answers 431 itself`, async () => {
    const response = await ops.send(`${Q}limits.plain?v=${'a'.repeat(MAX_HEADER_BYTES)}`);
    expect(response.status).toBe(431);
  });
});

describe('sql length', () => {
  it(`sql over ${MAX_SANDBOX_SQL_LENGTH} characters, POSTed, is a 400 naming the limit`, async () => {
    const sql = `select @v as v -- ${'x'.repeat(MAX_SANDBOX_SQL_LENGTH)}`;
    const response = await ops.send(`${Q}limits.plain`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ v: 'a', sql }) });
    expect(response.status).toBe(400);
    const { error } = (await response.json()) as any;
    expect(error).toMatchObject({ code: 'sandbox_violation', param: 'sql' });
    expect(error.message).toContain(`the limit is ${MAX_SANDBOX_SQL_LENGTH}`);
  });
});

describe('backend queries at once', () => {
  it('past the running and queued queries, 429 too_many_requests with Retry-After; the queue then drains', async () => {
    // Warm one key first: cache hits take no slot and never wait.
    expect((await ops.send(`${Q}limits.cached?v=hot`)).status).toBe(200);
    const release = ops.backend.hold();
    const running = ops.send(`${Q}limits.plain?v=first`);
    let queued: Promise<Response> | undefined;
    try {
      await vi.waitFor(() => expect(ops.backend.inFlight).toBe(1));
      queued = ops.send(`${Q}limits.plain?v=second`);
      await vi.waitFor(async () => expect((await ops.metrics()).value('cannery_backend_queries_queued')).toBe(1));

      const refused = await ops.send(`${Q}limits.plain?v=third`);
      expect(refused.status).toBe(429);
      expect(refused.headers.get('retry-after')).toBe('1');
      expect(refused.headers.get('content-type')).toBe(JSON_CONTENT_TYPE);
      const { error } = (await refused.json()) as any;
      expect(error.code).toBe('too_many_requests');
      expect(error.message).toContain('1 backend queries with 1 more waiting');

      const hit = await ops.send(`${Q}limits.cached?v=hot`);
      expect([hit.status, hit.headers.get('x-cache')]).toEqual([200, 'HIT']);
      expect(ops.backend.maxInFlight).toBe(1);
    } finally {
      release();
    }
    expect((await running).status).toBe(200);
    expect((await queued!).status).toBe(200);
    // The refused query never reached the backend.
    expect(ops.backend.requests.slice(-3).map((request) => request.values.v)).toEqual(['hot', 'first', 'second']);
    const samples = await ops.metrics();
    expect([samples.value('cannery_backend_queries_in_flight'), samples.value('cannery_backend_queries_queued')]).toEqual([0, 0]);
    expect(samples.value('cannery_http_requests_total', { route: 'query', endpoint: 'limits.plain', status: '429' })).toBe(1);
  });
});
