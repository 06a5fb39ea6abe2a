/**
 * The BigQuery backend with the real @google-cloud/bigquery client, pointed at a local server
 * that speaks BigQuery's REST API: what each query sends, how results are paged and capped,
 * how a time limit is kept, and how every kind of failure reaches the caller.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { createBigQueryBackend, type BigQueryBackendOptions } from '../../../src/backends/bigquery/backend.js';
import { openDuckDb } from '../../../src/backends/duckdb/backend.js';
import { toWireValue } from '../../../src/backends/duckdb/values.js';
import { duckDbDialect } from '../../../src/sql/dialects/duckdb/dialect.js';
import type { QueryRequest } from '../../../src/engine/backend.js';
import { sourceNames } from '../../../src/config/sources.js';
import type { BoundParams, ParamSpec } from '../../../src/core/types.js';
import { sourceTables } from '../../../src/sql/dialects/bigquery/tables.js';
import { generate } from '../../../src/sql/generator/generate.js';
import { parseQuery } from '../../../src/sql/parse/to-tree.js';
import { restRows, startFakeBigQuery, type Answer, type FakeBigQuery, type SchemaField } from '../../support/bigquery-server.js';

let fake: FakeBigQuery;
beforeAll(async () => {
  fake = await startFakeBigQuery();
});
afterAll(() => fake.close());
beforeEach(() => {
  fake.requests.length = 0;
});

function backend(options: Partial<BigQueryBackendOptions> = {}) {
  return createBigQueryBackend({
    project: 'test-proj',
    tables: sourceTables(sourceNames(), { project: 'test-proj', dataset: 'logs' }),
    location: 'EU',
    apiEndpoint: fake.url,
    maxBytesBilled: '10000000000',
    ...options,
  });
}

interface Query {
  sql?: string;
  specs?: Record<string, ParamSpec>;
  values?: BoundParams;
  maxRows?: number;
  timeoutMs?: number;
  maxBytes?: number;
}

/** A QueryRequest for `sql` compiled by the backend's own dialect, as the engine makes it. */
function request(target: ReturnType<typeof backend>, query: Query = {}): QueryRequest {
  const sql = query.sql ?? 'select id, timestamp from `cloudflare.logs.prod` as t';
  const compiled = generate(parseQuery(sql), target.dialect, { rowCap: query.maxRows ?? 100 });
  return {
    sql: compiled.sql,
    parameters: compiled.parameters,
    values: query.values ?? {},
    specs: query.specs ?? {},
    now: new Date('2024-05-01T12:00:00Z'),
    maxRows: query.maxRows ?? 100,
    maxBytes: query.maxBytes ?? 32 * 1024 * 1024,
    timeoutMs: query.timeoutMs ?? 5_000,
    endpointName: 'usage.api-counts',
  };
}

/** The error a promise rejects with. */
async function failure(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected the query to fail');
}

const ID_TS: SchemaField[] = [
  { name: 'id', type: 'STRING' },
  { name: 'timestamp', type: 'TIMESTAMP' },
];

function idRows(count: number): Extract<Answer, { result: unknown }> {
  const rows = Array.from({ length: count }, (_, i) => ({ id: `r${i}`, timestamp: 1714557600000000 + i }));
  return { result: { schema: { fields: ID_TS }, rows: restRows(ID_TS, rows) } };
}

