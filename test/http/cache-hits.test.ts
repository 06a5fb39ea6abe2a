/**
 * Cache hits through the one request path, over real sockets: a GET or HEAD that is a fresh hit
 * returns early inside the query route. What must hold: it answers exactly as the full path does
 * (a POST of the same parameters reads them in full and asks the service, which finds the same
 * entry), with its length, ETag, Age and max-age right as time passes, 304 on a matching
 * If-None-Match, HEAD without the body, and every mistake still refused as it would be without
 * an entry.
 */
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cachedEndpoint, edgeEventsOf } from '../engine/serve/cache/harness.js';
import { TEST_KEY, startTestService, type TestService } from '../support/service.js';

const Q = '/api/endpoints/query/';
const PATH = `${Q}http.hits`;
const edgeEvents = edgeEventsOf(['e1', 'e2']);

let svc: TestService;
let now = new Date('2030-01-01T00:00:00Z');
const lines: string[] = [];

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A raw request (headers as given, repeats kept); the answer without its Date. */
function send(method: string, path: string, headers: string[], body?: string): Promise<Answer> {
  const url = new URL(path, svc.url);
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(url, { method, headers: ['host', url.host, ...headers] }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.on('end', () => {
        const { date: _date, ...rest } = response.headers;
        resolve({ status: response.statusCode!, headers: rest, body: text });
      });
    });
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

const KEY = ['x-api-key', TEST_KEY];
const get = (query: string, headers: string[] = []) => send('GET', `${PATH}${query}`, [...KEY, ...headers]);

beforeAll(async () => {
  svc = await startTestService({
    fixtures: { 'cloudflare.logs.prod': edgeEvents },
    clock: () => now,
    env: { CANNERY_CORS_ORIGINS: 'https://app.example' },
    logLines: (line) => lines.push(line),
    endpoints: {
      'hits.yaml': cachedEndpoint('http.hits', '{ ttl_seconds: 600 }', ['project: { type: string, required: true }'], [
        'select t.id, t.event_message from `cloudflare.logs.prod` as t where t.project = @project order by t.id',
      ]),
    },
  });
  expect(svc.service.registry.problems).toEqual([]);
});
afterAll(() => svc?.close());

