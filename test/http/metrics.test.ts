/**
 * GET /metrics over the real server: Prometheus text that parses, behind a key, and counters that
 * move for a miss, a hit, errors, backend queries and cache warming (driven by fake time).
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { cachedEndpoint } from '../engine/serve/cache/harness.js';
import { endpointText } from '../support/endpoint-text.js';
import { startTestService } from '../support/service.js';
import { startOpsService, type OpsService } from '../support/ops-service.js';
import type { Samples } from '../support/prometheus-text.js';

const Q = '/api/endpoints/query/';

let ops: OpsService;

beforeAll(async () => {
  ops = await startOpsService({
    endpoints: {
      'cached.yaml': cachedEndpoint('ops.cached', '{ ttl_seconds: 60, warm_every_seconds: 10 }', ['v: { type: string, required: true }'], ['select @v as v']),
      'warm.yaml': cachedEndpoint('ops.warm', '{ ttl_seconds: 60, warm_every_seconds: 10 }', ['v: { type: string, required: true }'], ['select @v as v']),
      'plain.yaml': endpointText('ops.plain', ['v: { type: string, required: true }'], ['select @v as v, 1 as n']),
      'cast.yaml': endpointText('ops.cast', ['v: { type: string, required: true }'], ['select cast(@v as int64) as n']),
    },
  });
});
afterAll(() => ops.close());

/** How much each of `read`'s values moved across `action`. */
async function moved(read: (samples: Samples) => Record<string, number>, action: () => Promise<unknown>): Promise<Record<string, number>> {
  const before = read(await ops.metrics());
  await action();
  const after = read(await ops.metrics());
  return Object.fromEntries(Object.entries(after).map(([name, value]) => [name, value - before[name]!]));
}

const requests = (samples: Samples, endpoint: string, status: number) =>
  samples.value('cannery_http_requests_total', { route: 'query', endpoint, status: String(status) });

