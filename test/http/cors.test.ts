/**
 * CORS over the real server: preflights answered without a key, the headers of an allowed
 * origin's request, nothing for other origins, `*`, and no CORS at all by default.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, TEST_KEY, type TestService } from '../support/service.js';

const USAGE = '/api/endpoints/query/usage.api-counts?interval=hourly&project=p1';
const APP = 'https://app.example.com';

let listed: TestService;
let any: TestService;
let none: TestService;

beforeAll(async () => {
  [listed, any, none] = await Promise.all([
    startTestService({ env: { CANNERY_CORS_ORIGINS: `${APP}, http://localhost:3000` } }),
    startTestService({ env: { CANNERY_CORS_ORIGINS: '*' } }),
    startTestService(),
  ]);
});
afterAll(() => Promise.all([listed, any, none].map((svc) => svc.close())));

const preflight = (svc: TestService, origin: string, path = USAGE) =>
  fetch(svc.url + path, {
    method: 'OPTIONS',
    headers: { origin, 'access-control-request-method': 'GET', 'access-control-request-headers': 'x-api-key, svc-endpoint-redact-pii' },
  });

const corsHeaders = (response: Response) =>
  Object.fromEntries([...response.headers].filter(([name]) => name.startsWith('access-control-') || name === 'vary'));

describe('CORS', () => {
  it('answers a preflight from an allowed origin without a key', async () => {
    const response = await preflight(listed, APP);
    expect(response.status).toBe(204);
    expect(corsHeaders(response)).toEqual({
      'access-control-allow-origin': APP,
      'access-control-allow-methods': 'GET, POST',
      'access-control-allow-headers': 'X-API-KEY, Authorization, Content-Type, SVC-ENDPOINT-REDACT-PII, If-None-Match',
      'access-control-max-age': '600',
      'access-control-expose-headers': 'X-Cache, ETag, Age, Retry-After',
      vary: 'Origin',
    });
    expect(await response.text()).toBe('');
  });

  it("gives an allowed origin's request the origin and the headers a script may read", async () => {
    const response = await fetch(listed.url + USAGE, { headers: { origin: 'http://localhost:3000', 'x-api-key': TEST_KEY } });
    expect(response.status).toBe(200);
    expect(response.headers.get('access-control-allow-origin')).toBe('http://localhost:3000');
    expect(response.headers.get('access-control-expose-headers')).toBe('X-Cache, ETag, Age, Retry-After');
    expect(response.headers.get('vary')).toBe('Accept, SVC-ENDPOINT-REDACT-PII, Origin');
    expect(response.headers.get('x-cache')).toBe('MISS');
    // A cache hit (answered before h3 routes) gets the same.
    const hit = await fetch(listed.url + USAGE, { headers: { origin: APP, 'x-api-key': TEST_KEY } });
    expect([hit.headers.get('x-cache'), hit.headers.get('access-control-allow-origin')]).toEqual(['HIT', APP]);
  });

  it('errors carry the headers too, so a script can read why', async () => {
    const response = await fetch(listed.url + USAGE, { headers: { origin: APP } });
    expect(response.status).toBe(401);
    expect(response.headers.get('access-control-allow-origin')).toBe(APP);
  });

  it('an origin not allowed gets no CORS headers, and its preflight is an ordinary OPTIONS (405)', async () => {
    const response = await fetch(listed.url + USAGE, { headers: { origin: 'https://evil.example', 'x-api-key': TEST_KEY } });
    expect(response.status).toBe(200);
    expect(response.headers.get('access-control-allow-origin')).toBeNull();
    expect(response.headers.get('vary')).toBe('Accept, SVC-ENDPOINT-REDACT-PII, Origin');
    const refused = await preflight(listed, 'https://evil.example');
    expect(refused.status).toBe(405);
    expect(corsHeaders(refused)).toEqual({ vary: 'Origin' });
  });

  it('`*` allows any origin with `*` itself, which needs no Vary', async () => {
    const response = await preflight(any, 'https://anywhere.example');
    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    expect(response.headers.get('vary')).toBeNull();
    const actual = await fetch(any.url + '/health', { headers: { origin: 'https://anywhere.example' } });
    expect(actual.headers.get('access-control-allow-origin')).toBe('*');
  });

  it('with no origins configured (the default) there is no CORS at all', async () => {
    const refused = await preflight(none, APP);
    expect(refused.status).toBe(405);
    const response = await fetch(none.url + USAGE, { headers: { origin: APP, 'x-api-key': TEST_KEY } });
    expect(response.status).toBe(200);
    expect(corsHeaders(response)).toEqual({ vary: 'Accept, SVC-ENDPOINT-REDACT-PII' });
  });
});
