/**
 * Sandbox SQL as an attacker or a sloppy client writes it (issue 15): every case is a clear 400,
 * never a 500 and never the engine's own details, and the service answers normally afterwards.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../../support/service.js';
import { FIXTURES, LOGS_ALL } from './fixtures.js';

let svc: TestService;
beforeAll(async () => {
  // The limits under test are what SQL may hold (its depth, its tables), not how long it may take
  // (sandbox-pool.test.ts, limits.test.ts): on a loaded machine a deep query's compile and run pass
  // the default budgets, so this service's are generous.
  svc = await startTestService({ fixtures: FIXTURES, timeoutMs: 120_000, env: { CANNERY_SANDBOX_COMPILE_MS: '60000' } });
});
afterAll(() => svc?.close());

/** POSTs sandbox SQL (long SQL travels in a body) and returns the status and body. */
async function post(sql: string, headers: Record<string, string> = {}): Promise<{ status: number; body: any }> {
  const response = await fetch(`${svc.url}/api/endpoints/query/${LOGS_ALL}`, {
    method: 'POST',
    headers: { 'x-api-key': 'test-key-1', 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ project: 'alpha', sql }),
  });
  return { status: response.status, body: await response.json() };
}

afterAll(async () => {
  // Whatever came before, the service still serves.
  const { status } = await post('select count(*) as n from edge_logs');
  expect(status).toBe(200);
});

describe("DuckDB's keyword functions are plain names, as in BigQuery", () => {
  const names = ['current_role', 'current_catalog', 'current_schema', 'current_user', 'session_user', 'user', 'localtime', 'localtimestamp'];
  // The parser reads bare CURRENT_USER and SESSION_USER as calls (or, in some places, not at all):
  // refused by the sandbox, as functions outside the language. Every other form is a name no column has.
  const calls = new Set(['current_user', 'session_user']);
  it.each(names.flatMap((name) => [name, `\`${name}\``]))('select %s: refused, nothing of the engine', async (name) => {
    for (const sql of [`select ${name}`, `select ${name} from edge_logs`, `select id from edge_logs where ${name} is not null`]) {
      const { status, body } = await post(sql);
      expect(status, sql).toBe(400);
      if (calls.has(name)) {
        expect(body.error.code).toBe('sandbox_violation');
        expect(body.error.message).toMatch(new RegExp(`function ${name.toUpperCase()} is not allowed|SQL syntax error`));
      } else {
        expect(body.error.code).toBe('invalid_parameter');
        expect(body.error.message).toContain(`Unrecognized name: ${name.replaceAll('`', '')}`);
      }
      expect(JSON.stringify(body)).not.toMatch(/duckdb|memory|main|\.duckdb/i);
    }
  });

  it('a column of such a name is read as the column', async () => {
    const { status, body } = await post("select `user`, current_role from (select 'ann' as user, 'admin' as current_role)");
    expect(status).toBe(200);
    expect(body.result).toEqual([{ user: 'ann', current_role: 'admin' }]);
  });
});

describe('string literals BigQuery would not read', () => {
  it.each([
    ["'\\xzz'", /illegal escape sequence \\xzz/],
    ["'\\x4'", /illegal escape sequence \\x4'?/],
    ["'\\U00110000'", /U\+110000 is not a Unicode scalar value/],
    ["'\\uD800'", /U\+D800 is not a Unicode scalar value|not valid Unicode text/],
    ["'abc\\u'", /illegal escape sequence \\u/],
    ["'a\\.b'", /illegal escape sequence \\\./],
    ["'\\9'", /illegal escape sequence \\9/],
  ])('%s is a 400 naming the escape', async (literal, message) => {
    const { status, body } = await post(`select ${literal} as s`);
    expect(status).toBe(400);
    expect(body.error).toMatchObject({ code: 'sandbox_violation', param: 'sql' });
    expect(body.error.message).toMatch(message);
  });

  it('escapes BigQuery reads still decode', async () => {
    const { status, body } = await post("select 'it\\'s \\x41\\u00e9\\101\\n' as s");
    expect(status).toBe(200);
    expect(body.result).toEqual([{ s: "it's AéA\n" }]);
  });
});

describe('SQL too deep for any stage', () => {
  const terms = (count: number, join: string, term: (index: number) => string) => Array.from({ length: count }, (_, index) => term(index)).join(join);
  it.each([
    ['a 5,000-term sum', `select ${terms(5000, ' + ', (index) => String(index))} as s`],
    ['an OR chain of 5,000', `select id from edge_logs where ${terms(5000, ' or ', (index) => `id = 'x${index}'`)}`],
    ['800 nested subqueries', `select ${'(select '.repeat(800)}1${')'.repeat(800)}`],
  ])('%s is a 400', async (_what, sql) => {
    const { status, body } = await post(sql);
    expect(status).toBe(400);
    expect(body.error.param).toBe('sql');
    expect(['sandbox_violation', 'invalid_parameter']).toContain(body.error.code);
  });

  // With redaction on, the rewrite that redacts each read walks the same depth once more.
  it.each([
    ['an OR chain of 990 reads', `select id from edge_logs where ${terms(990, ' or ', (index) => `event_message = 'x${index}'`)}`],
    ['a 990-deep concat of a read', `select ${'concat('.repeat(990)}event_message${", 'x')".repeat(990)} as s from edge_logs`],
    ['990 nested subqueries around a read', `select ${'(select '.repeat(990)}max(event_message) from edge_logs${')'.repeat(990)} as s`],
  ])('with redaction on, %s is answered, never a 5xx', async (_what, sql) => {
    const { status, body } = await post(sql, { 'svc-endpoint-redact-pii': 'true' });
    expect(status, JSON.stringify(body).slice(0, 300)).toBeLessThan(500);
  });

  it('a long flat IN list is fine', async () => {
    const { status, body } = await post(`select count(*) as n from edge_logs where id in (${terms(5000, ', ', (index) => `'e${index}'`)})`);
    expect(status).toBe(200);
    expect(body.result).toEqual([{ n: 5 }]);
  });
});