describe('what a query sends', () => {
  it('jobs.query with the mapped SQL, typed named parameters, labels, limits and no credentials', async () => {
    fake.answer(() => idRows(1));
    const target = backend();
    const query = request(target, {
      sql: 'select id, timestamp from `cloudflare.logs.prod` as t where t.project = @project and @n > 0 and @ratio < 1.5 and @flag and @since is null',
      specs: {
        project: { type: 'string', required: true },
        n: { type: 'integer', required: true },
        ratio: { type: 'number', required: false },
        flag: { type: 'boolean', required: true },
        since: { type: 'string', required: false, format: 'date-time' },
      },
      values: { project: "x'); drop table y; --{{projectId}}", n: 42, ratio: 0.25, flag: true, since: null },
      maxRows: 1000,
      timeoutMs: 25_000,
    });
    await target.run(query);

    expect(fake.queries()).toEqual([
      {
        query:
          'SELECT `id`, `timestamp` FROM `test-proj.logs.cloudflare_logs_prod` AS `t` ' +
          'WHERE (((((`t`.`project` = @project) AND (@n > 0)) AND (@ratio < 1.5)) AND @flag) AND (@since IS NULL)) LIMIT 1000',
        useLegacySql: false,
        parameterMode: 'NAMED',
        queryParameters: [
          // The value arrives as sent: never in the SQL, and the client's {{projectId}} rewriting never touches it.
          { name: 'project', parameterType: { type: 'STRING' }, parameterValue: { value: "x'); drop table y; --{{projectId}}" } },
          { name: 'n', parameterType: { type: 'INT64' }, parameterValue: { value: '42' } },
          { name: 'ratio', parameterType: { type: 'FLOAT64' }, parameterValue: { value: '0.25' } },
          { name: 'flag', parameterType: { type: 'BOOL' }, parameterValue: { value: 'true' } },
          { name: 'since', parameterType: { type: 'STRING' }, parameterValue: { value: null } },
        ],
        labels: { cannery_endpoint: 'usage_api-counts' },
        location: 'EU',
        maximumBytesBilled: '10000000000',
        jobTimeoutMs: '25000',
        requestId: expect.stringMatching(/^[0-9a-f-]{36}$/),
        timeoutMs: expect.any(Number),
        maxResults: 1000,
        formatOptions: { useInt64Timestamp: true },
      },
    ]);
    const [sent] = fake.queries();
    expect(sent.timeoutMs).toBeGreaterThan(24_000);
    expect(sent.timeoutMs).toBeLessThanOrEqual(25_000);
    expect(sent.query).not.toContain('drop table');
    const [call] = fake.requests;
    expect(call).toMatchObject({ method: 'POST', path: '/bigquery/v2/projects/test-proj/queries' });
    expect(call!.headers.authorization).toBeUndefined();
  });

  it('fits long endpoint names into a label value (lowercase [a-z0-9_-], at most 63 characters)', async () => {
    fake.answer(() => idRows(0));
    const target = backend();
    await target.run({ ...request(target), endpointName: `very.long-name_${'x'.repeat(80)}` });
    const label = fake.queries()[0].labels.cannery_endpoint as string;
    expect(label).toMatch(/^[a-z0-9_-]{1,63}$/);
    expect(label.startsWith('very_long-name_xxx')).toBe(true);
  });

  it('sends no maximumBytesBilled or location when none is set', async () => {
    fake.answer(() => idRows(0));
    const target = backend({ maxBytesBilled: undefined, location: undefined });
    await target.run(request(target));
    expect(fake.queries()[0]).not.toHaveProperty('maximumBytesBilled');
    expect(fake.queries()[0]).not.toHaveProperty('location');
  });
});

describe('results: pages, the row cap, running jobs', () => {
  it('reads every page with getQueryResults and pageToken, in order', async () => {
    fake.answer(() => ({ ...idRows(7), pageSize: 3 }));
    const target = backend();
    const { rows } = await target.run(request(target));
    expect(rows.map((row) => row.id)).toEqual(['r0', 'r1', 'r2', 'r3', 'r4', 'r5', 'r6']);
    expect(rows[6]).toEqual({ id: 'r6', timestamp: 1714557600000006 });
    expect(fake.polls()).toEqual([
      expect.objectContaining({ pageToken: 'page-3', maxResults: '97', location: 'EU', 'formatOptions.useInt64Timestamp': 'true' }),
      expect.objectContaining({ pageToken: 'page-6', maxResults: '94' }),
    ]);
  });

  it('fetches no more than max_rows rows: maxResults shrinks and paging stops at the cap', async () => {
    fake.answer(() => ({ ...idRows(50), pageSize: 3 }));
    const target = backend();
    const { rows } = await target.run(request(target, { maxRows: 5 }));
    expect(rows.map((row) => row.id)).toEqual(['r0', 'r1', 'r2', 'r3', 'r4']);
    expect(fake.queries()[0].maxResults).toBe(5);
    expect(fake.polls().map((poll) => poll.maxResults)).toEqual(['2']);
  });

  it('polls a running job until it completes, then pages', async () => {
    fake.answer(() => ({ ...idRows(4), pageSize: 2, pendingPolls: 2 }));
    const target = backend();
    const { rows } = await target.run(request(target));
    expect(rows).toHaveLength(4);
    const polls = fake.polls();
    expect(polls.map((poll) => poll.pageToken)).toEqual([undefined, undefined, 'page-2']);
    for (const poll of polls) expect(Number(poll.timeoutMs)).toBeGreaterThan(0);
  });

  it('answers an empty result with no rows', async () => {
    fake.answer(() => idRows(0));
    const target = backend();
    expect((await target.run(request(target))).rows).toEqual([]);
    expect(fake.polls()).toEqual([]);
  });
});

