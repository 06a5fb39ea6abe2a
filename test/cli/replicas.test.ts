/**
 * Three replicas as deployed: three processes of the built CLI's `serve`, on the BigQuery backend
 * (pointed at the local server that speaks BigQuery's REST API, which counts the jobs it gets),
 * sharing one Redis (or Valkey) server through CANNERY_CACHE_URL and one endpoints folder.
 *
 * A burst spread over the three costs one BigQuery job, warming one job per key per period in
 * all, a changed endpoint file is answered anew by every replica, formats and redaction never
 * cross, and with the store killed every replica keeps answering, says so, and recovers.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { NO_REDIS, redisBinary, startRedisServer, type RedisServer } from '../../bench/redis-server.js';
import { startFakeBigQuery, type FakeBigQuery } from '../support/bigquery-server.js';
import { endpointText } from '../support/endpoint-text.js';
import { parsePrometheusText } from '../support/prometheus-text.js';

const binary = redisBinary();
if (!binary) console.warn(`skipping the three-replica tests: ${NO_REDIS}`);

const CLI = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));
const KEY = 'replicas-test-key';
const ID = '5d0c7a52-8a0e-4c36-9f5a-1f0de3b6c001';
const WARM_ID = '5d0c7a52-8a0e-4c36-9f5a-1f0de3b6c002';

/** An endpoint file with a fixed id, cached as `cache` says, answering its parameter `v`. */
const endpointFile = (id: string, name: string, cache: string, query: string) =>
  endpointText(name, ['v: { type: string, required: true }'], [query]).replace(/^id: .*$/m, `id: ${id}`).replace('cache: false', `cache: ${cache}`);

interface Replica {
  url: string;
  child: ChildProcess;
}

let redis: RedisServer;
let bigquery: FakeBigQuery;
let dir: string;
let endpoints: string;
const replicas: Replica[] = [];

