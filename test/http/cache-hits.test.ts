/**
 * The cache-hit shortcut (src/http/cache-hits.ts) answers plain hits from node:http's request,
 * before srvx and h3. It must answer exactly as the h3 route would, and leave every other request
 * to that route. Each case here is sent twice over real sockets: with the endpoint's plain name
 * (the shortcut may take it) and percent-encoded (`http%2Eshort`, which only h3 decodes, so the
 * shortcut never takes it); the answers must be equal, and the shortcut must have taken the first
 * exactly when the case says.
 */
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, type CanneryApp } from '../../src/http/app.js';
import { listen, type RunningServer } from '../../src/http/server.js';
import { createLogger } from '../../src/core/logger.js';
import { cachedEndpoint, edgeEventsOf } from '../engine/cache/harness.js';
import { TEST_KEY, startTestService, type TestService } from '../support/service.js';

const Q = '/api/endpoints/query/';
const PLAIN = `${Q}http.short`;
const ENCODED = `${Q}http%2Eshort`;

const edgeEvents = edgeEventsOf(['e1', 'e2']);

let svc: TestService;

/** A server on svc's service whose shortcut reports whether it answered each request. */
interface WatchedServer {
  server: RunningServer;
  /** Whether the shortcut answered, per request, in order. */
  taken: boolean[];
}

async function watchedServer(corsOrigins: string[] = []): Promise<WatchedServer> {
  const app = createApp({ service: svc.service, apiKeys: [TEST_KEY], logger: createLogger('silent'), corsOrigins });
  const taken: boolean[] = [];
  const watched: CanneryApp = {
    h3: app.h3,
    answerCacheHit: (request, response) => {
      const answered = app.answerCacheHit(request, response);
      taken.push(answered);
      return answered;
    },
  };
  return { server: await listen(watched, { port: 0, host: '127.0.0.1' }), taken };
}

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A raw request, so that headers can be repeated; the answer without its Date. */
function send(server: RunningServer, method: string, path: string, headers: string[]): Promise<Answer> {
  const url = new URL(path, server.url);
  return new Promise((resolve, reject) => {
    // Given as a list, headers are sent as they are: node adds no Host then.
    const outgoing = httpRequest(url, { method, headers: ['host', url.host, ...headers] }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.on('end', () => {
        const { date: _date, ...rest } = response.headers;
        resolve({ status: response.statusCode!, headers: rest, body });
      });
    });
    outgoing.on('error', reject);
    outgoing.end();
  });
}

let plain: WatchedServer;
let withCors: WatchedServer;

beforeAll(async () => {
  svc = await startTestService({
    fixtures: { 'cloudflare.logs.prod': edgeEvents },
    endpoints: {
      'short.yaml': cachedEndpoint('http.short', '{ ttl_seconds: 3600 }', ['project: { type: string, required: true }'], [
        'select t.id, t.event_message from `cloudflare.logs.prod` as t where t.project = @project order by t.id',
      ]),
    },
  });
  expect(svc.service.registry.problems).toEqual([]);
  plain = await watchedServer();
  withCors = await watchedServer(['*']);
  // Fill the cache for both redaction settings.
  expect((await send(plain.server, 'GET', `${ENCODED}?project=p1`, ['x-api-key', TEST_KEY])).status).toBe(200);
  expect((await send(plain.server, 'GET', `${ENCODED}?project=p1`, ['x-api-key', TEST_KEY, 'svc-endpoint-redact-pii', 'true'])).status).toBe(200);
});
afterAll(async () => {
  await plain?.server.close();
  await withCors?.server.close();
  await svc?.close();
});

interface Case {
  name: string;
  method?: string;
  /** After the endpoint's name. */
  query?: string;
  headers: string[];
  /** Whether the shortcut answers it. */
  shortcut: boolean;
  status: number;
  cors?: boolean;
}

const etagOf = async () => (await send(plain.server, 'GET', `${ENCODED}?project=p1`, ['x-api-key', TEST_KEY])).headers.etag as string;

