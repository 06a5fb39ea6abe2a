/**
 * The request log over the real server: one JSON line per request with the fields
 * docs/operations.md lists, never a key, a sandbox query only as a bounded prefix and its
 * length, server errors at error level with their stack, and CANNERY_LOG_LEVEL as the threshold.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cachedEndpoint } from '../engine/serve/cache/harness.js';
import { endpointText } from '../support/endpoint-text.js';
import { startTestService, TEST_KEY } from '../support/service.js';
import { startOpsService, type OpsService } from '../support/ops-service.js';

const Q = '/api/endpoints/query/';
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

let ops: OpsService;
/** While true, every backend query throws what no backend should: a bug, so a 500. */
let buggy = false;

beforeAll(async () => {
  ops = await startOpsService({
    endpoints: {
      'cached.yaml': cachedEndpoint('log.cached', '{ ttl_seconds: 60 }', ['v: { type: string, required: true }'], ['select @v as v']),
      'sandbox.yaml': endpointText('log.sandbox', ['v: { type: string, required: true }'], ['select @v as v']).replace('sandbox: false', 'sandbox: true'),
    },
    wrap: (backend) => ({
      ...backend,
      run: (request) => (buggy ? Promise.reject(new TypeError('cannot read properties of undefined')) : backend.run(request)),
    }),
  });
});
afterAll(() => ops.close());

/** The log line of the next request `action` makes. */
async function lineOf(action: () => Promise<Response>): Promise<any> {
  const before = ops.logs.length;
  const response = await action();
  await response.arrayBuffer();
  expect(ops.logs.length).toBe(before + 1);
  return ops.logs[before];
}

describe('request log', () => {
  it("a miss: method, path without the query string, the key's name, endpoint, status, duration, cache, rows, backend time", async () => {
    const line = await lineOf(() => ops.send(`${Q}log.cached?v=secret-value`));
    expect(Object.keys(line)).toEqual(['time', 'level', 'msg', 'method', 'path', 'key', 'endpoint', 'status', 'duration_ms', 'cache', 'rows', 'backend_ms']);
    expect(line).toMatchObject({ level: 'info', msg: 'request', method: 'GET', path: `${Q}log.cached`, key: 'api-key-1', endpoint: 'log.cached', status: 200, cache: 'MISS', rows: 1 });
    expect(line.time).toMatch(ISO_TIME);
    expect(line.duration_ms).toBeGreaterThanOrEqual(0);
    expect(line.backend_ms).toBeGreaterThanOrEqual(0);
    expect(JSON.stringify(line)).not.toContain('secret-value');
  });

  it('a hit has no backend time', async () => {
    const line = await lineOf(() => ops.send(`${Q}log.cached?v=secret-value`));
    expect(line).toMatchObject({ endpoint: 'log.cached', status: 200, cache: 'HIT', rows: 1 });
    expect(line).not.toHaveProperty('backend_ms');
  });

  it('never writes an API key, sent either way, valid or not', async () => {
    const lines = [
      await lineOf(() => ops.send(`${Q}log.cached?v=a`)),
      await lineOf(() => ops.send(`${Q}log.cached?v=a`, { headers: { 'x-api-key': '', authorization: `Bearer ${TEST_KEY}` } })),
      await lineOf(() => ops.send(`${Q}log.cached?v=a`, { headers: { 'x-api-key': 'wrong-key-123' } })),
    ];
    expect(lines.map((line) => line.status)).toEqual([200, 200, 401]);
    for (const line of lines) {
      expect(JSON.stringify(line)).not.toContain(TEST_KEY);
      expect(JSON.stringify(line)).not.toContain('wrong-key-123');
    }
    expect(lines[2]).toMatchObject({ level: 'warn', error: 'unauthorized' });
  });

  it('shows a sandbox query as its first 200 characters and its length', async () => {
    const sql = `select @v as v, '${'x'.repeat(300)}' as padding, 'the end' as tail`;
    const line = await lineOf(() =>
      ops.send(`${Q}log.sandbox`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ v: 'a', sql }) }),
    );
    expect(line).toMatchObject({ status: 200, endpoint: 'log.sandbox', sql: sql.slice(0, 200), sql_length: sql.length });
    expect(JSON.stringify(line)).not.toContain('the end');
  });

  it("a caller's mistake is a warning with its code", async () => {
    const line = await lineOf(() => ops.send(`${Q}log.cached?v=a&w=b`));
    expect(line).toMatchObject({ level: 'warn', status: 400, endpoint: 'log.cached', error: 'unknown_parameter' });
    expect(line).not.toHaveProperty('stack');
  });

  it('a bug is a 500 at error level, with the stack in the log and not in the answer', async () => {
    buggy = true;
    let line: any;
    try {
      line = await lineOf(async () => {
        const response = await ops.send(`${Q}log.sandbox?v=bug`);
        expect(response.status).toBe(500);
        expect(await response.clone().text()).not.toContain('cannot read properties');
        return response;
      });
    } finally {
      buggy = false;
    }
    expect(line).toMatchObject({ level: 'error', status: 500, endpoint: 'log.sandbox', error: 'internal' });
    expect(line.stack).toMatch(/^TypeError: cannot read properties of undefined\n\s+at /);
  });

  it('CANNERY_LOG_LEVEL=warn keeps failures and drops successes', async () => {
    const lines: string[] = [];
    const svc = await startTestService({ env: { CANNERY_LOG_LEVEL: 'warn' }, logLines: (line) => lines.push(line) });
    try {
      expect((await svc.call('/health')).status).toBe(200);
      expect((await svc.call(`${Q}no.such.endpoint`)).status).toBe(404);
      expect(lines.map((line) => JSON.parse(line))).toEqual([expect.objectContaining({ level: 'warn', status: 404, error: 'endpoint_not_found' })]);
    } finally {
      await svc.close();
    }
  });
});