describe('GET /metrics', () => {
  it('is Prometheus text, behind the API key by default', async () => {
    const refused = await fetch(`${ops.url}/metrics`);
    expect(refused.status).toBe(401);
    expect(((await refused.json()) as any).error.code).toBe('unauthorized');

    const response = await ops.send('/metrics');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    const samples = await ops.metrics();
    expect(samples.type('cannery_http_requests_total')).toBe('counter');
    expect(samples.type('cannery_http_request_duration_seconds')).toBe('histogram');
    expect(samples.type('cannery_cache_requests_total')).toBe('counter');
    expect(samples.type('cannery_cache_lookups_total')).toBe('counter');
    expect(samples.type('cannery_cache_store_errors_total')).toBe('counter');
    // Only with a shared cache store.
    expect(samples.type('cannery_cache_store_up')).toBeUndefined();
    expect(samples.type('cannery_backend_query_duration_seconds')).toBe('histogram');
    expect(samples.type('cannery_backend_query_rows')).toBe('histogram');
    expect(samples.type('cannery_backend_queries_in_flight')).toBe('gauge');
    expect(samples.type('cannery_backend_queries_queued')).toBe('gauge');
    // The process's own series come along.
    expect(samples.type('process_cpu_user_seconds_total')).toBe('counter');
  });

  it('CANNERY_METRICS_PUBLIC=true serves it without a key', async () => {
    const svc = await startTestService({ env: { CANNERY_METRICS_PUBLIC: 'true' } });
    try {
      const response = await svc.get('/metrics');
      expect(response.status).toBe(200);
      expect(await response.text()).toContain('# TYPE cannery_http_requests_total counter');
    } finally {
      await svc.close();
    }
  });

  it('counts a miss and a hit: requests, latency, cache results, the backend query and its rows', async () => {
    const change = await moved(
      (samples) => ({
        ok: requests(samples, 'ops.cached', 200),
        latency: samples.value('cannery_http_request_duration_seconds_count', { route: 'query', endpoint: 'ops.cached' }),
        fastest: samples.value('cannery_http_request_duration_seconds_bucket', { route: 'query', endpoint: 'ops.cached', le: '+Inf' }),
        miss: samples.value('cannery_cache_requests_total', { endpoint: 'ops.cached', result: 'miss' }),
        hit: samples.value('cannery_cache_requests_total', { endpoint: 'ops.cached', result: 'hit' }),
        stale: samples.value('cannery_cache_requests_total', { endpoint: 'ops.cached', result: 'stale' }),
        localHit: samples.value('cannery_cache_lookups_total', { endpoint: 'ops.cached', result: 'local_hit' }),
        tierMiss: samples.value('cannery_cache_lookups_total', { endpoint: 'ops.cached', result: 'miss' }),
        sharedHit: samples.value('cannery_cache_lookups_total', { endpoint: 'ops.cached', result: 'shared_hit' }),
        queries: samples.value('cannery_backend_query_duration_seconds_count', { endpoint: 'ops.cached' }),
        rows: samples.value('cannery_backend_query_rows_sum', { endpoint: 'ops.cached' }),
      }),
      async () => {
        const miss = await ops.send(`${Q}ops.cached?v=a`);
        expect(miss.headers.get('x-cache')).toBe('MISS');
        const hit = await ops.send(`${Q}ops.cached?v=a`);
        expect(hit.headers.get('x-cache')).toBe('HIT');
      },
    );
    expect(change).toEqual({ ok: 2, latency: 2, fastest: 2, miss: 1, hit: 1, stale: 0, localHit: 1, tierMiss: 1, sharedHit: 0, queries: 1, rows: 1 });
  });

  it('counts errors by status, and unresolved endpoints under endpoint=""', async () => {
    const change = await moved(
      (samples) => ({
        missing: requests(samples, 'ops.plain', 400),
        unknown: requests(samples, '', 404),
        keyless: requests(samples, '', 401),
        failed: requests(samples, 'ops.cast', 502),
        backendErrors: samples.value('cannery_backend_query_errors_total', { endpoint: 'ops.cast', code: 'query_failed' }),
      }),
      async () => {
        expect((await ops.send(`${Q}ops.plain`)).status).toBe(400);
        expect((await ops.send(`${Q}no.such.endpoint`)).status).toBe(404);
        expect((await fetch(`${ops.url}${Q}ops.plain?v=a`)).status).toBe(401);
        expect((await ops.send(`${Q}ops.cast?v=abc`)).status).toBe(502);
      },
    );
    expect(change).toEqual({ missing: 1, unknown: 1, keyless: 1, failed: 1, backendErrors: 1 });
    // A name nobody serves makes no series of its own.
    expect((await ops.metrics()).all.some((sample) => sample.labels.endpoint === 'no.such.endpoint')).toBe(false);
  });

  it('counts warming runs, and the ones that fail', async () => {
    expect((await ops.send(`${Q}ops.warm?v=w`)).headers.get('x-cache')).toBe('MISS');
    const read = (samples: Samples) => ({
      runs: samples.value('cannery_cache_warming_runs_total', { endpoint: 'ops.warm' }),
      failures: samples.value('cannery_cache_warming_failures_total', { endpoint: 'ops.warm' }),
    });
    expect(await moved(read, () => ops.time.advance(10_000))).toEqual({ runs: 1, failures: 0 });
    ops.backend.failing = true;
    try {
      expect(await moved(read, () => ops.time.advance(10_000))).toEqual({ runs: 1, failures: 1 });
    } finally {
      ops.backend.failing = false;
    }
  });

  it('shows backend queries in flight while they run', async () => {
    const release = ops.backend.hold();
    const pending = ops.send(`${Q}ops.plain?v=held`);
    try {
      await vi.waitFor(() => expect(ops.backend.inFlight).toBe(1));
      expect((await ops.metrics()).value('cannery_backend_queries_in_flight')).toBe(1);
    } finally {
      release();
    }
    expect((await pending).status).toBe(200);
    expect((await ops.metrics()).value('cannery_backend_queries_in_flight')).toBe(0);
  });
});