async function startReplica(): Promise<Replica> {
  const child = spawn(process.execPath, [CLI, 'serve', '--port', '0', '--endpoints', endpoints], {
    env: {
      PATH: process.env.PATH ?? '',
      CANNERY_API_KEYS: KEY,
      CANNERY_METRICS_PUBLIC: 'true',
      CANNERY_LOG_LEVEL: 'warn',
      CANNERY_BACKEND: 'bigquery',
      CANNERY_BQ_PROJECT: 'test-proj',
      CANNERY_BQ_DATASET: 'logs',
      CANNERY_BQ_API_ENDPOINT: bigquery.url,
      CANNERY_CACHE_URL: redis.url,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  const url = await vi.waitFor(
    () => {
      const match = / on (http:\/\/\S+) /.exec(output);
      if (!match) throw new Error(`not listening yet: ${output}`);
      return match[1]!;
    },
    { timeout: 30_000, interval: 50 },
  );
  return { url, child };
}

const get = (replica: Replica, path: string, headers: Record<string, string> = {}) => fetch(replica.url + path, { headers: { 'x-api-key': KEY, ...headers } });
const queryPath = (name: string, v: string) => `/api/endpoints/query/${name}?v=${encodeURIComponent(v)}`;
/** BigQuery jobs received whose parameter v was `v`. */
const jobsFor = (v: string) => bigquery.queries().filter((body) => body.queryParameters?.some((parameter: any) => parameter.parameterValue.value === v)).length;
const health = async (replica: Replica) => (await (await fetch(`${replica.url}/health`)).json()) as { status: string; cache: { up: boolean; tier: string } };
const metrics = async (replica: Replica) => parsePrometheusText(await (await fetch(`${replica.url}/metrics`)).text());

describe.skipIf(!binary)('three replicas sharing one cache', () => {
  beforeAll(async () => {
    redis = await startRedisServer(binary);
    bigquery = await startFakeBigQuery();
    // Each job echoes its v after a while: long enough for a burst to meet it running.
    bigquery.answer((body) => {
      const v = body.queryParameters?.find((parameter: any) => parameter.name === 'v')?.parameterValue.value ?? null;
      const version = String(body.query).includes('second') ? '2' : '1';
      return {
        delayMs: 300,
        result: {
          schema: { fields: [{ name: 'v', type: 'STRING' }, { name: 'version', type: 'STRING' }] },
          rows: [{ f: [{ v }, { v: version }] }],
        },
      };
    });
    dir = await mkdtemp(join(tmpdir(), 'cannery-replicas-'));
    endpoints = join(dir, 'endpoints');
    await mkdir(endpoints);
    await writeFile(join(endpoints, 'echo.yaml'), endpointFile(ID, 'e2e.echo', '{ ttl_seconds: 60 }', "select @v as v, 'first' as version"));
    await writeFile(join(endpoints, 'warm.yaml'), endpointFile(WARM_ID, 'e2e.warm', '{ ttl_seconds: 60, warm_every_seconds: 1 }', 'select @v as v'));
    replicas.push(...(await Promise.all([startReplica(), startReplica(), startReplica()])));
    // As a readiness probe would: on a loaded machine the first connection can miss its start-up
    // bound, and the replica then says `degraded` until its probe (every second) reaches the store.
    for (const replica of replicas) {
      await vi.waitFor(async () => expect(await health(replica)).toMatchObject({ status: 'ok', cache: { tier: 'shared', up: true } }), { timeout: 20_000, interval: 200 });
    }
  }, 90_000);

  afterAll(async () => {
    for (const { child } of replicas) if (child.exitCode === null) child.kill('SIGKILL');
    await bigquery?.close();
    await redis?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('a burst of one uncached request spread over the three costs one BigQuery job, and all answer its ETag and Age', async () => {
    const responses = await Promise.all(Array.from({ length: 30 }, (_, index) => get(replicas[index % 3]!, queryPath('e2e.echo', 'burst'))));
    const bodies = await Promise.all(responses.map((response) => response.text()));
    expect(responses.map((response) => response.status)).toEqual(responses.map(() => 200));
    expect(new Set(bodies)).toEqual(new Set(['{"result":[{"v":"burst","version":"1"}]}']));
    expect(jobsFor('burst')).toBe(1);
    expect(new Set(responses.map((response) => response.headers.get('etag'))).size).toBe(1);

    const later = await Promise.all(replicas.map((replica) => get(replica, queryPath('e2e.echo', 'burst'))));
    expect(later.map((response) => response.headers.get('x-cache'))).toEqual(['HIT', 'HIT', 'HIT']);
    expect(new Set(later.map((response) => response.headers.get('etag')))).toEqual(new Set([responses[0]!.headers.get('etag')]));
    const ages = later.map((response) => Number(response.headers.get('age')));
    expect(Math.max(...ages) - Math.min(...ages)).toBeLessThanOrEqual(1);

    // Per tier: one replica missed, the others waited for it or found it stored.
    const counts = await Promise.all(replicas.map(metrics));
    const total = (result: string) => counts.reduce((sum, samples) => sum + (samples.value('cannery_cache_lookups_total', { endpoint: 'e2e.echo', result })), 0);
    expect(total('miss')).toBeGreaterThanOrEqual(1);
    expect(total('miss') + total('peer_wait') + total('shared_hit') + total('local_hit')).toBe(33);
    expect(counts.reduce((sum, samples) => sum + (samples.value('cannery_backend_query_duration_seconds_count', { endpoint: 'e2e.echo' })), 0)).toBe(1);
  });

  it('formats and redaction never cross: one job per redaction, every format from its entry', async () => {
    const json = await get(replicas[0]!, queryPath('e2e.echo', 'ann@example.com'));
    const csv = await get(replicas[1]!, queryPath('e2e.echo', 'ann@example.com'), { accept: 'text/csv' });
    const ndjson = await get(replicas[2]!, queryPath('e2e.echo', 'ann@example.com'), { accept: 'application/x-ndjson' });
    expect(await json.text()).toBe('{"result":[{"v":"ann@example.com","version":"1"}]}');
    expect(csv.headers.get('content-type')).toMatch(/^text\/csv/);
    expect(await csv.text()).toBe('v,version\r\nann@example.com,1\r\n');
    expect(ndjson.headers.get('content-type')).toBe('application/x-ndjson');
    expect(await ndjson.text()).toBe('{"v":"ann@example.com","version":"1"}\n');
    const etag = json.headers.get('etag')!;
    expect([csv.headers.get('etag'), ndjson.headers.get('etag')]).toEqual([`${etag.slice(0, -1)}-csv"`, `${etag.slice(0, -1)}-ndjson"`]);
    expect(jobsFor('ann@example.com')).toBe(1);

    const redacted = await get(replicas[1]!, queryPath('e2e.echo', 'ann@example.com'), { 'svc-endpoint-redact-pii': 'true' });
    expect(redacted.headers.get('x-cache')).toBe('MISS');
    const redactedBody = await redacted.text();
    expect(redactedBody).not.toContain('ann@example.com');
    expect(jobsFor('ann@example.com')).toBe(2);
    for (const replica of replicas) {
      expect(await (await get(replica, queryPath('e2e.echo', 'ann@example.com'), { 'svc-endpoint-redact-pii': 'true' })).text()).toBe(redactedBody);
      expect(await (await get(replica, queryPath('e2e.echo', 'ann@example.com'))).text()).toContain('ann@example.com');
    }
    expect(jobsFor('ann@example.com')).toBe(2);
  });

  it('warming over several periods costs one job per key per period across the three', async () => {
    for (const key of ['w1', 'w2']) for (const replica of replicas) expect((await get(replica, queryPath('e2e.warm', key))).status).toBe(200);
    const started = Date.now();
    expect([jobsFor('w1'), jobsFor('w2')]).toEqual([1, 1]);
    await new Promise((resolve) => setTimeout(resolve, 4_500));
    const periods = (Date.now() - started) / 1_000;
    // Each refresh is counted from the end of the one before (300 ms of job): about three in 4.5 s.
    for (const key of ['w1', 'w2']) {
      const refreshes = jobsFor(key) - 1;
      expect(refreshes).toBeGreaterThanOrEqual(2);
      expect(refreshes).toBeLessThanOrEqual(Math.ceil(periods));
    }
    // The replicas' own count of refreshes agrees (a job is counted by BigQuery when it starts,
    // by the replica when it ends: at most one per key in between).
    const counts = await Promise.all(replicas.map(metrics));
    const refreshes = jobsFor('w1') - 1 + jobsFor('w2') - 1;
    const runs = counts.reduce((sum, samples) => sum + (samples.value('cannery_cache_warming_runs_total', { endpoint: 'e2e.warm' })), 0);
    expect(runs).toBeLessThanOrEqual(refreshes);
    expect(runs).toBeGreaterThanOrEqual(refreshes - 2);
  }, 20_000);

  it('a changed endpoint file is answered anew by every replica, for one job', async () => {
    expect(await (await get(replicas[0]!, queryPath('e2e.echo', 'changed'))).text()).toContain('"version":"1"');
    await writeFile(join(endpoints, 'echo.yaml'), endpointFile(ID, 'e2e.echo', '{ ttl_seconds: 60 }', "select @v as v, 'second' as version"));
    for (const replica of replicas) {
      await vi.waitFor(async () => expect(await (await get(replica, queryPath('e2e.echo', 'changed'))).text()).toBe('{"result":[{"v":"changed","version":"2"}]}'), {
        timeout: 10_000,
        interval: 100,
      });
    }
    const second = bigquery.queries().filter((body) => String(body.query).includes('second') && body.queryParameters?.[0]?.parameterValue.value === 'changed');
    expect(second).toHaveLength(1);
  });

  it('with the store killed every replica keeps answering and says so; it recovers by itself', async () => {
    await redis.kill();
    for (const [index, replica] of replicas.entries()) {
      const held = await get(replica, queryPath('e2e.echo', 'burst'));
      expect(held.status).toBe(200);
      await held.arrayBuffer();
      const fresh = await get(replica, queryPath('e2e.echo', `during-${index}`));
      expect(fresh.status).toBe(200);
      expect(await fresh.text()).toContain(`during-${index}`);
      expect(await health(replica)).toMatchObject({ status: 'degraded', cache: { tier: 'shared', up: false } });
      const samples = await metrics(replica);
      expect(samples.value('cannery_cache_store_up', {})).toBe(0);
      expect(samples.all.filter((sample) => sample.name === 'cannery_cache_store_errors_total').reduce((sum, sample) => sum + sample.value, 0)).toBeGreaterThan(0);
    }

    await redis.restart();
    for (const replica of replicas) await vi.waitFor(async () => expect(await health(replica)).toMatchObject({ status: 'ok', cache: { up: true } }), { timeout: 10_000, interval: 200 });
    const burst = await Promise.all(Array.from({ length: 9 }, (_, index) => get(replicas[index % 3]!, queryPath('e2e.echo', 'after'))));
    expect(burst.map((response) => response.status)).toEqual(burst.map(() => 200));
    await Promise.all(burst.map((response) => response.arrayBuffer()));
    expect(jobsFor('after')).toBe(1);
  }, 30_000);
});