describe('a cache hit', () => {
  let miss: Answer;
  let hit: Answer;
  beforeAll(async () => {
    miss = await get('?project=p1');
    hit = await get('?project=p1');
  });

  it('is the stored answer, with its length and the cache headers', () => {
    expect([miss.status, miss.headers['x-cache'], hit.status, hit.headers['x-cache']]).toEqual([200, 'MISS', 200, 'HIT']);
    expect(hit.body).toBe(miss.body);
    expect(JSON.parse(hit.body).result).toHaveLength(2);
    expect(hit.headers).toMatchObject({
      'content-type': 'application/json; charset=utf-8',
      'content-length': String(Buffer.byteLength(hit.body)),
      'cache-control': 'private, max-age=600',
      age: '0',
      etag: miss.headers.etag,
      vary: 'Accept, SVC-ENDPOINT-REDACT-PII',
    });
    expect(hit.headers['transfer-encoding']).toBeUndefined();
  });

  it('answers as the full path does: a POST of the same parameters', async () => {
    const posted = await send('POST', PATH, [...KEY, 'content-type', 'application/json'], JSON.stringify({ project: 'p1' }));
    const { 'content-length': _length, ...headers } = posted.headers;
    expect(posted).toEqual({ status: 200, headers: { ...headers, 'content-length': hit.headers['content-length'] }, body: hit.body });
    expect(posted.headers).toEqual(hit.headers);
  });

  it('by UUID in upper case is the same hit', async () => {
    const id = svc.service.resolve('http.hits').definition.id.toUpperCase();
    expect(await send('GET', `${Q}${id}?project=p1`, KEY)).toEqual(await get('?project=p1'));
  });

  it('counts Age up and max-age down as time passes, with the same ETag', async () => {
    now = new Date(now.getTime() + 42_000);
    const later = await get('?project=p1');
    expect(later.headers).toMatchObject({ 'x-cache': 'HIT', age: '42', 'cache-control': 'private, max-age=558', etag: hit.headers.etag });
    expect(later.body).toBe(hit.body);
  });

  it('is 304 without a body for a matching If-None-Match (strong, weak, a list, or *), 200 otherwise', async () => {
    const etag = hit.headers.etag as string;
    for (const header of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
      const revalidated = await get('?project=p1', ['if-none-match', header]);
      expect(revalidated.status, header).toBe(304);
      expect(revalidated.body).toBe('');
      expect(revalidated.headers).toMatchObject({ etag, 'x-cache': 'HIT', 'cache-control': expect.stringMatching(/^private, max-age=\d+$/) });
    }
    expect((await get('?project=p1', ['if-none-match', '"other"'])).status).toBe(200);
  });

  it('HEAD answers as GET does, without the body, its length included', async () => {
    const full = await get('?project=p1');
    const head = await send('HEAD', `${PATH}?project=p1`, KEY);
    expect(head.body).toBe('');
    expect(head.headers).toEqual(full.headers);
    expect(Number(head.headers['content-length'])).toBe(Buffer.byteLength(full.body));
    expect((await send('HEAD', `${PATH}?project=p1`, [...KEY, 'if-none-match', full.headers.etag as string])).status).toBe(304);
  });

  it('in another format is the same entry, in that format', async () => {
    const csv = [await get('?project=p1', ['accept', 'text/csv']), await get('?project=p1', ['accept', 'text/csv'])];
    expect(csv.map((answer) => [answer.status, answer.headers['x-cache'], answer.headers['content-type']])).toEqual([
      [200, 'HIT', 'text/csv; charset=utf-8; header=present'],
      [200, 'HIT', 'text/csv; charset=utf-8; header=present'],
    ]);
    expect(csv[0]!.body).toBe(csv[1]!.body);
    expect(csv[0]!.body.split('\r\n')[0]).toBe('id,event_message');
  });

  it('asked with redaction is a separate entry, redacted', async () => {
    const first = await get('?project=p1', ['SVC-ENDPOINT-REDACT-PII', 'TRUE']);
    const second = await get('?project=p1', ['svc-endpoint-redact-pii', 'true']);
    expect([first.headers['x-cache'], second.headers['x-cache']]).toEqual(['MISS', 'HIT']);
    expect(second.body).toBe(first.body);
  });

  it('gets CORS headers for an allowed origin', async () => {
    const answer = await get('?project=p1', ['origin', 'https://app.example']);
    expect(answer.headers).toMatchObject({ 'x-cache': 'HIT', 'access-control-allow-origin': 'https://app.example', 'access-control-expose-headers': expect.stringContaining('ETag') });
    expect((await get('?project=p1')).headers['access-control-allow-origin']).toBeUndefined();
  });

  it('is logged and counted as any answer is', async () => {
    const hits = async () => {
      const text = await (await svc.get('/metrics', { 'x-api-key': TEST_KEY })).text();
      return Number(/^cannery_cache_requests_total\{endpoint="http\.hits",key="api-key-1",result="hit"\} (\d+)$/m.exec(text)?.[1]);
    };
    const before = await hits();
    lines.length = 0;
    await get('?project=p1');
    expect(lines.map((line) => JSON.parse(line))).toEqual([
      expect.objectContaining({ msg: 'request', method: 'GET', path: PATH, endpoint: 'http.hits', status: 200, cache: 'HIT', rows: 2 }),
    ]);
    expect(await hits()).toBe(before + 1);
  });
});

describe('a request that an entry would answer, but which is a mistake', () => {
  beforeAll(async () => {
    await get('?project=p3');
    expect((await get('?project=p3')).headers['x-cache']).toBe('HIT');
  });

  const cases: [string, string, string[], number][] = [
    ['a wrong key', '?project=p3', ['x-api-key', 'nope'], 401],
    ['no key', '?project=p3', [], 401],
    ['Authorization given twice (fetch joins them)', '?project=p3', ['authorization', `Bearer ${TEST_KEY}`, 'authorization', 'Bearer other'], 401],
    ['an unknown parameter', '?project=p3&x=1', KEY, 400],
    ['a parameter given twice', '?project=p3&project=p3', KEY, 400],
    ['a bad redaction header', '?project=p3', [...KEY, 'svc-endpoint-redact-pii', 'yes'], 400],
    ['an Accept that refuses every format', '?project=p3', [...KEY, 'accept', 'application/json;q=0'], 406],
  ];
  it.each(cases)('%s is refused as without one', async (_name, query, headers, status) => {
    const answer = await send('GET', `${PATH}${query}`, headers);
    expect(answer.status).toBe(status);
    expect(answer.headers['x-cache']).toBeUndefined();
    expect(JSON.parse(answer.body).error.code).toEqual(expect.any(String));
  });
});
