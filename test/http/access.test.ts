/**
 * Scoped access over HTTP (issue 26, docs/access.md): the real app on a socket, a real DuckDB
 * holding three projects' rows in all nine sources, keys read from a keys file's text, tokens
 * signed with jose as an app's backend would sign them.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exportJWK, generateKeyPair, SignJWT, type JWTPayload } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keyDigest } from '../../src/access/keys.js';
import { signToken } from '../../src/access/tokens.js';
import { loadJwksFile } from '../../src/config/jwks-file.js';
import { parseKeysFile, type KeyEntry } from '../../src/config/keys-file.js';
import { parsePrometheusText } from '../support/prometheus-text.js';
import { startTestService, TEST_KEY, type TestService } from '../support/service.js';
import { LOGS_ALL_ID, NOW, projectOfId, rowsOf, SOURCES, tenantEndpoints, tenantFixtures } from './tenant-fixtures.js';

const SECRET = `secret-${randomBytes(24).toString('hex')}`;
const newKey = () => randomBytes(24).toString('base64url');
const KEYS = { abc: newKey(), xyz: newKey(), logs: newKey(), old: newKey(), slow: newKey() };

/** The keys file the service reads, as an operator writes it. */
function keysFileText(): string {
  return `keys:
  - name: tenant-abc
    sha256: ${keyDigest(KEYS.abc)}
    endpoints: [logs.all, usage.api-counts]
    params: { project: abc }
    expires_at: 2999-01-01T00:00:00Z
  - name: tenant-xyz
    sha256: ${keyDigest(KEYS.xyz)}
    params: { project: xyz }
  - name: logs-reader
    sha256: ${keyDigest(KEYS.logs)}
    endpoints: [${LOGS_ALL_ID.toUpperCase()}]
  - name: old-key
    sha256: ${keyDigest(KEYS.old)}
    expires_at: 2020-01-01T00:00:00Z
  - name: slow
    sha256: ${keyDigest(KEYS.slow)}
    params: { project: abc }
    rate_per_second: 1
`;
}

function keyEntries(): KeyEntry[] {
  const { keys, problems } = parseKeysFile(keysFileText(), 'keys.yaml');
  expect(problems).toEqual([]);
  return keys!;
}

let svc: TestService;
let jwksDir: string;
let frozen: number | undefined;
const lines: string[] = [];
const rsa = await generateKeyPair('RS256');
const ec = await generateKeyPair('ES256');
/** Every credential and secret the tests use: none may ever be in a log line, an answer or the metrics. */
const secrets: string[] = [SECRET, ...Object.values(KEYS)];

beforeAll(async () => {
  jwksDir = await mkdtemp(join(tmpdir(), 'cannery-jwks-'));
  const jwksFile = join(jwksDir, 'jwks.json');
  const jwks = { keys: [{ ...(await exportJWK(rsa.publicKey)), kid: 'rsa-1', alg: 'RS256' }, { ...(await exportJWK(ec.publicKey)), kid: 'ec-1', alg: 'ES256' }] };
  await writeFile(jwksFile, JSON.stringify(jwks));
  svc = await startTestService({
    fixtures: tenantFixtures(),
    endpoints: await tenantEndpoints(),
    clock: () => NOW,
    logLines: (line) => lines.push(line),
    access: { keys: keyEntries(), tokens: { secret: SECRET, jwks: await loadJwksFile(jwksFile) }, now: () => frozen ?? Date.now() },
  });
}, 120_000);

afterAll(async () => {
  await svc?.close();
  await rm(jwksDir, { recursive: true, force: true });
});

interface Answer {
  status: number;
  body: any;
  headers: Headers;
  text: string;
}

async function call(credential: string | undefined, path: string, init: RequestInit = {}): Promise<Answer> {
  const headers: Record<string, string> = { ...(init.headers as Record<string, string>) };
  if (credential !== undefined) headers['x-api-key'] = credential;
  const response = await fetch(svc.url + path, { ...init, headers });
  const text = await response.text();
  for (const secret of secrets) {
    expect(text).not.toContain(secret);
    for (const [, value] of response.headers) expect(value).not.toContain(secret);
  }
  const json = response.headers.get('content-type')?.startsWith('application/json');
  return { status: response.status, body: json ? JSON.parse(text) : undefined, headers: response.headers, text };
}

const logs = (params = '') => `/api/endpoints/query/logs.all${params}`;
const ids = (answer: Answer): string[] => answer.body.result.map((row: { id: string }) => row.id);

