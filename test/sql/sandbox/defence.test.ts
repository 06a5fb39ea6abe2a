/**
 * The sandbox's limits beyond the AST checks: a heavy but allowed query is interrupted at the
 * query timeout (504) without taking the service down; `sql` needs `sandbox: true`; long SQL
 * travels in a POST body, up to a length limit.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { endpointText } from '../../support/endpoint-text.js';
import { SHIPPED_ENDPOINTS, startTestService, TEST_KEY, type TestService } from '../../support/service.js';
import { queryPath } from '../../endpoints/edge-fixtures.js';
import { FIXTURES, sandboxPath } from './fixtures.js';

/** The limit on sandbox SQL, in characters (engine/serve/sandbox-compile.ts). */
const MAX_SQL = 100_000;

async function post(svc: TestService, idOrName: string, body: object): Promise<{ status: number; body: any }> {
  const response = await fetch(`${svc.url}/api/endpoints/query/${encodeURIComponent(idOrName)}`, {
    method: 'POST',
    headers: { 'x-api-key': TEST_KEY, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: await response.json() };
}

describe('a heavy query hits the query timeout', () => {
  let svc: TestService;

  beforeAll(async () => {
    svc = await startTestService({ fixtures: FIXTURES, timeoutMs: 500 });
  });
  afterAll(() => svc?.close());

  // 15 copies of alpha's 5 edge rows: 5^15 (about 3e10) combinations, each one summed.
  const copies = Array.from({ length: 15 }, (_, i) => `edge_logs c${i}`);
  const heavy = `select count(*) as n, sum(${copies.map((_, i) => `length(c${i}.id)`).join(' + ')}) as total from ${copies.join(', ')}`;

  it('is 504 query_timeout with no data', async () => {
    const { status, body } = await svc.call(sandboxPath({ project: 'alpha', sql: heavy }));
    expect(status, JSON.stringify(body)).toBe(504);
    expect(body.error.code).toBe('query_timeout');
    expect(body).not.toHaveProperty('result');
  });

  it('leaves the service answering normally', async () => {
    const plain = await svc.call(queryPath('logs.all', { project: 'alpha' }));
    expect(plain.status).toBe(200);
    expect(plain.body.result.map((row: { id: string }) => row.id)).toEqual(['e5', 'e4', 'e3', 'e2', 'e1']);
    const sandboxed = await svc.call(sandboxPath({ project: 'alpha', sql: 'select count(*) as n from edge_logs a, edge_logs b' }));
    expect(sandboxed.status).toBe(200);
    expect(sandboxed.body.result).toEqual([{ n: 25 }]);
  });

  it('times out two heavy queries running at once, then still serves', async () => {
    const [first, second] = await Promise.all([
      svc.call(sandboxPath({ project: 'alpha', sql: heavy })),
      svc.call(sandboxPath({ project: 'alpha', sql: heavy.replace('as total', 'as total_2') })),
    ]);
    expect(first.status).toBe(504);
    expect(second.status).toBe(504);
    const after = await svc.call(sandboxPath({ project: 'beta', sql: 'select id from edge_logs order by id' }));
    expect(after.status).toBe(200);
    expect(after.body.result).toEqual([{ id: 'be1' }, { id: 'be2' }]);
  });
});

describe('sql and the sandbox flag; long sql', () => {
  let svc: TestService;
  const project = ['project: { type: string, required: true }'];
  const query = ['with mine as (select t.id from `cloudflare.logs.prod` as t where t.project = @project)', 'select id from mine order by id'];
  const closed = endpointText('test.closed', project, query);
  const open = endpointText('test.open', project, query).replace('sandbox: false', 'sandbox: true');

  beforeAll(async () => {
    const logsAll = await readFile(join(SHIPPED_ENDPOINTS, 'logs.all.yaml'), 'utf8');
    svc = await startTestService({
      fixtures: FIXTURES,
      endpoints: { 'test.closed.yaml': closed, 'test.open.yaml': open, 'logs.all.yaml': logsAll },
    });
  });
  afterAll(() => svc?.close());

  describe('on an endpoint with sandbox: false', () => {
    it('sql in the query string is 400 sandbox_not_enabled, with no data', async () => {
      const { status, body } = await svc.call(queryPath('test.closed', { project: 'alpha', sql: 'select count(*) as n from mine' }));
      expect(status).toBe(400);
      expect(body.error).toMatchObject({ code: 'sandbox_not_enabled', param: 'sql' });
      expect(body).not.toHaveProperty('result');
    });

    it('sql in a POST body is 400 sandbox_not_enabled', async () => {
      const { status, body } = await post(svc, 'test.closed', { project: 'alpha', sql: 'select count(*) as n from mine' });
      expect(status).toBe(400);
      expect(body.error).toMatchObject({ code: 'sandbox_not_enabled', param: 'sql' });
      expect(body).not.toHaveProperty('result');
    });

    it('sql that would be a violation anyway is still sandbox_not_enabled', async () => {
      const { status, body } = await svc.call(queryPath('test.closed', { project: 'alpha', sql: 'drop table `cloudflare.logs.prod`' }));
      expect(status).toBe(400);
      expect(body.error.code).toBe('sandbox_not_enabled');
    });

    it('without sql the endpoint serves', async () => {
      const { status, body } = await svc.call(queryPath('test.closed', { project: 'alpha' }));
      expect(status).toBe(200);
      expect(body.result).toEqual([{ id: 'e1' }, { id: 'e2' }, { id: 'e3' }, { id: 'e4' }, { id: 'e5' }]);
    });

    it('the same endpoint with sandbox: true accepts the same sql', async () => {
      const { status, body } = await svc.call(queryPath('test.open', { project: 'alpha', sql: 'select count(*) as n from mine' }));
      expect(status, JSON.stringify(body)).toBe(200);
      expect(body.result).toEqual([{ n: 5 }]);
    });
  });

  describe('long sql', () => {
    it('a POST body carries sql far longer than a URL could', async () => {
      // 5000 ids that match nothing, then two that match: e1 and e3.
      const misses = Array.from({ length: 5000 }, (_, i) => `'miss-${String(i).padStart(4, '0')}'`);
      const sql = `select id from edge_logs where id in (${[...misses, "'e1'", "'e3'"].join(', ')}) order by id`;
      expect(sql.length).toBeGreaterThan(50_000);
      const { status, body } = await post(svc, 'logs.all', { project: 'alpha', sql });
      expect(status, JSON.stringify(body).slice(0, 500)).toBe(200);
      expect(body.result).toEqual([{ id: 'e1' }, { id: 'e3' }]);
    });

    /** `select id from edge_logs where id = 'e2'` padded with a trailing comment to exactly `length` characters. */
    function paddedSql(length: number): string {
      const head = "select id from edge_logs where id = 'e2' /*";
      const sql = head + 'x'.repeat(length - head.length - 2) + '*/';
      expect(sql).toHaveLength(length);
      return sql;
    }

    it(`sql of exactly ${MAX_SQL} characters is accepted`, async () => {
      const { status, body } = await post(svc, 'logs.all', { project: 'alpha', sql: paddedSql(MAX_SQL) });
      expect(status, JSON.stringify(body)).toBe(200);
      expect(body.result).toEqual([{ id: 'e2' }]);
    });

    it(`sql longer than ${MAX_SQL} characters is 400, naming the limit`, async () => {
      const { status, body } = await post(svc, 'logs.all', { project: 'alpha', sql: paddedSql(MAX_SQL + 1) });
      expect(status).toBe(400);
      expect(body.error).toMatchObject({ code: 'sandbox_violation', param: 'sql' });
      expect(body.error.message).toContain(String(MAX_SQL));
      expect(body).not.toHaveProperty('result');
    });

    it('a much longer sql (500,000 characters) is 400 too', async () => {
      const { status, body } = await post(svc, 'logs.all', { project: 'alpha', sql: paddedSql(500_000) });
      expect(status).toBe(400);
      expect(body.error.param).toBe('sql');
      expect(body).not.toHaveProperty('result');
    });
  });

  describe('results the wire format does not cover', () => {
    it('an INTERVAL column comes back in BigQuery\'s canonical text form', async () => {
      const { status, body } = await svc.call(sandboxPath({ project: 'alpha', sql: 'select interval 1 day as i, interval 90 minute as j' }));
      expect(status).toBe(200);
      expect(body.result).toEqual([{ i: '0-0 1 0:0:0', j: '0-0 0 1:30:0' }]);
    });
  });
});
