/**
 * Sandbox SQL is compiled off the event loop: a query that takes long to parse delays only itself,
 * and one past the compile budget is a 400 whose thread is replaced. Against the real h3 app over a
 * socket, with the shipped endpoints.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sourceNames } from '../../../src/config/sources.js';
import { loadRegistry } from '../../../src/engine/serve/registry.js';
import { compileSandboxQuery } from '../../../src/engine/serve/sandbox-compile.js';
import { createSandboxCompiler } from '../../../src/engine/serve/sandbox-pool.js';
import { bigQueryDialect } from '../../../src/sql/dialects/bigquery/dialect.js';
import { sourceTables } from '../../../src/sql/dialects/bigquery/tables.js';
import { queryPath } from '../../endpoints/edge-fixtures.js';
import { SHIPPED_ENDPOINTS, startTestService, TEST_KEY, type TestService } from '../../support/service.js';

/**
 * STRING_AGG calls nested `depth` deep: the grammar still parses them in time exponential in the
 * depth (docs/sql-parser.md, left alone), about a second at 10, ten at 12. Refused once parsed
 * (an aggregate of an aggregate).
 */
function nestedAggregates(depth: number, innermost = "'a'"): string {
  let sql = innermost;
  for (let level = 0; level < depth; level++) sql = `string_agg(${sql}, ',')`;
  return `select ${sql} as x`;
}

/** STRING_AGG calls nested `depth` deep through scalar subqueries: as slow to parse, and a query that runs. */
function nestedValidAggregates(depth: number): string {
  let sql = "'a'";
  for (let level = 0; level < depth; level++) sql = `string_agg((select ${sql}), ',')`;
  return `select ${sql} as x`;
}

const EDGE = [{ id: 'e1', timestamp: '2024-05-01T12:00:00Z', event_message: 'GET /rest/v1/x', project: 'p1', metadata: { request: { path: '/rest/v1/x' } } }];

async function get(svc: TestService, path: string): Promise<{ status: number; body: { error?: { code: string; message: string; param?: string }; result?: unknown[] } }> {
  const response = await fetch(svc.url + path, { headers: { 'x-api-key': TEST_KEY } });
  return { status: response.status, body: (await response.json()) as never };
}

describe('sandbox SQL compiled on worker threads', () => {
  let svc: TestService;
  beforeAll(async () => {
    // Two threads, whatever the cores: the light query must not wait behind the heavy one's thread.
    svc = await startTestService({ fixtures: { 'cloudflare.logs.prod': EDGE }, env: { CANNERY_SANDBOX_COMPILE_MS: '60000', CANNERY_SANDBOX_THREADS: '2' } });
  });
  afterAll(() => svc?.close());

  it('answers /health and other queries while a slow compile runs', async () => {
    const finished: string[] = [];
    // Refused only once parsed: compiled on the event loop, its 400 would be written before any
    // later request were read, so it would finish first; on a thread it finishes last.
    const heavy = get(svc, queryPath('logs.all', { project: 'p1', sql: nestedAggregates(10, "getenv('HOME')") })).then((answer) => {
      finished.push('heavy');
      return answer;
    });
    // Lets the server read the heavy request first. The test shares the server's event loop: a
    // parse on it would hold this timer too, and the requests below would be sent after its answer.
    await new Promise((resolve) => setTimeout(resolve, 100));
    const health = fetch(`${svc.url}/health`).then((response) => {
      finished.push('health');
      return response.status;
    });
    const light = get(svc, queryPath('logs.all', { project: 'p1', sql: 'select id from edge_logs' })).then((answer) => {
      finished.push('light');
      return answer;
    });
    expect(await health).toBe(200);
    expect((await light).body.result).toEqual([{ id: 'e1' }]);
    const refused = await heavy;
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ code: 'sandbox_violation', param: 'sql' });
    expect(refused.body.error?.message).toContain('GETENV');
    expect(finished.indexOf('heavy')).toBe(2);
  });

  it('keeps the errors of bad SQL as they were, with their line and column', async () => {
    const { status, body } = await get(svc, queryPath('logs.all', { project: 'p1', sql: 'select nope from edge_logs' }));
    expect(status).toBe(400);
    expect(body.error).toMatchObject({ code: 'invalid_parameter', param: 'sql' });
    expect(body.error?.message).toMatch(/nope.*\(line 1, column \d+\)/);
  });
});