/** A token as an app's backend signs one: HS256 with the shared secret unless `sign` says otherwise. */
async function token(claims: JWTPayload, options: { secret?: string; ttlSeconds?: number | null } = {}): Promise<string> {
  const jwt = new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).setIssuedAt();
  if (options.ttlSeconds !== null) jwt.setExpirationTime(Math.floor(Date.now() / 1000) + (options.ttlSeconds ?? 3600));
  const signed = await jwt.sign(new TextEncoder().encode(options.secret ?? SECRET));
  secrets.push(signed);
  return signed;
}

function expectError(answer: Answer, status: number, code: string, param?: string): void {
  expect(answer.status, answer.text).toBe(status);
  expect(answer.body.error.code).toBe(code);
  expect(answer.body.result).toBeUndefined();
  if (param !== undefined) expect(answer.body.error.param).toBe(param);
}

describe('keys file: fixed parameters', () => {
  it("answers with the fixed project's rows whether the caller sends it, sends it empty or leaves it out", async () => {
    for (const params of ['', '?project=abc', '?project=']) {
      const answer = await call(KEYS.abc, logs(params));
      expect(answer.status, answer.text).toBe(200);
      expect(ids(answer).length).toBe(rowsOf('abc'));
      expect(new Set(ids(answer).map(projectOfId))).toEqual(new Set(['abc']));
    }
  });

  it('refuses any other value with 403 naming the parameter, by GET and by POST', async () => {
    for (const project of ['xyz', 'ABC', 'abc ', '.*', 'abc|xyz']) {
      expectError(await call(KEYS.abc, logs(`?project=${encodeURIComponent(project)}`)), 403, 'forbidden', 'project');
    }
    const post = (body: object) => call(KEYS.abc, logs(), { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
    expectError(await post({ project: 'xyz' }), 403, 'forbidden', 'project');
    const answer = await post({});
    expect(answer.status).toBe(200);
    expect(new Set(ids(answer).map(projectOfId))).toEqual(new Set(['abc']));
  });

  it('refuses an endpoint outside the scope with 403, an unknown one with 404, and no key with 401 before either', async () => {
    expectError(await call(KEYS.logs, '/api/endpoints/query/usage.api-counts?interval=hourly&project=abc'), 403, 'forbidden');
    expectError(await call(KEYS.abc, '/api/endpoints/query/plain.one'), 403, 'forbidden');
    // A scope over every endpoint still cannot run one that could not be limited to its project.
    const unlimited = await call(KEYS.xyz, '/api/endpoints/query/plain.one');
    expectError(unlimited, 403, 'forbidden');
    expect(unlimited.body.error.message).toContain('"project"');
    expectError(await call(KEYS.abc, '/api/endpoints/query/nope'), 404, 'endpoint_not_found');
    // A typo's suggestion names only endpoints the caller may run.
    const typo = await call(KEYS.logs, '/api/endpoints/query/usage.api-count');
    expectError(typo, 404, 'endpoint_not_found');
    expect(typo.body.error.message).not.toContain('did you mean');
    expect((await call(KEYS.logs, '/api/endpoints/query/logs.al')).body.error.message).toContain('did you mean "logs.all"?');
    expectError(await call(undefined, '/api/endpoints/query/nope'), 401, 'unauthorized');
    expectError(await call(newKey(), '/api/endpoints/query/nope'), 401, 'unauthorized');
    // The scope names logs.all by its UUID, in capitals: the endpoint runs by name and by id.
    expect((await call(KEYS.logs, logs('?project=other'))).status).toBe(200);
    expect((await call(KEYS.logs, `/api/endpoints/query/${LOGS_ALL_ID}?project=other`)).status).toBe(200);
  });

  it('refuses an expired key with 401 saying so', async () => {
    const answer = await call(KEYS.old, logs('?project=abc'));
    expectError(answer, 401, 'unauthorized');
    expect(answer.body.error.message).toBe('API key old-key expired at 2020-01-01T00:00:00.000Z');
  });

  it("sandbox SQL under a fixed project reads that project's rows in every CTE, and cannot count another's", async () => {
    const count = async (credential: string, sql: string, project?: string) => {
      const params = new URLSearchParams({ sql, ...(project ? { project } : {}) });
      return call(credential, logs(`?${params}`));
    };
    for (const { cte } of SOURCES) {
      const answer = await count(KEYS.abc, `select count(*) as n from ${cte}`);
      expect(answer.body, cte).toEqual({ result: [{ n: rowsOf('abc') }] });
      // The same SQL with an unscoped key and another project counts that project's rows.
      expect((await count(TEST_KEY, `select count(*) as n from ${cte}`, 'xyz')).body).toEqual({ result: [{ n: rowsOf('xyz') }] });
    }
    const attempts = [
      `select count(*) as n from edge_logs where @project = 'xyz'`,
      `select count(*) as n from (select id from edge_logs union all select id from postgres_logs) where id like 'xyz%'`,
      `select countif(event_message like '%xyz%') as n from auth_logs`,
    ];
    for (const sql of attempts) expect((await count(KEYS.abc, sql)).body, sql).toEqual({ result: [{ n: 0 }] });
    expectError(await count(KEYS.abc, 'select count(*) as n from `cloudflare.logs.prod`'), 400, 'sandbox_violation', 'sql');
    expectError(await count(KEYS.abc, 'select count(*) as n from edge_logs', 'xyz'), 403, 'forbidden', 'project');
  });

  it("keeps each tenant's cached answers apart: two fixed projects never share an entry", async () => {
    const usage = (credential: string, project = '') => call(credential, `/api/endpoints/query/usage.api-counts?interval=hourly${project}`);
    const total = (answer: Answer) => answer.body.result.reduce((sum: number, row: { total_rest_requests: number }) => sum + row.total_rest_requests, 0);
    const abc = await usage(KEYS.abc);
    expect(abc.headers.get('x-cache')).toBe('MISS');
    expect(total(abc)).toBe(rowsOf('abc'));
    const xyz = await usage(KEYS.xyz);
    expect(xyz.headers.get('x-cache')).toBe('MISS');
    expect(total(xyz)).toBe(rowsOf('xyz'));
    const again = await usage(KEYS.abc);
    expect([again.headers.get('x-cache'), again.text]).toEqual(['HIT', abc.text]);
    // The fixed value is the request's value: the same key as an unscoped caller asking for it.
    const unscoped = await usage(TEST_KEY, '&project=abc');
    expect([unscoped.headers.get('x-cache'), unscoped.text]).toEqual(['HIT', abc.text]);
  });
});

describe('what a caller is shown', () => {
  const listed = async (credential: string) => (await call(credential, '/api/endpoints')).body.endpoints.map((endpoint: any) => [endpoint.name, endpoint.fixed]);

  it('/api/endpoints lists what the caller may run, with the values fixed for it', async () => {
    expect(await listed(KEYS.abc)).toEqual([
      ['logs.all', { project: ['abc'] }],
      ['usage.api-counts', { project: ['abc'] }],
    ]);
    expect(await listed(KEYS.xyz)).toEqual([
      ['logs.all', { project: ['xyz'] }],
      ['usage.api-counts', { project: ['xyz'] }],
    ]);
    expect(await listed(KEYS.logs)).toEqual([['logs.all', undefined]]);
    expect((await listed(TEST_KEY)).map(([name]: [string]) => name).sort()).toEqual(['logs.all', 'plain.one', 'usage.api-counts']);
  });

  it('/openapi.json describes the same endpoints, each fixed parameter a single allowed value', async () => {
    const { body } = await call(KEYS.abc, '/openapi.json');
    expect(Object.keys(body.paths).filter((path) => path.startsWith('/api/endpoints/query/')).sort()).toEqual([
      '/api/endpoints/query/logs.all',
      '/api/endpoints/query/usage.api-counts',
    ]);
    const project = body.paths['/api/endpoints/query/logs.all'].get.parameters.find((parameter: any) => parameter.name === 'project');
    expect(project).toMatchObject({ required: false, schema: { type: 'string', enum: ['abc'], default: 'abc' } });
    expect(project.description).toContain('Fixed by your key or token: "abc"');
    const body403 = body.paths['/api/endpoints/query/logs.all'].get.responses['403'];
    expect(body403.description).toContain('forbidden');
    expect(Object.keys((await call(TEST_KEY, '/openapi.json')).body.paths)).toContain('/api/endpoints/query/plain.one');
  });

  it('/metrics takes a key that may run everything: a scoped key is refused', async () => {
    expectError(await call(KEYS.abc, '/metrics'), 403, 'forbidden');
    expect((await call(TEST_KEY, '/metrics')).status).toBe(200);
  });
});

describe('signed tokens', () => {
  const abcScope = { scopes: [{ endpoint: 'logs.all', params: { project: 'abc' } }], name: 'browser-abc' };

  it('an HS256 token with a fixed project runs its endpoint, by X-API-KEY and by Authorization: Bearer', async () => {
    const signed = await token(abcScope);
    const byHeader = await call(signed, logs());
    expect(byHeader.status, byHeader.text).toBe(200);
    expect(new Set(ids(byHeader).map(projectOfId))).toEqual(new Set(['abc']));
    const bearer = await call(undefined, logs('?project=abc'), { headers: { authorization: `Bearer ${signed}` } });
    expect(bearer.text).toBe(byHeader.text);
    expectError(await call(signed, logs('?project=xyz')), 403, 'forbidden', 'project');
    expectError(await call(signed, '/api/endpoints/query/usage.api-counts?interval=hourly'), 403, 'forbidden');
  });

  it('cannery token mints what the service accepts (the same signing code)', async () => {
    const signed = await signToken(SECRET, { scopes: [{ endpoint: '*', params: { project: 'xyz' } }], ttlSeconds: 60, name: 'minted' });
    secrets.push(signed);
    const answer = await call(signed, logs());
    expect(new Set(ids(answer).map(projectOfId))).toEqual(new Set(['xyz']));
  });

  it('refuses alg none, a forged payload, another secret, a missing or past exp, and claims it cannot read', async () => {
    const valid = await token(abcScope);
    const [header, payload, signature] = valid.split('.') as [string, string, string];
    const encode = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const forgedPayload = encode({ ...JSON.parse(Buffer.from(payload, 'base64url').toString()), scopes: [{ endpoint: '*', params: {} }] });
    const cases: [string, string][] = [
      [`${encode({ alg: 'none', typ: 'JWT' })}.${payload}.`, 'token algorithm not accepted'],
      [`${encode({ alg: 'none', typ: 'JWT' })}.${payload}.${signature}`, 'token algorithm not accepted'],
      [`${header}.${forgedPayload}.${signature}`, 'token signature does not verify'],
      [`${header}.${payload}.${signature.slice(0, -2)}${signature.endsWith('AA') ? 'BB' : 'AA'}`, 'token signature does not verify'],
      [await token(abcScope, { secret: `another-${SECRET}` }), 'token signature does not verify'],
      [await token(abcScope, { ttlSeconds: null }), 'token claim "exp" is missing'],
      [await token(abcScope, { ttlSeconds: -10 }), 'token expired'],
      [await token({ name: 'no-scopes' }), 'token claim "scopes" must be a list of {endpoint, params}'],
      [await token({ scopes: [{ endpoint: 'logs.all', params: { project: ['abc'] } }] }), 'token claim "scopes[0].params.project" must be a string, number or boolean'],
      [await token({ ...abcScope, name: 'has space' }), 'token claim "name" must be'],
      [await token({ ...abcScope, rate_per_second: 0 }), 'token claim "rate_per_second" must be a number above 0'],
      [await token({ ...abcScope, ingest: 'shop.orders' }), 'token claim "ingest" must be a list of source names'],
      [`${header}.${payload}`, 'invalid API key'],
    ];
    for (const [presented, message] of cases) {
      secrets.push(presented);
      const answer = await call(presented, logs('?project=abc'));
      expectError(answer, 401, 'unauthorized');
      expect(answer.body.error.message, presented).toContain(message);
    }
  });

  it('refuses a token that lives longer than CANNERY_JWT_MAX_TTL (24h): exp 1e300, exp a day and more away, with iat or without', async () => {
    const nowSeconds = Math.floor(Date.now() / 1000);
    const signed = async (times: { iat?: number; exp: number }) => {
      const jwt = await new SignJWT({ ...abcScope, ...times }).setProtectedHeader({ alg: 'HS256' }).sign(new TextEncoder().encode(SECRET));
      secrets.push(jwt);
      return jwt;
    };
    const DAY = 86_400;
    const refused: [string, { iat?: number; exp: number }, string][] = [
      ['exp 1e300 (the reported case)', { exp: 1e300 }, '"exp" is more than CANNERY_JWT_MAX_TTL (24h) from now'],
      ['exp 1e300 after an iat', { iat: nowSeconds, exp: 1e300 }, '"exp" is more than CANNERY_JWT_MAX_TTL (24h) after "iat"'],
      ['a day and an hour without iat', { exp: nowSeconds + DAY + 3600 }, 'from now'],
      ['two days from an iat a day ago', { iat: nowSeconds - DAY, exp: nowSeconds + DAY }, 'after "iat"'],
      ['an iat made up to sit beside a far exp', { iat: nowSeconds + 10 * DAY, exp: nowSeconds + 10 * DAY + 60 }, 'from now'],
    ];
    for (const [what, times, message] of refused) {
      const answer = await call(await signed(times), logs('?project=abc'));
      expectError(answer, 401, 'unauthorized');
      expect(answer.body.error.message, what).toContain(message);
    }
    // A day exactly is allowed, with iat or without (a minter's clock a little ahead is no matter).
    for (const times of [{ iat: nowSeconds, exp: nowSeconds + DAY }, { exp: nowSeconds + DAY + 30 }]) {
      expect((await call(await signed(times), logs('?project=abc'))).status, JSON.stringify(times)).toBe(200);
    }
  });

  it('RS256 and ES256 tokens verify against the JWKS file; a key not in it, or its public key as an HMAC secret, does not', async () => {
    const claims = { ...abcScope, exp: Math.floor(Date.now() / 1000) + 600 };
    const rs = await new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid: 'rsa-1' }).sign(rsa.privateKey);
    const es = await new SignJWT(claims).setProtectedHeader({ alg: 'ES256', kid: 'ec-1' }).sign(ec.privateKey);
    const stranger = await generateKeyPair('RS256');
    const unknown = await new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid: 'rsa-1' }).sign(stranger.privateKey);
    const publicJwk = JSON.stringify(await exportJWK(rsa.publicKey));
    const confused = await new SignJWT(claims).setProtectedHeader({ alg: 'HS256', kid: 'rsa-1' }).sign(new TextEncoder().encode(publicJwk));
    secrets.push(rs, es, unknown, confused);
    for (const signed of [rs, es]) {
      const answer = await call(signed, logs());
      expect(answer.status, answer.text).toBe(200);
      expect(new Set(ids(answer).map(projectOfId))).toEqual(new Set(['abc']));
    }
    expectError(await call(unknown, logs()), 401, 'unauthorized');
    expectError(await call(confused, logs()), 401, 'unauthorized');
  });
});

