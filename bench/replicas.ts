/**
 * Backend queries per key per TTL, with one replica and with three: what the shared cache tier
 * saves a deployment that runs several replicas (on BigQuery, each query is billed).
 *
 * Each replica is the built `serve` on its own copy of a seeded DuckDB database (as replicas on
 * BigQuery share nothing but the warehouse); the endpoint is usage.api-counts with its settings'
 * ratio (warmed every third of its TTL) scaled down to seconds, so a run takes minutes. A client
 * asks every key on every replica in turn, all through the run, as a load balancer spreads
 * callers; the backend queries are the replicas' own count (/metrics), taken once every key has
 * been asked everywhere and again after `--ttls` TTLs. Three layouts, measured in the same run:
 * one replica (the baseline), three with the in-process cache alone, three sharing one Redis
 * (CANNERY_CACHE_URL). Target: three sharing one store cost what one replica does (<= 1.1 of it).
 *
 *   npm run bench:replicas [-- --ttl 6 --ttls 4]
 */
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { NO_REDIS, redisBinary, startRedisServer } from './redis-server.js';
import { API_KEY, DEMO_PROJECT, describeMachine, markdownTable, seed, serve, SHIPPED_ENDPOINTS, type Served } from './support.js';

export const TARGET_RATIO = 1.1;

const KEYS = ['minutely', 'hourly', 'daily'].flatMap((interval) =>
  [DEMO_PROJECT, 'nomatch'].map((project) => `/api/endpoints/query/usage.api-counts?interval=${interval}&project=${project}`),
);

interface Layout {
  label: string;
  replicas: number;
  shared: boolean;
}

const LAYOUTS: Layout[] = [
  { label: '1 replica', replicas: 1, shared: false },
  { label: '3 replicas, in-process cache only', replicas: 3, shared: false },
  { label: '3 replicas sharing one Redis', replicas: 3, shared: true },
];

/** The backend queries a replica has run for usage.api-counts, from its /metrics. */
async function backendQueries(replica: Served): Promise<number> {
  const text = await (await fetch(`${replica.url}/metrics`, { headers: { 'x-api-key': API_KEY } })).text();
  const line = text.split('\n').find((one) => one.startsWith('cannery_backend_query_duration_seconds_count{endpoint="usage.api-counts"}'));
  return Number(line?.split(' ')[1] ?? 0);
}

/** The last of each replica's stderr, to say why one stopped answering. */
const stderrOf = new Map<Served, string>();

async function askEverywhere(replicas: Served[]): Promise<void> {
  for (const replica of replicas) {
    for (const path of KEYS) {
      const response = await fetch(replica.url + path, { headers: { 'x-api-key': API_KEY } }).catch((error: unknown) => {
        throw new Error(`${replica.url} stopped answering (${String(error)}); its stderr:\n${stderrOf.get(replica) ?? ''}`);
      });
      if (response.status !== 200) throw new Error(`${path} on ${replica.url}: ${response.status} ${await response.text()}`);
      await response.arrayBuffer();
    }
  }
}

let copies = 0;

async function measure(layout: Layout, options: { dir: string; db: string; endpoints: string; ttlSeconds: number; ttls: number; redisUrl?: string }): Promise<number> {
  const replicas: Served[] = [];
  // One namespace per layout, shared by its replicas: nothing carries over from a layout before.
  const env: Record<string, string> = layout.shared ? { CANNERY_CACHE_URL: options.redisUrl!, CANNERY_CACHE_PREFIX: `bench-${copies}` } : {};
  try {
    for (let index = 0; index < layout.replicas; index++) {
      // DuckDB locks its file: each replica has its own copy, as each would have its warehouse connection.
      const db = join(options.dir, `replica-${++copies}.duckdb`);
      await copyFile(options.db, db);
      const replica = await serve({ db, endpoints: options.endpoints, env });
      replica.child.stderr!.on('data', (chunk: Buffer) => stderrOf.set(replica, ((stderrOf.get(replica) ?? '') + chunk.toString()).slice(-4_000)));
      replicas.push(replica);
    }
    await askEverywhere(replicas);
    const counts = async () => (await Promise.all(replicas.map(backendQueries))).reduce((sum, count) => sum + count, 0);
    const before = await counts();
    const started = Date.now();
    const runMs = options.ttls * options.ttlSeconds * 1000;
    while (Date.now() - started < runMs) {
      await askEverywhere(replicas);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const elapsedTtls = (Date.now() - started) / (options.ttlSeconds * 1000);
    return ((await counts()) - before) / KEYS.length / elapsedTtls;
  } finally {
    await Promise.all(replicas.map((replica) => replica.stop()));
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { ttl: { type: 'string', default: '6' }, ttls: { type: 'string', default: '4' } } });
  const ttlSeconds = Number(values.ttl);
  const ttls = Number(values.ttls);
  const warmSeconds = Math.max(1, Math.round(ttlSeconds / 3));
  const binary = redisBinary();
  if (!binary) throw new Error(NO_REDIS);

  const dir = await mkdtemp(join(tmpdir(), 'cannery-bench-replicas-'));
  const redis = await startRedisServer(binary);
  try {
    const db = join(dir, 'seeded.duckdb');
    seed(db, 20_000);
    const endpoints = join(dir, 'endpoints');
    await mkdir(endpoints);
    const shipped = await readFile(join(SHIPPED_ENDPOINTS, 'usage.api-counts.yaml'), 'utf8');
    await writeFile(
      join(endpoints, 'usage.api-counts.yaml'),
      shipped.replace('  ttl_seconds: 900\n  warm_every_seconds: 300', `  ttl_seconds: ${ttlSeconds}\n  warm_every_seconds: ${warmSeconds}`),
    );

    const rows: string[][] = [];
    let baseline = NaN;
    let shared = NaN;
    for (const layout of LAYOUTS) {
      process.stderr.write(`bench:replicas: ${layout.label} for ${ttls} TTLs of ${ttlSeconds} s ...\n`);
      const perKeyPerTtl = await measure(layout, { dir, db, endpoints, ttlSeconds, ttls, redisUrl: redis.url });
      if (layout.replicas === 1) baseline = perKeyPerTtl;
      if (layout.shared) shared = perKeyPerTtl;
      rows.push([layout.label, perKeyPerTtl.toFixed(2), (perKeyPerTtl / baseline).toFixed(2)]);
    }
    const machine = describeMachine();
    console.log(`# Backend queries per key per TTL (${machine.date}, ${machine.cores} cores, load ${machine.load}, ${binary})\n`);
    console.log(
      `usage.api-counts cached ${ttlSeconds} s and warmed every ${warmSeconds} s; ${KEYS.length} keys, each asked on every replica in turn, round after round (100 ms apart), for ${ttls} TTLs.\n`,
    );
    console.log(markdownTable(['layout', 'queries per key per TTL', 'against 1 replica'], rows));
    const holds = shared / baseline <= TARGET_RATIO;
    console.log(`\nthree replicas sharing one Redis / one replica: ${(shared / baseline).toFixed(2)} (target <= ${TARGET_RATIO}): ${holds ? 'holds' : 'MISSED'}`);
    if (!holds) process.exitCode = 1;
  } finally {
    await redis.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
