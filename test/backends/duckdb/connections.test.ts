/**
 * The serving connections on a real, sealed DuckDB: a streamed answer read in part leaves DuckDB
 * only a vector or two ahead of it (not the ~60 its default buffer holds), a streamed answer is
 * read whole however many vectors it has, a connection runs
 * the next query cleanly after one stopped by max_rows, the byte budget or a timeout, a stream
 * that fails or times out midway is an error (never the rows read before), a query waits for a
 * connection while all are busy, and closing interrupts the queries running rather than waiting.
 */
import { BIGINT, DuckDBScalarFunction, type DuckDBInstance } from '#duckdb-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDuckDb, runDuckDbQuery, seal, withConnection } from '../../../src/backends/duckdb/backend.js';
import { openConnections, type Connections } from '../../../src/backends/duckdb/connections.js';
import type { QueryRequest } from '../../../src/engine/backend.js';
import { queryRequest } from '../../support/duckdb.js';

/** DuckDB's rows per vector. */
const VECTOR = 2048;

const request = (sql: string, options: Partial<QueryRequest> = {}): QueryRequest => queryRequest(sql, { endpointName: 'connections.test', ...options });

describe('the serving connections', () => {
  let instance: DuckDBInstance;
  let connections: Connections;
  /** Rows DuckDB has computed `counted(i)` for. */
  let computed = 0;
  beforeAll(async () => {
    instance = await openDuckDb({ path: ':memory:', threads: 2 });
    await withConnection(instance, async (connection) => {
      connection.registerScalarFunction(
        DuckDBScalarFunction.create({
          name: 'counted',
          returnType: BIGINT,
          parameterTypes: [BIGINT],
          volatile: true,
          mainFunction: (_info, input, output) => {
            computed += input.rowCount;
            const column = input.getColumnVector(0);
            for (let row = 0; row < input.rowCount; row++) output.setItem(row, column.getItem(row));
            output.flush();
          },
        }),
      );
    });
    connections = await openConnections(instance, 2);
    await withConnection(instance, seal);
  });
  afterAll(async () => {
    await connections?.close();
    instance?.closeSync();
  });

  it('leave DuckDB at most a few vectors ahead of an answer read in part', async () => {
    computed = 0;
    const { rows } = await runDuckDbQuery(connections, request('select counted(i) as i from range(10000000) t(i)', { maxRows: 10 }));
    expect(rows).toEqual(Array.from({ length: 10 }, (_, i) => ({ i })));
    // One vector being read, one buffered, one per thread in flight.
    expect(computed).toBeLessThanOrEqual(4 * VECTOR);
  });

  it('stop computing an answer over the byte budget', async () => {
    computed = 0;
    const failure = runDuckDbQuery(connections, request("select counted(i) as i, repeat('x', 10000) as s from range(10000000) t(i)", { maxBytes: 1024 * 1024 }));
    await expect(failure).rejects.toMatchObject({ code: 'result_too_large' });
    expect(computed).toBeLessThanOrEqual(4 * VECTOR);
  });

  it('read an answer of many vectors whole', async () => {
    const { rows } = await runDuckDbQuery(connections, request('select i from range(100000) t(i) where i % 7 <> 0', { maxRows: 100_000 }));
    expect(rows).toHaveLength(100_000 - Math.ceil(100_000 / 7));
    expect(rows.every((row, index) => row.i === index + Math.floor(index / 6) + 1)).toBe(true);
  });

  it('answer the next query whole after one stopped by max_rows, the byte budget or a timeout', async () => {
    const single = await openConnections(instance, 1).catch((error: Error) => error);
    // The instance is sealed: no connection can be set up any more, so the two made before are reused.
    expect(single).toBeInstanceOf(Error);
    await runDuckDbQuery(connections, request('select i from range(100000) t(i)', { maxRows: 5 }));
    await expect(runDuckDbQuery(connections, request("select repeat('x', 100000) as s from range(1000)", { maxBytes: 1024 * 1024 }))).rejects.toMatchObject({ code: 'result_too_large' });
    await expect(runDuckDbQuery(connections, request('select count(*) as n from range(100000000000) a, range(1000) b', { timeoutMs: 100 }))).rejects.toMatchObject({
      code: 'query_timeout',
    });
    for (let round = 0; round < 4; round++) {
      const { rows } = await runDuckDbQuery(connections, request('select sum(i) as total from range(100001) t(i)'));
      expect(rows).toEqual([{ total: 5000050000 }]);
    }
  });

  it('fail an answer whose stream fails after its first vectors, never answering the rows before', async () => {
    // DuckDB's client ends such a stream as if it were complete (result-rows.ts).
    const failure = runDuckDbQuery(connections, request("select case when i = 50000 then error('boom') else i end as i from range(100000) t(i)", { maxRows: 100_000 }));
    await expect(failure).rejects.toMatchObject({ code: 'query_failed' });
  });

  it('answer a timeout that stops a streamed answer midway as query_timeout, not as the rows read so far', async () => {
    const failure = runDuckDbQuery(connections, request('select counted(i) as i from range(100000000000) t(i)', { maxRows: 1_000_000_000, maxBytes: 1024 ** 3, timeoutMs: 200 }));
    await expect(failure).rejects.toMatchObject({ code: 'query_timeout' });
  });

  it('hold a query until a connection is free', async () => {
    const answers = await Promise.all(Array.from({ length: 6 }, (_, n) => runDuckDbQuery(connections, request(`select ${n} as n, count(*) as c from range(200000)`))));
    expect(answers.map(({ rows }) => rows)).toEqual(Array.from({ length: 6 }, (_, n) => [{ n, c: 200000 }]));
  });
});

describe('closing the serving connections', () => {
  it('interrupts a query running and refuses the next, rather than waiting for it to end', async () => {
    const instance = await openDuckDb({ path: ':memory:', threads: 1 });
    const connections = await openConnections(instance, 1);
    const running = runDuckDbQuery(connections, request('select count(*) as n from range(100000000000) a, range(1000) b', { timeoutMs: 3_600_000 })).catch((error: unknown) => error);
    await new Promise((resolve) => setTimeout(resolve, 200));
    await connections.close();
    expect(await running).toMatchObject({ code: 'query_failed', message: expect.stringContaining('INTERRUPT') });
    await expect(runDuckDbQuery(connections, request('select 1 as n'))).rejects.toThrow('closing');
    instance.closeSync();
  });
});