describe('rates', () => {
  it("a key past its own rate gets 429 with Retry-After, while other keys' requests are answered", async () => {
    frozen = Date.now();
    try {
      expect((await call(KEYS.slow, logs())).status).toBe(200);
      const refused = await call(KEYS.slow, logs());
      expectError(refused, 429, 'too_many_requests');
      expect(refused.headers.get('retry-after')).toBe('1');
      expect(refused.body.error.message).toContain('slow is limited to 1 requests per second');
      for (let index = 0; index < 10; index++) expect((await call(KEYS.abc, logs())).status).toBe(200);
      frozen += 1000;
      expect((await call(KEYS.slow, logs())).status).toBe(200);
    } finally {
      frozen = undefined;
    }
  });

  it("a token's rate is its own: another token of the same name is not held back", async () => {
    frozen = Date.now();
    try {
      const claims = { ...{ scopes: [{ endpoint: '*', params: { project: 'abc' } }] }, name: 'browser', rate_per_second: 0.5 };
      const [first, second] = [await token(claims), await token({ ...claims, jti: 'another' })];
      expect((await call(first, logs())).status).toBe(200);
      const refused = await call(first, logs());
      expectError(refused, 429, 'too_many_requests');
      expect(refused.headers.get('retry-after')).toBe('2');
      expect((await call(second, logs())).status).toBe(200);
    } finally {
      frozen = undefined;
    }
  });
});

