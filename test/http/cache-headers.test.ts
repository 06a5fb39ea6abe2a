/**
 * Caching over the real server: a short-TTL endpoint in a temporary endpoints folder, the real
 * DuckDB backend, the h3 app on a socket. The service's clock is moved by hand instead of sleeping.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JSON_CONTENT_TYPE } from '../../src/http/errors.js';
import { endpointText } from '../support/endpoint-text.js';
import { TEST_KEY, startTestService, type TestService } from '../support/service.js';
import { cachedEndpoint, edgeEventsOf } from '../engine/serve/cache/harness.js';

const Q = '/api/endpoints/query/';
const START = Date.parse('2024-05-01T12:00:00Z');

const edgeEvents = edgeEventsOf(['e1', 'e2', 'e3']);

let svc: TestService;
let now = START;

beforeAll(async () => {
  svc = await startTestService({
    fixtures: { 'cloudflare.logs.prod': edgeEvents },
    endpoints: {
      'short.yaml': cachedEndpoint('http.short', '{ ttl_seconds: 2 }', ['project: { type: string, required: true }'], [
        'select t.id, t.event_message from `cloudflare.logs.prod` as t where t.project = @project order by t.id',
      ]),
      'uncached.yaml': endpointText('http.uncached', ['project: { type: string, required: true }'], [
        'select t.id from `cloudflare.logs.prod` as t where t.project = @project order by t.id',
      ]),
    },
    clock: () => new Date(now),
  });
  expect(svc.service.registry.problems).toEqual([]);
});
afterAll(() => svc.close());

async function get(path: string, headers: Record<string, string> = {}) {
  const response = await fetch(svc.url + path, { headers: { 'x-api-key': TEST_KEY, ...headers } });
  return { response, status: response.status, text: await response.text(), header: (name: string) => response.headers.get(name) };
}

describe('HTTP caching', () => {
  it('MISS, then HIT with the same bytes, Age and the seconds left, then expiry', async () => {
    now = START;
    const miss = await get(`${Q}http.short?project=p1`);
    expect(miss.status).toBe(200);
    expect(miss.header('content-type')).toBe(JSON_CONTENT_TYPE);
    expect(JSON.parse(miss.text).result.map((row: { id: string }) => row.id)).toEqual(['e1', 'e2', 'e3']);
    expect({
      cache: miss.header('x-cache'),
      control: miss.header('cache-control'),
      age: miss.header('age'),
      vary: miss.header('vary'),
    }).toEqual({ cache: 'MISS', control: 'private, max-age=2', age: '0', vary: 'Accept, SVC-ENDPOINT-REDACT-PII' });
    const etag = miss.header('etag');
    expect(etag).toMatch(/^"[\w-]+"$/);

    now = START + 1000;
    const hit = await get(`${Q}http.short?project=p1`);
    expect([hit.header('x-cache'), hit.header('cache-control'), hit.header('age'), hit.header('etag')]).toEqual(['HIT', 'private, max-age=1', '1', etag]);
    expect(hit.text).toBe(miss.text);

    now = START + 2000;
    const expired = await get(`${Q}http.short?project=p1`);
    expect([expired.header('x-cache'), expired.header('cache-control'), expired.header('age')]).toEqual(['MISS', 'private, max-age=2', '0']);
    expect(expired.header('etag')).toBe(etag);
  });

  it('If-None-Match with the current ETag is a 304 without a body', async () => {
    now = START + 10_000;
    const first = await get(`${Q}http.short?project=p1`);
    const etag = first.header('etag')!;
    for (const ifNoneMatch of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
      const notModified = await get(`${Q}http.short?project=p1`, { 'if-none-match': ifNoneMatch });
      expect(notModified.status).toBe(304);
      expect(notModified.text).toBe('');
      expect([notModified.header('etag'), notModified.header('x-cache'), notModified.header('cache-control')]).toEqual([etag, 'HIT', 'private, max-age=2']);
    }
    const changed = await get(`${Q}http.short?project=p1`, { 'if-none-match': '"something-else"' });
    expect(changed.status).toBe(200);
    expect(changed.text).toBe(first.text);
  });

  it('calls by UUID, by POST body and with reordered parameters share the entry; redaction does not', async () => {
    now = START + 20_000;
    expect((await get(`${Q}http.short?project=p1`)).header('x-cache')).toBe('MISS');
    const id = svc.service.resolve('http.short').definition.id;
    expect((await get(`${Q}${id}?project=p1`)).header('x-cache')).toBe('HIT');
    const posted = await fetch(`${svc.url}${Q}http.short`, {
      method: 'POST',
      headers: { 'x-api-key': TEST_KEY, 'content-type': 'application/json' },
      body: JSON.stringify({ project: 'p1' }),
    });
    expect(posted.headers.get('x-cache')).toBe('HIT');

    const redacted = await get(`${Q}http.short?project=p1`, { 'SVC-ENDPOINT-REDACT-PII': 'true' });
    expect(redacted.header('x-cache')).toBe('MISS');
    expect(redacted.text).not.toContain('203.0.113.7');
    expect((await get(`${Q}http.short?project=p1`, { 'SVC-ENDPOINT-REDACT-PII': 'TRUE' })).header('x-cache')).toBe('HIT');
    expect((await get(`${Q}http.short?project=p1`, { 'SVC-ENDPOINT-REDACT-PII': 'false' })).text).toContain('203.0.113.7');
  });

  it('a hit answered before routing (plain name) equals one answered by the h3 route (percent-encoded name)', async () => {
    now = START + 30_000;
    await get(`${Q}http.short?project=p1`);
    const shortcut = await get(`${Q}http.short?project=p1`);
    const routed = await get(`${Q}http%2Eshort?project=p1`);
    const described = (result: Awaited<ReturnType<typeof get>>) => {
      const headers = Object.fromEntries([...result.response.headers].filter(([name]) => name !== 'date'));
      return { status: result.status, text: result.text, headers };
    };
    expect(described(shortcut).headers['x-cache']).toBe('HIT');
    expect(described(routed)).toEqual(described(shortcut));
  });

  it('an uncached endpoint answers with no-store, no ETag and no X-Cache, and ignores If-None-Match', async () => {
    const first = await get(`${Q}http.uncached?project=p1`);
    expect(first.status).toBe(200);
    expect([first.header('cache-control'), first.header('etag'), first.header('x-cache'), first.header('age')]).toEqual(['no-store', null, null, null]);
    const again = await get(`${Q}http.uncached?project=p1`, { 'if-none-match': '*' });
    expect(again.status).toBe(200);
    expect(again.text).toBe(first.text);
  });

  it('errors carry no cache headers and are not cached', async () => {
    const error = await get(`${Q}http.short?project=`);
    expect(error.status).toBe(400);
    expect([error.header('x-cache'), error.header('etag')]).toEqual([null, null]);
  });

  it('hits in a run, on two entries and across seconds, each say their own Age and seconds left', async () => {
    // The hit shortcut keeps its last answer; every change of entry or second must show.
    now = START + 100_000;
    const etags = new Map<string, string | null>();
    for (const project of ['p1', 'p2']) etags.set(project, (await get(`${Q}http.short?project=${project}`)).header('etag'));
    for (const [after, project] of [[250, 'p1'], [500, 'p1'], [500, 'p2'], [750, 'p1'], [1000, 'p1'], [1250, 'p2'], [1250, 'p1'], [1999, 'p1']] as const) {
      now = START + 100_000 + after;
      const hit = await get(`${Q}http.short?project=${project}`);
      const seen = [hit.header('x-cache'), hit.header('age'), hit.header('cache-control'), hit.header('etag')];
      expect(seen, `${project} at +${after} ms`).toEqual(['HIT', String(Math.floor(after / 1000)), `private, max-age=${Math.floor((2000 - after) / 1000)}`, etags.get(project)]);
    }
  });
});
