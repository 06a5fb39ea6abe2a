/**
 * Issue 38's memory bombs, and the edges of the bounds that stop them, sent to the built `serve`
 * as a caller's sandbox SQL: each answer is a 400 that names the bound or the right 200, `/health`
 * answers throughout, and the process's peak resident memory (VmHWM) stays under DuckDB's memory
 * limit plus the half GiB docs/http.md promises. Before the bounds, the first request took the
 * server to 23 GB and the kernel killed it, and the REPEAT killed it on its way into JavaScript.
 *
 * The requests run two at a time. /health is asked one request after another meanwhile; each
 * must answer within LIVENESS_MS, a bound on being alive, not a measure of speed (bench:hostile
 * measures that).
 */
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadFixtures } from '../support/service.js';
import { FIXTURES } from '../sql/sandbox/fixtures.js';
import { CLI_KEY, serve, SHIPPED_ENDPOINTS, type Serving } from './cli.js';

/** DuckDB's memory limit as `serve` is given it, and the margin docs/http.md states above it. */
const DUCKDB_LIMIT = '1GB';
const LIMIT_BYTES = 1e9;
const MARGIN_BYTES = 2 ** 29;
const LIVENESS_MS = 5_000;

/** A bound's error: 400, and the message's words. */
type Expected = { status: 200; result: unknown[] } | { status: 400; message: RegExp };

const doubling = (n: number) =>
  `with a1 as (select 1 as x), ${Array.from({ length: n - 1 }, (_, index) => `a${index + 2} as (select * from a${index + 1} union all select * from a${index + 1})`).join(', ')} select count(*) as n from a${n}`;

const BIGQUERY_LIMIT = /BigQuery's limit/;
const ROW_LIMIT = /where an argument varies by row, cannery's limit/;