describe('non-finite FLOAT64 values', () => {
  // A scalar, an array element and a struct field, each as BigQuery's REST API writes it.
  const SQL = "select ieee_divide(0, 0) as nan, [ieee_divide(1, 0), 2.5] as infs, struct(ieee_divide(-1, 0) as low) as rec";
  const FIELDS: SchemaField[] = [
    { name: 'nan', type: 'FLOAT' },
    { name: 'infs', type: 'FLOAT', mode: 'REPEATED' },
    { name: 'rec', type: 'RECORD', fields: [{ name: 'low', type: 'FLOAT' }] },
  ];

  it('are the strings BigQuery wrote, the same wire as DuckDB answers for the same query', async () => {
    fake.answer(() => ({ result: { schema: { fields: FIELDS }, rows: restRows(FIELDS, [{ nan: NaN, infs: [Infinity, 2.5], rec: { low: -Infinity } }]) } }));
    const target = backend();
    const { rows } = await target.run(request(target, { sql: SQL }));
    expect(rows).toEqual([{ nan: 'NaN', infs: ['Infinity', 2.5], rec: { low: '-Infinity' } }]);

    const instance = await openDuckDb({ path: ':memory:' });
    const connection = await instance.connect();
    try {
      const reader = await connection.runAndReadAll(generate(parseQuery(SQL), duckDbDialect(sourceNames()), { rowCap: 100 }).sql);
      expect(reader.convertRowObjects(toWireValue)).toEqual(rows);
    } finally {
      connection.closeSync();
      instance.closeSync();
    }
  });
});

describe("the answer's byte budget", () => {
  const TEXT: SchemaField[] = [{ name: 'id', type: 'STRING' }, { name: 'text', type: 'STRING' }];
  const bigRows = (count: number) => restRows(TEXT, Array.from({ length: count }, (_, i) => ({ id: `r${i}`, text: 'x'.repeat(10_000) })));

  it('stops reading pages once the rows are over the budget, with result_too_large naming the limit', async () => {
    fake.answer(() => ({ result: { schema: { fields: TEXT }, rows: bigRows(100) }, pageSize: 10 }));
    const target = backend();
    const error = await failure(target.run(request(target, { maxBytes: 25_000 })));
    expect(error).toMatchObject({ code: 'result_too_large', message: expect.stringContaining('25000-byte limit') });
    // The first page (10 rows of 10 kB) is over the budget at its third row: no page after it is asked for.
    expect(fake.polls()).toEqual([]);
  });

  it('counts every page against one budget', async () => {
    fake.answer(() => ({ result: { schema: { fields: TEXT }, rows: bigRows(10) }, pageSize: 2 }));
    const target = backend();
    const error = await failure(target.run(request(target, { maxBytes: 55_000 })));
    expect(error).toMatchObject({ code: 'result_too_large' });
    expect(fake.polls().map((poll) => poll.pageToken)).toEqual(['page-2', 'page-4']);
  });

  it('answers rows within the budget', async () => {
    fake.answer(() => ({ result: { schema: { fields: TEXT }, rows: bigRows(10) }, pageSize: 2 }));
    const target = backend();
    const { rows } = await target.run(request(target, { maxBytes: 110_000 }));
    expect(rows).toHaveLength(10);
  });
});

