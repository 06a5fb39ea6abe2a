/**
 * Overflow over the real server and a real DuckDB (issue 39): sandbox SQL whose INT64 or FLOAT64
 * arithmetic, SUM, date shift or INTERVAL passes its type's range is a 400 that names the
 * overflow in BigQuery's words, never a value, a 5xx, or the cast the generated SQL raised it by.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURES } from '../sql/sandbox/fixtures.js';
import { startTestService, TEST_KEY, type TestService } from '../support/service.js';

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService({ fixtures: FIXTURES });
});
afterAll(() => svc.close());

async function answer(sql: string): Promise<{ status: number; body: { result?: unknown[]; error?: { code: string; message: string; param?: string } } }> {
  const response = await fetch(`${svc.url}/api/endpoints/query/logs.all`, {
    method: 'POST',
    headers: { 'x-api-key': TEST_KEY, 'content-type': 'application/json' },
    body: JSON.stringify({ project: 'alpha', sql }),
  });
  return { status: response.status, body: (await response.json()) as never };
}

describe('an overflow is a 400 that names it', () => {
  it.each([
    ['select sum(x) as s from unnest([9223372036854775807, 1]) as x', 'int64 overflow: a SUM of INT64 values past the range of INT64'],
    ['select x + 1 as s from unnest([9223372036854775807]) as x', 'int64 overflow: 9223372036854775807 + 1'],
    ['select abs(x) as s from unnest([-9223372036854775808]) as x', 'int64 overflow: ABS(-9223372036854775808)'],
    ['select x / y as q from (select 1e300 as x, 1e-300 as y)', 'floating point overflow: / of finite FLOAT64 values'],
    ['select sum(x) as s from unnest([1.1e308, 1.2e308]) as x', 'floating point overflow: a SUM of finite FLOAT64 values'],
    ["select datetime_add(datetime '9999-12-31 23:59:59', interval 1 second) as d", 'DATETIME value out of range'],
    ['select make_interval(year => 10000, month => 1) as i', 'Interval field months is out of range -120000 to 120000'],
  ])('%s', async (sql, named) => {
    const { status, body } = await answer(sql);
    expect(status).toBe(400);
    expect(body.error?.code).toBe('invalid_parameter');
    expect(body.error?.param).toBe('sql');
    expect(body.error?.message).toBe(`sql cannot run: logs.all: the query failed: ${named}`);
  });

  it('a SUM within INT64 over the sources answers, as an INT64', async () => {
    const { status, body } = await answer('select sum(length(event_message)) as n, count(*) as c from edge_logs');
    expect(status).toBe(200);
    const [row] = body.result as { n: number; c: number }[];
    expect(Number.isInteger(row!.n) && row!.n > 0 && row!.c > 0).toBe(true);
  });
});
