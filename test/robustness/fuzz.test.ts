/**
 * Fuzzing the real server (h3 over a socket, a real DuckDB) with what a caller controls: paths,
 * methods, query strings, parameter values, headers, POST bodies and sandbox SQL. Whatever comes
 * in, the answer is a JSON error or a result, never a 5xx, and the service keeps answering.
 *
 * Runs are bounded (about 1,000 requests in all) and seeded at random; on a failure fast-check
 * prints the seed and the smallest input it could shrink to, to replay with `{ seed, path }`. The
 * seed is also printed as the file starts, and FUZZ_SEED=N replays it: a run that ends in the
 * test's own timeout (a stall, not a failed property) prints nothing else.
 */
import fc from 'fast-check';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, TEST_KEY, type TestService } from '../support/service.js';
import { FIXTURES } from '../sql/sandbox/fixtures.js';
import { ENDPOINT_IDS, headers, hugeValue, parameterValue, path, postBody, queryPath, sandboxSql } from './arbitraries.js';
import { expectWellFormed, send, type RawRequest } from './raw-http.js';

let service: TestService;

const SEED = process.env.FUZZ_SEED === undefined ? Math.floor(Math.random() * 2 ** 31) : Number(process.env.FUZZ_SEED);
fc.configureGlobal({ seed: SEED });

beforeAll(async () => {
  console.log(`fuzz.test.ts: fast-check seed ${SEED} (replay with FUZZ_SEED=${SEED})`);
  // The fixture's day, so usage.api-counts' windows have rows in them.
  service = await startTestService({ fixtures: FIXTURES, clock: () => new Date('2024-05-01T12:30:00Z') });
});
afterAll(async () => {
  await service?.close();
});

// After every property: the service still answers, and answers right.
afterEach(async () => {
  expect((await service.get('/health')).status).toBe(200);
  const { status, body } = await service.call('/api/endpoints/query/logs.all?project=alpha');
  expect(status).toBe(200);
  expect(body.result.map((row: { id: string }) => row.id)).toEqual(['e5', 'e4', 'e3', 'e2', 'e1']);
});

async function check(request: RawRequest): Promise<void> {
  expectWellFormed(await send(service.url, request), request);
}

const withKey = { 'x-api-key': TEST_KEY };

describe('fuzzing the HTTP surface', () => {
  it('any path and method: a JSON error or a result', async () => {
    await fc.assert(
      fc.asyncProperty(path, fc.constantFrom('GET', 'GET', 'GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'), async (target, method) => {
        await check({ method, path: target, headers: withKey, ...(method === 'POST' ? { body: '{}' } : {}) });
      }),
      { numRuns: 200 },
    );
  });

  it('any query string on a real endpoint: names, repeats, unicode, control characters, huge and malformed values', async () => {
    await fc.assert(
      fc.asyncProperty(queryPath, async (target) => {
        await check({ method: 'GET', path: target, headers: withKey });
      }),
      { numRuns: 200 },
    );
  });

  it('any headers: keys, redaction, caching, content negotiation, and headers nobody asked for', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...ENDPOINT_IDS), headers(TEST_KEY), async (id, sent) => {
        const query = id.startsWith('usage') || id.startsWith('90') ? 'interval=hourly&project=alpha' : 'project=alpha';
        await check({ method: 'GET', path: `/api/endpoints/query/${id}?${query}`, headers: sent });
      }),
      { numRuns: 120 },
    );
  });

  it('any POST body: parameter objects, other JSON, not JSON, over the size cap', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...ENDPOINT_IDS), postBody, fc.constantFrom('application/json', 'text/plain', ''), async (id, body, contentType) => {
        await check({ method: 'POST', path: `/api/endpoints/query/${id}`, headers: { ...withKey, ...(contentType ? { 'content-type': contentType } : {}) }, body });
      }),
      { numRuns: 100 },
    );
  });

  it('one parameter, any value, alone or repeated, in the query string or the body', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('project', 'iso_timestamp_start', 'iso_timestamp_end', 'interval'), parameterValue, hugeValue, fc.integer({ min: 1, max: 3 }), fc.boolean(), async (name, value, huge, times, inBody) => {
        const id = name === 'interval' ? 'usage.api-counts' : 'logs.all';
        const others = name === 'interval' ? { project: 'alpha' } : name === 'project' ? {} : { project: 'alpha' };
        if (inBody) {
          // A body may be as large as the caller likes, so it takes the huge values too.
          const sent = times === 3 ? huge : value;
          await check({ method: 'POST', path: `/api/endpoints/query/${id}`, headers: { ...withKey, 'content-type': 'application/json' }, body: JSON.stringify({ ...others, [name]: sent }) });
          return;
        }
        const query = new URLSearchParams(Object.entries(others));
        for (let i = 0; i < times; i += 1) query.append(name, value);
        await check({ method: 'GET', path: `/api/endpoints/query/${id}?${query}`, headers: withKey });
      }),
      { numRuns: 120 },
    );
  });
});

describe('fuzzing sandbox SQL', () => {
  it('any sql, in the query string or a JSON body, on either endpoint: a result or a 400 saying why', async () => {
    await fc.assert(
      fc.asyncProperty(sandboxSql, fc.boolean(), fc.constantFrom('logs.all', 'usage.api-counts'), async (sql, inBody, id) => {
        const params: Record<string, string> = id === 'logs.all' ? { project: 'alpha', sql } : { interval: 'daily', project: 'alpha', sql };
        // Long SQL goes in a body, as docs/sandbox.md says to send it: a URL has room for about 8 KiB.
        const request: RawRequest = inBody || sql.length > 2000
          ? { method: 'POST', path: `/api/endpoints/query/${id}`, headers: { ...withKey, 'content-type': 'application/json' }, body: JSON.stringify(params) }
          : { method: 'GET', path: `/api/endpoints/query/${id}?${new URLSearchParams(params)}`, headers: withKey };
        await check(request);
      }),
      {
        numRuns: 250,
        // One answer past this is a stalled service (the test service's query timeout is 10 s):
        // fail that run, so fast-check names the query, rather than let the test's timeout end it.
        timeout: 60_000,
        // Found by this test: nesting past DuckDB's expression depth limit was a 502.
        examples: [[`select ${Array.from({ length: 2000 }, (_, i) => `${i}`).join(' + ')}`, true, 'logs.all']],
      },
    );
  });
});