describe('the time limit', () => {
  it('is query_timeout at CANNERY_QUERY_TIMEOUT_MS, with the job cancelled and stopped by BigQuery too', async () => {
    fake.answer(() => ({ running: true, holdMs: 100 }));
    const target = backend();
    await expect(target.run(request(target, { timeoutMs: 400 }))).rejects.toMatchObject({
      code: 'query_timeout',
      message: 'usage.api-counts: the query did not finish within 400 ms',
    });
    const [sent] = fake.queries();
    expect(sent.jobTimeoutMs).toBe('400');
    expect(sent.timeoutMs).toBeLessThanOrEqual(400);
    // Cancelled with the id jobs.query returned, the one polled; the caller does not wait for the cancel.
    const jobId = fake.requests.find((call) => call.method === 'GET')!.path.split('/').at(-1);
    await vi.waitFor(() => expect(fake.cancelled()).toEqual([jobId]));
    const cancel = fake.requests.find((call) => call.path.endsWith('/cancel'))!;
    expect(cancel.query.location).toBe('EU');
  });

  it('a job BigQuery stopped at its own limit is query_timeout', async () => {
    fake.answer(() => ({ error: { status: 400, reason: 'timeout', message: 'Job timed out after 25 sec' } }));
    const target = backend();
    await expect(target.run(request(target))).rejects.toMatchObject({ code: 'query_timeout', message: expect.stringContaining('Job timed out after 25 sec') });
  });
});

describe('failures', () => {
  const regexQuery = {
    sql: 'select id from `cloudflare.logs.prod` as t where regexp_contains(t.event_message, @pattern) and t.project = @project',
    specs: { pattern: { type: 'string', required: true, format: 'regex' }, project: { type: 'string', required: true } } as Record<string, ParamSpec>,
  };

  it('an invalid regular expression in a value is invalid_parameter naming it', async () => {
    fake.answer(() => ({ error: { status: 400, reason: 'invalidQuery', message: 'Cannot parse regular expression: missing ): (abc' } }));
    const target = backend();
    await expect(target.run(request(target, { ...regexQuery, values: { pattern: 'x(abc', project: 'p' } }))).rejects.toMatchObject({
      code: 'invalid_parameter',
      param: 'pattern',
      message: 'parameter "pattern" was rejected by BigQuery: Cannot parse regular expression: missing ): (abc',
    });
  });

  it('a pattern error RE2 gives no fragment for is blamed on the one regex parameter', async () => {
    fake.answer(() => ({ error: { status: 400, reason: 'invalidQuery', message: 'Cannot parse regular expression: trailing \\' } }));
    const target = backend();
    await expect(target.run(request(target, { ...regexQuery, values: { pattern: 'a\\', project: 'p' } }))).rejects.toMatchObject({
      code: 'invalid_parameter',
      param: 'pattern',
    });
  });

  it('an invalid timestamp in a value is invalid_parameter naming it, also when the job fails while polled', async () => {
    fake.answer(() => ({ error: { status: 400, reason: 'invalidQuery', message: "Invalid timestamp: 'yesterday'" }, pendingPolls: 1 }));
    const target = backend();
    const query = request(target, {
      sql: 'select id from `cloudflare.logs.prod` as t where t.timestamp > cast(@since as timestamp) and t.project = @project',
      specs: { since: { type: 'string', required: true }, project: { type: 'string', required: true } },
      values: { since: 'yesterday', project: 'p' },
    });
    await expect(target.run(query)).rejects.toMatchObject({ code: 'invalid_parameter', param: 'since', message: expect.stringContaining("Invalid timestamp: 'yesterday'") });
    expect(fake.polls()).toHaveLength(1);
  });

  it('a bad value that is no parameter\'s (bad data) is query_failed', async () => {
    fake.answer(() => ({ error: { status: 400, reason: 'invalidQuery', message: 'Bad int64 value: n/a' } }));
    const target = backend();
    await expect(target.run(request(target, { ...regexQuery, values: { pattern: 'a', project: 'p' } }))).rejects.toMatchObject({
      code: 'query_failed',
      message: 'usage.api-counts: BigQuery could not run the query (invalidQuery): Bad int64 value: n/a',
    });
  });

  it('a query BigQuery refuses as written (400) is marked rejected, so a sandbox query\'s is the caller\'s 400; others are not', async () => {
    const target = backend();
    fake.answer(() => ({ error: { status: 400, reason: 'invalidQuery', message: 'Unrecognized name: nope at [1:8]' } }));
    expect(await failure(target.run(request(target)))).toMatchObject({ code: 'query_failed', queryRejected: true });
    fake.answer(() => ({ error: { status: 400, reason: 'resourcesExceeded', message: 'Resources exceeded during query execution' } }));
    expect(await failure(target.run(request(target)))).toMatchObject({ code: 'query_failed', queryRejected: true });
    fake.answer(() => ({ error: { status: 403, reason: 'accessDenied', message: 'Access Denied' } }));
    expect(await failure(target.run(request(target)))).toMatchObject({ code: 'query_failed', queryRejected: false });
    fake.answer(() => ({ error: { status: 404, reason: 'notFound', message: 'Not found: Dataset' } }));
    expect(await failure(target.run(request(target)))).toMatchObject({ code: 'query_failed', queryRejected: false });
  });

  it('names sources, not their tables, and drops positions in the compiled SQL', async () => {
    fake.answer(() => ({
      error: { status: 404, reason: 'notFound', message: 'Not found: Table test-proj:logs.cloudflare_logs_prod was not found in location EU at [1:42]' },
    }));
    const target = backend();
    const failure = target.run(request(target));
    await expect(failure).rejects.toMatchObject({
      code: 'query_failed',
      message: 'usage.api-counts: BigQuery could not run the query (notFound): Not found: Table cloudflare.logs.prod was not found in location EU',
    });
  });

  it('carries no job ids, project numbers or principals', async () => {
    fake.answer(() => ({
      error: {
        status: 403,
        reason: 'accessDenied',
        message:
          'Access Denied: Project 123456789012: User does not have bigquery.jobs.create permission in project test-proj. ' +
          'Principal svc-cannery@test-proj.iam.gserviceaccount.com, job test-proj:EU.job_Xy12Ab-34 (3f0c2a8e-5b1d-4c7e-9a64-1d2e3f405162)',
      },
    }));
    const target = backend();
    const error = await failure(target.run(request(target)));
    expect(error).toMatchObject({ code: 'query_failed' });
    expect(error.message).toContain('(accessDenied): Access Denied: Project (number): User does not have bigquery.jobs.create permission');
    for (const secret of ['123456789012', 'svc-cannery', 'job_Xy12Ab', '3f0c2a8e']) expect(error.message).not.toContain(secret);
    expect(error.cause).toBeUndefined();
  });

  it('retries a transient failure with the same requestId, so BigQuery runs the query once', async () => {
    let calls = 0;
    fake.answer(() => (++calls === 1 ? { error: { status: 503, reason: 'backendError', message: 'Backend error' } } : idRows(2)));
    const target = backend();
    const { rows } = await target.run(request(target));
    expect(rows).toHaveLength(2);
    const [first, second] = fake.queries();
    expect(second.requestId).toBe(first.requestId);
  });

  it('an unreachable BigQuery is query_failed without the API URL', async () => {
    const target = backend({ apiEndpoint: 'http://127.0.0.1:9', maxRetries: 0 });
    const error = await failure(target.run(request(target)));
    expect(error).toMatchObject({ code: 'query_failed', message: expect.stringMatching(/^usage\.api-counts: the request to BigQuery failed: .*ECONNREFUSED/) });
    expect(error.message).not.toContain('/bigquery/v2/projects/test-proj');
  });
});