const FLEET: [string, string, Expected][] = [
  // The requests.
  ['generate_array of 1e9', 'select array_length(generate_array(1, 1000000000)) as n', { status: 400, message: /GENERATE_ARRAY produced too many elements \(more than 1,048,576 elements, BigQuery's limit\)/ }],
  [
    'generate_timestamp_array over 10 minutes at 1 us',
    "select array_length(generate_timestamp_array(timestamp '2024-01-01', timestamp '2024-01-01 00:10:00', interval 1 microsecond)) as n",
    { status: 400, message: /GENERATE_TIMESTAMP_ARRAY produced too many elements/ },
  ],
  ['repeat to 3 GB', 'select repeat("abc", 1000000000) as s', { status: 400, message: /Output of REPEAT exceeds max allowed output size \(1,048,576 bytes, BigQuery's limit\)/ }],
  ['lpad to 1e9', "select lpad('x', 1000000000) as s", { status: 400, message: /Output of LPAD exceeds max allowed output size/ }],
  ['rpad to 1e9', "select rpad('x', 1000000000, 'ab') as s", { status: 400, message: /Output of RPAD exceeds max allowed output size/ }],
  ['thirty doubling WITH tables', doubling(30), { status: 400, message: /more than 10,000 tables once each WITH table is written out where it is read \(cannery's expansion limit\)/ }],
  [
    'string_agg over 70M rows',
    "select length(string_agg(cast(a as string), ',')) as n from unnest(generate_array(1, 1000000)) as a, unnest(generate_array(1, 70)) as b",
    { status: 400, message: /CANNERY_DUCKDB_MEMORY_LIMIT/ },
  ],
  ['a regex RE2 refuses, nested 1000^4', "select regexp_contains('a', '((((a{1000}){1000}){1000}){1000})') as m", { status: 400, message: /invalid repetition size/ }],
  ['a regex RE2 refuses, 58 characters', "select regexp_contains('a', '((a{1000}){1000}){500}') as m", { status: 400, message: /invalid repetition size/ }],
  // The bounds' edges: at BigQuery's limit a right answer; one past it, the error.
  ['repeat to exactly 1 MiB', "select length(repeat('abc', 349525)) as n", { status: 200, result: [{ n: 1048575 }] }],
  ['repeat to 1 MiB and a byte', "select length(repeat('a', 1048577)) as n", { status: 400, message: BIGQUERY_LIMIT }],
  ['lpad to exactly 1 MiB', "select length(lpad('x', 1048576, 'ab')) as n", { status: 200, result: [{ n: 1048576 }] }],
  ['generate_array of exactly 1,048,576', 'select array_length(generate_array(1, 1048576)) as n', { status: 200, result: [{ n: 1048576 }] }],
  ['generate_array of 1,048,577', 'select array_length(generate_array(1, 1048577)) as n', { status: 400, message: BIGQUERY_LIMIT }],
  ['generate_array of a billion, stepped down to 1,000', 'select array_length(generate_array(1, 1000000000, 1000000)) as n', { status: 200, result: [{ n: 1000 }] }],
  ['generate_date_array over every day of DATE', "select array_length(generate_date_array('0001-01-01', '9999-12-31')) as n", { status: 400, message: BIGQUERY_LIMIT }],
  ['generate_date_array by month over 2,000 years', "select array_length(generate_date_array('0001-01-01', '2000-12-31', interval 1 month)) as n", { status: 200, result: [{ n: 24000 }] }],
  // Where an argument varies by row, DuckDB builds 2,048 rows' values at once: cannery's smaller bound.
  ['generate_array by row, 16,000', 'select max(array_length(generate_array(1, 16000 + length(id) - 2))) as n from edge_logs', { status: 200, result: [{ n: 16000 }] }],
  ['generate_array by row, a million', 'select max(array_length(generate_array(1, 1000000 + length(id)))) as n from edge_logs', { status: 400, message: ROW_LIMIT }],
  ['repeat by row, 100 kB', 'select max(length(repeat(id, 50000))) as n from edge_logs', { status: 200, result: [{ n: 100000 }] }],
  ['repeat by row, 1 MB', 'select max(length(repeat(id, 500000))) as n from edge_logs', { status: 400, message: ROW_LIMIT }],
  // Under SAFE. (DuckDB's TRY) cannery's own bound would answer NULL where BigQuery answers the value.
  ['safe.repeat by row, 100 kB, refused by name', 'select max(length(safe.repeat(id, 50000))) as n from edge_logs', { status: 400, message: /SAFE\.REPEAT with an argument that varies by row/ }],
  ['safe.repeat past BigQuery\'s 1 MB is NULL, as there', "select length(safe.repeat('abc', 1000000000)) as n", { status: 200, result: [{ n: null }] }],
  // One value larger than the answer may be, refused on its length before it is copied out of DuckDB.
  ['one value of 68 MB', "select string_agg(repeat(cast(a as string), 10), ',') as s from unnest(generate_array(1, 1000000)) as a", { status: 400, message: /CANNERY_MAX_RESULT_BYTES/ }],
];

describe('memory bombs against the built serve, with a measured ceiling', () => {
  let dir: string;
  let running: Serving;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'cannery-hostile-'));
    const db = join(dir, 'fleet.duckdb');
    await loadFixtures(db, FIXTURES);
    running = await serve(['--db', db, '--endpoints', SHIPPED_ENDPOINTS], { CANNERY_DUCKDB_MEMORY_LIMIT: DUCKDB_LIMIT, CANNERY_LOG_LEVEL: 'warn', CANNERY_QUERY_TIMEOUT_MS: '60000' });
  });
  afterAll(async () => {
    await running?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('answers each with its bound or the right rows, /health throughout, under the memory ceiling', async () => {
    const answers = new Map<string, { status: number; body: { result?: unknown[]; error?: { message: string } } }>();
    let done = false;
    const health = (async () => {
      const slow: string[] = [];
      while (!done) {
        const response = await fetch(`${running.url}/health`, { signal: AbortSignal.timeout(LIVENESS_MS) }).catch((error: Error) => error);
        if (response instanceof Error || response.status !== 200) slow.push(response instanceof Error ? response.message : String(response.status));
        else await response.arrayBuffer();
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      return slow;
    })();
    const queue = [...FLEET];
    const send = async () => {
      for (let next = queue.shift(); next; next = queue.shift()) {
        const [name, sql] = next;
        const response = await fetch(`${running.url}/api/endpoints/query/logs.all`, {
          method: 'POST',
          headers: { 'x-api-key': CLI_KEY, 'content-type': 'application/json' },
          body: JSON.stringify({ project: 'alpha', sql }),
        });
        answers.set(name, { status: response.status, body: (await response.json()) as never });
      }
    };
    try {
      await Promise.all([send(), send()]);
    } finally {
      done = true;
    }
    expect(await health).toEqual([]);
    for (const [name, , expected] of FLEET) {
      const answer = answers.get(name)!;
      const said = `${name}: ${JSON.stringify(answer.body).slice(0, 400)}`;
      expect(answer.status, said).toBe(expected.status);
      if (expected.status === 200) expect(answer.body.result, said).toEqual(expected.result);
      else expect(answer.body.error?.message, said).toMatch(expected.message);
      // A bound passed is the caller asking for more than the engine builds, as a host function's bound is.
      if (expected.status === 400 && (expected.message === BIGQUERY_LIMIT || expected.message === ROW_LIMIT)) expect((answer.body.error as { code?: string }).code, said).toBe('resources_exceeded');
    }
    expect(peakResident(running.child.pid!)).toBeLessThan(LIMIT_BYTES + MARGIN_BYTES);
    // Still serving.
    expect((await fetch(`${running.url}/health`)).status).toBe(200);
  });
});

/** The process's peak resident memory in bytes, from /proc. */
function peakResident(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((entry) => entry.startsWith('VmHWM:'));
  return Number(/(\d+)/.exec(line!)![1]) * 1024;
}
