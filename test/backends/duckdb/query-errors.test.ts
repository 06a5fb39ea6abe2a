/**
 * What a caller is told when DuckDB fails: the cause, never a path on the server. DuckDB names
 * the files it reads in its IO errors; an unsealed instance reading a file that is not there
 * stands in for a database file damaged while serving.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DuckDBInstance } from '#duckdb-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDuckDb, runDuckDbQuery } from '../../../src/backends/duckdb/backend.js';
import { openConnections, type Connections } from '../../../src/backends/duckdb/connections.js';
import type { CanneryError } from '../../../src/core/errors.js';
import { duckDbDialect } from '../../../src/sql/dialects/duckdb/dialect.js';
import { generate } from '../../../src/sql/generator/generate.js';
import { parseQuery } from '../../../src/sql/parse/to-tree.js';
import { queryRequest } from '../../support/duckdb.js';

/** One connection to a DuckDB in memory as the backend opens it, for a describe block's tests. */
function inMemoryConnections(): () => Connections {
  let instance: DuckDBInstance | undefined;
  let connections: Connections | undefined;
  beforeAll(async () => {
    instance = await openDuckDb({ path: ':memory:' });
    connections = await openConnections(instance, 1);
  });
  afterAll(async () => {
    await connections?.close();
    instance?.closeSync();
  });
  return () => connections!;
}

describe('a DuckDB error that names a file on the server', () => {
  let instance: DuckDBInstance;
  let connections: Connections;
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'cannery-query-errors-'));
    instance = await openDuckDb({ path: ':memory:' });
    connections = await openConnections(instance, 1);
  });
  afterAll(async () => {
    await connections?.close();
    instance?.closeSync();
    await rm(dir, { recursive: true, force: true });
  });

  it('reaches the caller as query_failed with the file name only', async () => {
    const missing = join(dir, 'nowhere', 'events.csv');
    const failure = await runDuckDbQuery(connections, {
      sql: `select * from read_csv('${missing}')`,
      parameters: [],
      values: {},
      specs: {},
      now: new Date(),
      maxRows: 10,
      maxBytes: 1024 * 1024,
      timeoutMs: 10_000,
      endpointName: 'paths.test',
    }).catch((error: CanneryError) => error);
    expect(failure).toMatchObject({ code: 'query_failed', message: expect.stringContaining('"events.csv"') });
    expect((failure as CanneryError).message).not.toContain(dir);
  });
});

describe('a NUMERIC answer past NUMERIC\'s range', () => {
  const connections = inMemoryConnections();

  it("is BigQuery's numeric overflow, a rejected query (400), never the 39-digit sum DuckDB computes", async () => {
    const failure = await runDuckDbQuery(connections(), queryRequest("select sum(x) as s from (select CAST('99999999999999999999999999999' AS DECIMAL(38, 9)) as x union all select CAST('1' AS DECIMAL(38, 9)))", { maxRows: 10, maxBytes: 1024 * 1024, timeoutMs: 10_000, endpointName: 'numeric.test' })).catch((error: CanneryError) => error);
    expect(failure).toMatchObject({ code: 'query_failed', message: expect.stringContaining('numeric overflow: 100000000000000000000000000000.000000000'), queryRejected: true });
  });
});

describe('a BIGNUMERIC error a host function raises', () => {
  const connections = inMemoryConnections();

  it("is BigQuery's division by zero in BigQuery's words, a rejected query (400)", async () => {
    const { sql } = generate(parseQuery("select bignumeric '1.5' / 0 as q"), duckDbDialect([]));
    const failure = await runDuckDbQuery(connections(), queryRequest(sql, { maxRows: 10, maxBytes: 1024 * 1024, timeoutMs: 10_000, endpointName: 'bignumeric.test' })).catch((error: CanneryError) => error);
    expect(failure).toMatchObject({ code: 'query_failed', message: expect.stringContaining('division by zero: 1.5 / 0'), queryRejected: true });
    expect((failure as CanneryError).message).not.toContain('cannery_');
  });
});