describe('dry run', () => {
  it('asks BigQuery for the bytes the query would scan, with typed parameters', async () => {
    fake.answer((body) => (body.dryRun ? { dryRunBytes: 1_288_490_188 } : idRows(0)));
    const target = backend();
    const query = request(target, { ...{ sql: 'select id from `cloudflare.logs.prod` as t where t.project = @project' }, specs: { project: { type: 'string', required: true } }, values: { project: null } });
    await expect(target.dryRun(query)).resolves.toEqual({ totalBytesProcessed: 1_288_490_188 });
    const [sent] = fake.queries();
    expect(sent).toMatchObject({ dryRun: true, useLegacySql: false, parameterMode: 'NAMED', queryParameters: [{ name: 'project', parameterType: { type: 'STRING' }, parameterValue: { value: null } }] });
    expect(fake.polls()).toEqual([]);
  });

  it('reports the query BigQuery refuses as query_failed, in source names', async () => {
    fake.answer(() => ({ error: { status: 400, reason: 'invalidQuery', message: 'Unrecognized name: nope at [1:8]; table test-proj:logs.cloudflare_logs_prod' } }));
    const target = backend();
    await expect(target.dryRun(request(target))).rejects.toMatchObject({
      code: 'query_failed',
      message: 'usage.api-counts: BigQuery could not run the query (invalidQuery): Unrecognized name: nope; table cloudflare.logs.prod',
    });
  });
});
