/**
 * Defence in depth: the serving DuckDB instance, driven directly (past every sandbox check),
 * can read only its own tables, write nothing, change no setting, and is interrupted on time.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDuckDbBackend } from '../../../src/backends/duckdb/backend.js';
import type { Backend, QueryRequest } from '../../../src/engine/backend.js';

let dir: string;
let backend: Backend;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cannery-sealed-'));
  backend = await createDuckDbBackend({ path: join(dir, 'sealed.duckdb'), memoryLimit: '512MB' });
});
afterAll(async () => {
  await backend.close();
  await rm(dir, { recursive: true, force: true });
});

function request(sql: string, timeoutMs = 10_000): QueryRequest {
  return { sql, parameters: [], values: {}, specs: {}, now: new Date(), maxRows: 10, maxBytes: 32 * 1024 * 1024, timeoutMs, endpointName: 'sealed.test' };
}

describe('the serving DuckDB instance', () => {
  it('reads its own tables', async () => {
    const { rows } = await backend.run(request('SELECT count(*) AS n FROM "cloudflare.logs.prod"'));
    expect(rows).toEqual([{ n: 0 }]);
  });

  it.each([
    ['a table', 'CREATE TABLE stolen AS SELECT 1 AS x'],
    ['a row', `INSERT INTO "cloudflare.logs.prod" (id) VALUES ('x')`],
    ['a file', "COPY (SELECT 1) TO '/tmp/cannery-sealed-escape.csv'"],
  ])('writes no %s', async (_what, sql) => {
    await expect(backend.run(request(sql))).rejects.toMatchObject({ code: 'query_failed' });
  });

  it.each([
    ['a file reader', "SELECT * FROM read_csv('/etc/passwd')"],
    ['glob', "SELECT * FROM glob('/etc/*')"],
    ['another database', "ATTACH '/tmp/cannery-other.duckdb' AS other"],
    ['an extension', 'INSTALL httpfs'],
  ])('reaches no %s', async (_what, sql) => {
    await expect(backend.run(request(sql))).rejects.toMatchObject({ code: 'query_failed' });
  });

  it('cannot unlock its configuration', async () => {
    await expect(backend.run(request('SET enable_external_access = true'))).rejects.toMatchObject({ code: 'query_failed' });
    const { rows } = await backend.run(request("SELECT current_setting('enable_external_access') AS external, current_setting('memory_limit') AS memory"));
    expect(rows[0]).toMatchObject({ external: false });
    expect(rows[0]!.memory).toBe('488.2 MiB'); // 512 MB, as DuckDB reports it
  });

  it('interrupts a query that runs past its timeout, and keeps serving', async () => {
    const slow = 'SELECT count(*) FROM range(100000000000) a';
    await expect(backend.run(request(slow, 100))).rejects.toMatchObject({ code: 'query_timeout' });
    const { rows } = await backend.run(request('SELECT 1 AS one'));
    expect(rows).toEqual([{ one: 1 }]);
  });

  it.each([1, 2, 5])('interrupts a query whose time runs out while DuckDB is still starting it (%i ms)', async (timeoutMs) => {
    // An interrupt in the first milliseconds used to be lost, and the query then ran to its end.
    const slow = 'SELECT count(*) FROM range(100000000000) a';
    await expect(backend.run(request(slow, timeoutMs))).rejects.toMatchObject({ code: 'query_timeout' });
  });
});