describe('the compile budget', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService({ fixtures: { 'cloudflare.logs.prod': EDGE }, env: { CANNERY_SANDBOX_COMPILE_MS: '1500', CANNERY_SANDBOX_THREADS: '1' } });
  });
  afterAll(() => svc?.close());

  // 1.5 s: a simple query's first compile on a new thread stays well under it on a loaded machine;
  // twelve nested STRING_AGGs take ten seconds or more to parse.
  it('refuses SQL that takes longer to compile, and the next query gets a new thread', async () => {
    const { status, body } = await get(svc, queryPath('logs.all', { project: 'p1', sql: nestedAggregates(12) }));
    expect(status).toBe(400);
    expect(body.error).toMatchObject({ code: 'sandbox_violation', param: 'sql' });
    expect(body.error?.message).toContain('CANNERY_SANDBOX_COMPILE_MS');
    // The thread that ran out of time was ended; a new one starts, its start not counted in the budget.
    const next = await get(svc, queryPath('logs.all', { project: 'p1', sql: 'select id from edge_logs' }));
    expect(next.status).toBe(200);
    expect(next.body.result).toEqual([{ id: 'e1' }]);
  });
});

describe('the compile queue', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService({
      fixtures: { 'cloudflare.logs.prod': EDGE },
      env: { CANNERY_SANDBOX_COMPILE_MS: '60000', CANNERY_SANDBOX_THREADS: '1', CANNERY_MAX_QUEUED_QUERIES: '1' },
    });
  });
  afterAll(() => svc?.close());

  it('past CANNERY_MAX_QUEUED_QUERIES compiles waiting for a thread, another is 429 at once', async () => {
    // One compiles (for seconds), one waits; the third finds the queue full.
    const running = get(svc, queryPath('logs.all', { project: 'p1', sql: nestedValidAggregates(10) }));
    await new Promise((resolve) => setTimeout(resolve, 200));
    const waiting = get(svc, queryPath('logs.all', { project: 'p1', sql: 'select id from edge_logs' }));
    await new Promise((resolve) => setTimeout(resolve, 100));
    const response = await fetch(svc.url + queryPath('logs.all', { project: 'p1', sql: 'select timestamp from edge_logs' }), { headers: { 'x-api-key': TEST_KEY } });
    expect(response.status).toBe(429);
    expect(response.headers.get('retry-after')).not.toBeNull();
    expect(((await response.json()) as { error: { code: string; message: string } }).error).toMatchObject({ code: 'too_many_requests', message: expect.stringContaining('sandbox SQL') });
    expect((await running).status).toBe(200);
    const waited = await waiting;
    expect(waited.body.result, JSON.stringify(waited.body)).toEqual([{ id: "e1" }]);
  });
});

describe('what a compile thread is sent', () => {
  it('compiles each endpoint and dialect as the event loop would, past the number a thread keeps (each sent once, then dropped)', async () => {
    const dialects = ['one', 'two'].map((dataset) => bigQueryDialect(sourceTables(sourceNames(), { project: 'p', dataset })));
    const registry = await loadRegistry(SHIPPED_ENDPOINTS, { dialect: dialects[0]!, sources: sourceNames() });
    const logsAll = registry.find('logs.all')!;
    // Hot reloads make new endpoints: each copy has its own row cap, so a thread that compiled
    // with another's would write another LIMIT.
    const versions = Array.from({ length: 70 }, (_, index) => ({ statement: logsAll.statement, definition: { ...logsAll.definition, max_rows: 10 + index } }));
    const compiler = createSandboxCompiler({ threads: 1, budgetMs: 60_000 });
    try {
      for (const round of [0, 1]) {
        for (const [index, version] of versions.entries()) {
          const dialect = dialects[(index + round) % 2]!;
          const sql = `select id from edge_logs -- ${round}`;
          expect(await compiler.compile(version, sql, dialect)).toEqual(compileSandboxQuery(version, sql, dialect));
        }
      }
    } finally {
      await compiler.close();
    }
  });
});

describe("a compile past its thread's memory", () => {
  it('is a 400 naming the bound; the thread is replaced and the next compile answers', async () => {
    const dialect = bigQueryDialect(sourceTables(sourceNames(), { project: 'p', dataset: 'd' }));
    const registry = await loadRegistry(SHIPPED_ENDPOINTS, { dialect, sources: sourceNames() });
    const logsAll = registry.find('logs.all')!;
    // 12 MiB of heap holds the compiler (about 7 MiB loaded) and a small query's compile, not two thousand UNION ALLs' (about 25 MiB).
    const compiler = createSandboxCompiler({ threads: 1, budgetMs: 60_000, heapMb: 12 });
    try {
      const small = 'select id from edge_logs';
      expect(await compiler.compile(logsAll, small, dialect)).toEqual(compileSandboxQuery(logsAll, small, dialect));
      const large = Array.from({ length: 2000 }, () => small).join(' union all ');
      await expect(compiler.compile(logsAll, large, dialect)).rejects.toMatchObject({
        code: 'sandbox_violation',
        param: 'sql',
        message: "sql took more than 12 MiB to compile (a compile thread's memory); simplify it",
      });
      expect(await compiler.compile(logsAll, small, dialect)).toEqual(compileSandboxQuery(logsAll, small, dialect));
    } finally {
      await compiler.close();
    }
  });
});
