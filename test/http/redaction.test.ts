/**
 * Redaction over the real server (DESIGN.md, spec 5.2): the SVC-ENDPOINT-REDACT-PII header on
 * the shipped logs.all, an endpoint with `redact_pii: true` that no header turns off, and the
 * 400 for any other header value.
 */
import { request as httpRequest } from 'node:http';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JSON_CONTENT_TYPE } from '../../src/http/errors.js';
import { SHIPPED_ENDPOINTS, TEST_KEY, startTestService, type TestService } from '../support/service.js';

const HEADER = 'SVC-ENDPOINT-REDACT-PII';
const R = 'REDACTED';
const LOGS = '/api/endpoints/query/logs.all?project=p1';
const ALWAYS = '/api/endpoints/query/redaction.always?project=p1';
const CACHED = '/api/endpoints/query/redaction.cached?project=p1';

/** Every address in the fixtures; none may appear in a redacted body. */
const PII = ['203.0.113.9', '2001:db8::7', 'alice@example.com', 'bob.smith+logs@mail.example.org', '198.51.100.23', 'fe80::1%eth0'];

const edgeEvents = [
  {
    id: 'e1',
    timestamp: '2024-05-01T10:00:00Z',
    project: 'p1',
    event_message: 'GET | 200 | 203.0.113.9 | https://p1.x/rest/v1/profiles?email=eq.alice@example.com | Chrome/126.0.0.0',
    metadata: {
      request: {
        method: 'GET',
        path: '/rest/v1/profiles',
        search: '?email=eq.alice@example.com',
        headers: { x_real_ip: '203.0.113.9', user_agent: 'Mozilla/5.0 Chrome/126.0.0.0 Safari/537.36' },
      },
      response: { status_code: 200 },
    },
  },
  {
    id: 'e2',
    timestamp: '2024-05-01T10:05:00Z',
    project: 'p1',
    event_message: 'POST | 201 | [2001:db8::7]:443 | welcome mail to bob.smith+logs@mail.example.org, via 198.51.100.23,fe80::1%eth0',
    metadata: {
      request: { method: 'POST', path: '/auth/v1/signup', headers: { x_real_ip: '2001:db8::7', user_agent: 'supabase-js/2.43.4' } },
      response: { status_code: 201 },
    },
  },
];

const endpoints: Record<string, string> = {
  'logs.all.yaml': readFileSync(join(SHIPPED_ENDPOINTS, 'logs.all.yaml'), 'utf8'),
  'always.yaml': [
    'id: 5a0b7c3e-2d4f-4e6a-9b8c-7d6e5f4a3b2c',
    'name: redaction.always',
    'description: Edge rows of one project, always redacted.',
    'language: bq_sql',
    'max_rows: 100',
    'cache: false',
    'sandbox: false',
    'redact_pii: true',
    'params:',
    '  project: { type: string, required: true }',
    'query: |',
    '  select t.id, t.event_message, t.metadata from `cloudflare.logs.prod` as t',
    '  where t.project = @project order by t.id',
    '',
  ].join('\n'),
  'cached.yaml': [
    'id: 7c1d2e3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f',
    'name: redaction.cached',
    'description: Edge rows of one project, cached.',
    'language: bq_sql',
    'max_rows: 100',
    'cache: { ttl_seconds: 900 }',
    'sandbox: false',
    'redact_pii: false',
    'params:',
    '  project: { type: string, required: true }',
    'query: |',
    '  select t.id, t.event_message, t.metadata from `cloudflare.logs.prod` as t',
    '  where t.project = @project order by t.id',
    '',
  ].join('\n'),
};

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService({ fixtures: { 'cloudflare.logs.prod': edgeEvents }, endpoints });
  expect(svc.service.registry.problems).toEqual([]);
});
afterAll(() => svc.close());

async function call(path: string, headerValue?: string) {
  return svc.call(path, headerValue === undefined ? {} : { [HEADER]: headerValue });
}

/** Asserts nothing of the fixtures' PII is left anywhere in the body. */
function expectRedacted(body: unknown): void {
  const text = JSON.stringify(body);
  for (const value of PII) expect(text).not.toContain(value);
  expect(text).toContain(R);
}

function expectUnredacted(body: unknown): void {
  const text = JSON.stringify(body);
  for (const value of PII) expect(text).toContain(JSON.stringify(value).slice(1, -1));
  expect(text).not.toContain(R);
}