const CASES: (Case | ((etag: string) => Case))[] = [
  { name: 'a hit with X-API-KEY', query: '?project=p1', headers: ['x-api-key', TEST_KEY], shortcut: true, status: 200 },
  { name: 'a hit with Authorization: Bearer', query: '?project=p1', headers: ['Authorization', `bearer ${TEST_KEY}`], shortcut: true, status: 200 },
  { name: 'a hit with header names in any case', query: '?project=p1', headers: ['X-Api-Key', TEST_KEY, 'ACCEPT', 'application/json'], shortcut: true, status: 200 },
  { name: 'a redacted hit (header value in any case)', query: '?project=p1', headers: ['x-api-key', TEST_KEY, 'SVC-ENDPOINT-REDACT-PII', 'TRUE'], shortcut: true, status: 200 },
  (etag) => ({ name: 'a hit revalidated with its ETag', query: '?project=p1', headers: ['x-api-key', TEST_KEY, 'if-none-match', etag], shortcut: true, status: 304 }),
  { name: 'CSV, which h3 streams', query: '?project=p1', headers: ['x-api-key', TEST_KEY, 'accept', 'text/csv'], shortcut: false, status: 200 },
  { name: 'a wrong key', query: '?project=p1', headers: ['x-api-key', 'nope'], shortcut: false, status: 401 },
  { name: 'no key', query: '?project=p1', headers: [], shortcut: false, status: 401 },
  // node keeps the first of a repeated Authorization; fetch (and so the h3 route) joins them.
  { name: 'Authorization given twice', query: '?project=p1', headers: ['authorization', `Bearer ${TEST_KEY}`, 'authorization', 'Bearer other'], shortcut: false, status: 401 },
  { name: 'X-API-KEY given twice (joined by both)', query: '?project=p1', headers: ['x-api-key', TEST_KEY, 'x-api-key', TEST_KEY], shortcut: false, status: 401 },
  { name: 'an unknown parameter', query: '?project=p1&x=1', headers: ['x-api-key', TEST_KEY], shortcut: false, status: 400 },
  { name: 'a parameter given twice', query: '?project=p1&project=p1', headers: ['x-api-key', TEST_KEY], shortcut: false, status: 400 },
  { name: 'a bad redaction header', query: '?project=p1', headers: ['x-api-key', TEST_KEY, 'svc-endpoint-redact-pii', 'yes'], shortcut: false, status: 400 },
  { name: 'HEAD', method: 'HEAD', query: '?project=p1', headers: ['x-api-key', TEST_KEY], shortcut: false, status: 200 },
  { name: 'a CORS request (with an Origin)', query: '?project=p1', headers: ['x-api-key', TEST_KEY, 'origin', 'https://app.example'], shortcut: false, status: 200, cors: true },
  { name: 'a request without an Origin where CORS is on', query: '?project=p1', headers: ['x-api-key', TEST_KEY], shortcut: true, status: 200, cors: true },
];

describe('the cache-hit shortcut', () => {
  for (const [index, made] of CASES.entries()) {
    const name = typeof made === 'function' ? 'a hit revalidated with its ETag' : made.name;
    it(`${name}: answered as the h3 route answers it`, async () => {
      const one = typeof made === 'function' ? made(await etagOf()) : made;
      const { server, taken } = one.cors ? withCors : plain;
      const method = one.method ?? 'GET';
      const routed = await send(server, method, `${ENCODED}${one.query ?? ''}`, one.headers);
      taken.length = 0;
      const shortcut = await send(server, method, `${PLAIN}${one.query ?? ''}`, one.headers);
      expect(taken, `case ${index}`).toEqual([one.shortcut]);
      expect(shortcut.status).toBe(one.status);
      expect(shortcut).toEqual(routed);
    });
  }

  it('a miss is left to h3, and the hit after it is the shortcut\'s', async () => {
    plain.taken.length = 0;
    const miss = await send(plain.server, 'GET', `${PLAIN}?project=p2`, ['x-api-key', TEST_KEY]);
    const hit = await send(plain.server, 'GET', `${PLAIN}?project=p2`, ['x-api-key', TEST_KEY]);
    expect(plain.taken).toEqual([false, true]);
    expect([miss.headers['x-cache'], hit.headers['x-cache']]).toEqual(['MISS', 'HIT']);
    expect(hit.body).toBe(miss.body);
  });

  it('a hit by UUID, in upper case, is the shortcut\'s too', async () => {
    const id = svc.service.resolve('http.short').definition.id;
    plain.taken.length = 0;
    const byId = await send(plain.server, 'GET', `${Q}${id.toUpperCase()}?project=p1`, ['x-api-key', TEST_KEY]);
    expect(plain.taken).toEqual([true]);
    expect(byId).toEqual(await send(plain.server, 'GET', `${ENCODED}?project=p1`, ['x-api-key', TEST_KEY]));
  });

  it('HEAD answers as GET does, without the body', async () => {
    const get = await send(plain.server, 'GET', `${PLAIN}?project=p1`, ['x-api-key', TEST_KEY]);
    const head = await send(plain.server, 'HEAD', `${PLAIN}?project=p1`, ['x-api-key', TEST_KEY]);
    expect(head.body).toBe('');
    // Content-Length included: the length a GET's body would have (RFC 9110 8.6).
    expect(head.headers).toEqual(get.headers);
    expect(Number(head.headers['content-length'])).toBe(Buffer.byteLength(get.body));
  });

  it('a hit sends its length, not a chunked body', async () => {
    const hit = await send(plain.server, 'GET', `${PLAIN}?project=p1`, ['x-api-key', TEST_KEY]);
    expect(hit.headers['x-cache']).toBe('HIT');
    expect(hit.headers['transfer-encoding']).toBeUndefined();
    expect(Number(hit.headers['content-length'])).toBe(Buffer.byteLength(hit.body));
  });
});