describe('audit', () => {
  it("log lines and metrics carry the key's or token's name, and never a key, a token or the secret", async () => {
    lines.length = 0;
    await call(KEYS.abc, logs());
    await call(KEYS.abc, logs('?project=xyz'));
    await call(await token({ scopes: [{ endpoint: '*', params: {} }], name: 'audited-token' }), logs('?project=other'));
    await call(`${KEYS.abc}x`, logs());
    const records = lines.map((line) => JSON.parse(line));
    expect(records.map((record) => [record.key, record.status])).toEqual([
      ['tenant-abc', 200],
      ['tenant-abc', 403],
      ['audited-token', 200],
      [undefined, 401],
    ]);
    const metricsText = (await call(TEST_KEY, '/metrics')).text;
    const samples = parsePrometheusText(metricsText);
    expect(samples.value('cannery_http_requests_total', { route: 'query', endpoint: 'logs.all', key: 'tenant-abc', status: '403' })).toBeGreaterThan(0);
    expect(samples.value('cannery_http_requests_total', { route: 'query', endpoint: 'logs.all', key: 'audited-token', status: '200' })).toBe(1);
    for (const secret of secrets) {
      for (const line of lines) expect(line).not.toContain(secret);
      expect(metricsText).not.toContain(secret);
    }
  });
});
