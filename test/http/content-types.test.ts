/**
 * What the service says about types, over the real server: every answer carries
 * `X-Content-Type-Options: nosniff`, and a POST body is read as JSON only when its Content-Type
 * says so (issue 38); anything else with a body is a 415, and the clients that send JSON (or no
 * body) are answered as before.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, TEST_KEY, type TestService } from '../support/service.js';

const LOGS = '/api/endpoints/query/logs.all';
const BODY = JSON.stringify({ project: 'p1' });

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
});
afterAll(() => svc.close());

const post = (headers: Record<string, string>, body: string | Uint8Array, path = LOGS) => fetch(svc.url + path, { method: 'POST', headers: { 'x-api-key': TEST_KEY, ...headers }, body });

describe('X-Content-Type-Options', () => {
  it('is nosniff on every answer: rows in each format, errors from every layer, the service routes', async () => {
    const key = { 'x-api-key': TEST_KEY };
    const answers: [string, Promise<Response>][] = [
      ['rows', fetch(`${svc.url}${LOGS}?project=p1`, { headers: key })],
      ['CSV rows', fetch(`${svc.url}${LOGS}?project=p1`, { headers: { ...key, accept: 'text/csv' } })],
      ['HEAD', fetch(`${svc.url}${LOGS}?project=p1`, { method: 'HEAD', headers: key })],
      ['401', fetch(`${svc.url}${LOGS}?project=p1`)],
      ['400', fetch(`${svc.url}${LOGS}?nope=1`, { headers: key })],
      ['404 route', fetch(`${svc.url}/nowhere`, { headers: key })],
      ['405', fetch(`${svc.url}${LOGS}`, { method: 'DELETE', headers: key })],
      ['413 before routing', fetch(`${svc.url}${LOGS}`, { method: 'POST', headers: { ...key, 'content-type': 'application/json' }, body: 'x'.repeat(2 << 20) })],
      ['415', post({ 'content-type': 'text/plain' }, BODY)],
      ['/health', fetch(`${svc.url}/health`)],
      ['/openapi.json', fetch(`${svc.url}/openapi.json`, { headers: key })],
    ];
    for (const [what, answer] of answers) {
      const response = await answer;
      await response.arrayBuffer();
      expect(response.headers.get('x-content-type-options'), what).toBe('nosniff');
    }
  });
});

describe('a POST body is JSON only with a JSON Content-Type', () => {
  it.each([
    ['text/plain', { 'content-type': 'text/plain' }, BODY, 'Content-Type "text/plain"'],
    ['a form (what curl -d sends)', { 'content-type': 'application/x-www-form-urlencoded' }, 'project=p1', 'Content-Type "application/x-www-form-urlencoded"'],
    ['no Content-Type', {}, new TextEncoder().encode(BODY), 'no Content-Type'],
    ['JSON in a charset JSON does not have', { 'content-type': 'application/json; charset=latin1' }, BODY, 'charset=latin1'],
  ])('%s is a 415 that names the type to send', async (_, headers, body, named) => {
    const response = await post(headers, body);
    expect(response.status).toBe(415);
    const { error } = (await response.json()) as { error: { code: string; message: string } };
    expect(error.code).toBe('unsupported_media_type');
    expect(error.message).toContain('Content-Type: application/json');
    expect(error.message).toContain(named);
  });

  it.each(['application/json', 'application/json; charset=utf-8', 'Application/JSON;Charset="UTF-8"', 'application/vnd.api+json'])('%s is read', async (type) => {
    const response = await post({ 'content-type': type }, JSON.stringify({ project: 'p1', sql: 'select 1 as one' }));
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ result: [{ one: 1 }] });
  });

  it('an empty body has no type to check; a GET declaring JSON without a body (as Supabase Studio sends) is answered', async () => {
    expect((await post({ 'content-type': 'text/plain' }, '', `${LOGS}?project=p1`)).status).toBe(200);
    const studio = await fetch(`${svc.url}${LOGS}?project=p1&sql=${encodeURIComponent('select 1 as one')}`, {
      headers: { 'x-api-key': TEST_KEY, 'content-type': 'application/json', accept: 'application/json' },
    });
    expect(studio.status).toBe(200);
  });

  it('the credential is checked first: without one, any body is a 401', async () => {
    const response = await fetch(svc.url + LOGS, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: BODY });
    expect(response.status).toBe(401);
  });
});
