/**
 * A function the embedded engine runs in JavaScript, over a table of several row groups (260,000
 * edge events: 122,880 rows a group), against a real server. With two DuckDB threads
 * node ran the threads' blocks back to back with no turn of the event loop between them, and
 * `/health` waited for the query's end or its 25 s timeout (issue 38's audit): now the blocks
 * stop once they have held the loop past its bound, a 400 naming it. With one thread the loop
 * turns between blocks (not after every one: see HELD_LOOP_BOUND_MS), and the same query answers
 * its rows. The tests before this one took their rows from UNNEST, which DuckDB runs on one
 * thread, and so never met it.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startTestService, TEST_KEY, type TestService } from '../support/service.js';

const NOW = new Date('2024-06-01T12:00:00Z');
const ROWS = 260_000;
/** Rows with short messages, a millisecond apart before NOW. */
const EDGE_EVENTS = Array.from({ length: ROWS }, (_, index) => ({
  id: `e${index}`,
  timestamp: new Date(NOW.getTime() - 1 - index).toISOString(),
  event_message: `GET /rest/v1/items?id=eq.${index} 200`,
  project: 'alpha',
}));
/** Short values: each block is a few milliseconds of INITCAP, so only blocks with no turn between them add up past the bound. */
const SQL = 'select count(initcap(event_message)) as n from edge_logs';

let service: TestService | undefined;
afterEach(async () => {
  await service?.close();
  service = undefined;
});

async function serveSeeded(threads: number): Promise<TestService> {
  return startTestService({ fixtures: { 'cloudflare.logs.prod': EDGE_EVENTS }, clock: () => NOW, timeoutMs: 25_000, env: { CANNERY_DUCKDB_THREADS: String(threads) } });
}

async function sandbox(url: string): Promise<{ status: number; body: any }> {
  const response = await fetch(`${url}/api/endpoints/query/logs.all`, {
    method: 'POST',
    headers: { 'x-api-key': TEST_KEY, 'content-type': 'application/json' },
    body: JSON.stringify({ project: 'alpha', sql: SQL }),
  });
  return { status: response.status, body: await response.json() };
}

/** Runs `work` while asking `/health` every 50 ms; each answer's wait. */
async function healthDuring(url: string, work: Promise<unknown>): Promise<number[]> {
  let done = false;
  const waits: number[] = [];
  const polling = (async () => {
    while (!done) {
      const started = performance.now();
      const response = await fetch(`${url}/health`);
      expect(response.status).toBe(200);
      await response.arrayBuffer();
      waits.push(performance.now() - started);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  })();
  await work.finally(() => (done = true));
  await polling;
  return waits;
}

describe('a host function over several row groups', () => {
  it('with two DuckDB threads, is a 400 naming the bound on the held event loop, and /health answers within 1 s throughout', async () => {
    service = await serveSeeded(2);
    const answer = sandbox(service.url);
    const waits = await healthDuring(service.url, answer);
    const { status, body } = await answer;
    expect(status, JSON.stringify(body)).toBe(400);
    expect(body.error.code).toBe('resources_exceeded');
    expect(body.error.message).toMatch(/^logs\.all: INITCAP on the embedded engine runs in JavaScript, .* at most 400 ms .*fewer rows/);
    expect(body.error.message).not.toMatch(/cannery_/);
    // /health was asked while the query ran, and never waited a second.
    expect(waits.length).toBeGreaterThan(0);
    expect(Math.max(...waits)).toBeLessThan(1_000);
  }, 120_000);

  it('with one DuckDB thread, answers its rows: the loop turns between blocks often enough', async () => {
    service = await serveSeeded(1);
    const { status, body } = await sandbox(service.url);
    expect(status, JSON.stringify(body)).toBe(200);
    // Every row went through the function, over several row groups.
    expect(body.result).toEqual([{ n: ROWS }]);
  }, 120_000);
});