describe('logs.all (redact_pii: false)', () => {
  it('without the header, rows come back as stored', async () => {
    const { status, body } = await call(LOGS);
    expect(status).toBe(200);
    expect(body.result).toHaveLength(2);
    expectUnredacted(body);
  });

  it.each(['true', 'TRUE', 'True', 'tRuE'])('%s redacts event_message and every nested string', async (value) => {
    const { status, body } = await call(LOGS, value);
    expect(status).toBe(200);
    expectRedacted(body);
    const [newer, older] = body.result;
    expect(newer.id).toBe('e2');
    expect(newer.event_message).toBe(`POST | 201 | [${R}]:443 | welcome mail to ${R}, via ${R},${R}`);
    expect(newer.metadata[0].request[0].headers[0]).toMatchObject({ x_real_ip: R, user_agent: 'supabase-js/2.43.4' });
    expect(older.event_message).toBe(`GET | 200 | ${R} | https://p1.x/rest/v1/profiles?email=${R} | Chrome/126.0.0.0`);
    expect(older.metadata[0].request[0]).toMatchObject({
      method: 'GET',
      path: '/rest/v1/profiles',
      search: `?email=${R}`,
      headers: [{ x_real_ip: R, user_agent: 'Mozilla/5.0 Chrome/126.0.0.0 Safari/537.36' }],
    });
    // Not strings: left as they are.
    expect(older.timestamp).toBe(Date.parse('2024-05-01T10:00:00Z') * 1000);
    expect(older.metadata[0].response[0].status_code).toBe(200);
  });

  it.each(['false', 'FALSE', 'False'])('%s leaves the endpoint setting (off)', async (value) => {
    const { status, body } = await call(LOGS, value);
    expect(status).toBe(200);
    expectUnredacted(body);
  });

  it('a redacted answer does not change the next unredacted one', async () => {
    expectRedacted((await call(LOGS, 'true')).body);
    expectUnredacted((await call(LOGS)).body);
  });

  it('POST takes the header too', async () => {
    const response = await fetch(svc.url + '/api/endpoints/query/logs.all', {
      method: 'POST',
      headers: { 'x-api-key': TEST_KEY, [HEADER]: 'true', 'content-type': 'application/json' },
      body: JSON.stringify({ project: 'p1' }),
    });
    expect(response.status).toBe(200);
    expectRedacted(await response.json());
  });
});

describe('an endpoint with redact_pii: true', () => {
  it.each([undefined, 'false', 'FALSE', 'true'])('is redacted with header %s', async (value) => {
    const { status, body } = await call(ALWAYS, value);
    expect(status).toBe(200);
    expect(body.result.map((row: { id: string }) => row.id)).toEqual(['e1', 'e2']);
    expectRedacted(body);
  });
});

describe('a cached endpoint', () => {
  it('never answers a redacted request from unredacted results, or the reverse', async () => {
    // The first of each shape fills its cache entry; the rest are hits on it.
    const calls: [string | undefined, string][] = [
      [undefined, 'MISS'],
      ['true', 'MISS'],
      [undefined, 'HIT'],
      ['TRUE', 'HIT'],
      ['false', 'HIT'],
      ['true', 'HIT'],
    ];
    for (const [value, cacheStatus] of calls) {
      const { status, body, response } = await call(CACHED, value);
      expect(status).toBe(200);
      expect(response.headers.get('x-cache')).toBe(cacheStatus);
      if (value?.toLowerCase() === 'true') expectRedacted(body);
      else expectUnredacted(body);
    }
  });
});

describe('invalid header values', () => {
  it.each(['yes', '1', 'on', 'no', 'truee', 'true1', 'redact', 't', ''])('%j is 400 invalid_header', async (value) => {
    const { status, body, response } = await call(LOGS, value);
    expect(status).toBe(400);
    expect(response.headers.get('content-type')).toBe(JSON_CONTENT_TYPE);
    expect(Object.keys(body.error).sort()).toEqual(['code', 'message']);
    expect(body.error.code).toBe('invalid_header');
    expect(body.error.message).toContain(HEADER);
    expect(body.error.message).toMatch(/true or false/);
  });

  it('is 400 on an endpoint that redacts anyway: the value is wrong either way', async () => {
    const { status, body } = await call(ALWAYS, 'maybe');
    expect(status).toBe(400);
    expect(body.error.code).toBe('invalid_header');
  });

  it('echoes a long bad value only in part', async () => {
    const { body } = await call(LOGS, 'x'.repeat(500));
    expect(body.error.message.length).toBeLessThan(200);
  });

  it('auth comes first: a bad header without a key is 401', async () => {
    const response = await svc.get(LOGS, { [HEADER]: 'maybe' });
    expect(response.status).toBe(401);
  });
});

/** A GET with raw header lines, as a proxy might send them (fetch would normalise them first). */
function rawGet(path: string, headers: [string, string][]): Promise<{ status: number; body: any }> {
  const url = new URL(svc.url + path);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      // Raw header lines: Node adds no Host of its own then.
      { host: url.hostname, port: url.port, path: url.pathname + url.search, headers: [['host', url.host], ['x-api-key', TEST_KEY], ...headers].flat() },
      (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
        res.on('end', () => {
          try {
            resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) });
          } catch (error) {
            reject(error);
          }
        });
      },
    );
    req.on('error', reject);
    req.end();
  });
}

describe('header edge cases on the wire', () => {
  it('surrounding whitespace is not part of the value', async () => {
    const { status, body } = await rawGet(LOGS, [[HEADER, '  TRUE\t']]);
    expect(status).toBe(200);
    expectRedacted(body);
  });

  it('the header given twice is 400, even with equal values', async () => {
    for (const values of [['true', 'true'], ['true', 'false']]) {
      const { status, body } = await rawGet(LOGS, values.map((value): [string, string] => [HEADER, value]));
      expect(status).toBe(400);
      expect(body.error.code).toBe('invalid_header');
      expect(body.error.message).toMatch(/more than once/);
    }
  });

  it('a comma-joined value is 400', async () => {
    const { status, body } = await call(LOGS, 'true,false');
    expect(status).toBe(400);
    expect(body.error.code).toBe('invalid_header');
  });
});
