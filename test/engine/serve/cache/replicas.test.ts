/**
 * The result cache across replicas: three services in this process, each with its own
 * connection to one real Redis and its own in-process tier, over one counting backend and one
 * fake clock. Single flight, warming and stale answers hold across them; a store that dies or
 * hangs leaves each answering alone, and comes back into use by itself.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { NO_REDIS, redisBinary, startRedisServer, type RedisServer } from '../../../../bench/redis-server.js';
import { openRedisStore } from '../../../../src/stores/redis/redis-store.js';
import { cacheKey } from '../../../../src/engine/serve/cache/key.js';
import { sharedName } from '../../../../src/engine/serve/cache/shared-store.js';
import { cachedEndpoint, text } from './harness.js';
import { startReplicas, type Replicas } from './replicas-harness.js';

const binary = redisBinary();
if (!binary) console.warn(`skipping the cross-replica cache tests: ${NO_REDIS}`);

const SECOND = 1000;

const ENDPOINTS = {
  'warm.yaml': cachedEndpoint('cache.warm', '{ ttl_seconds: 900, warm_every_seconds: 300 }', ['a: { type: string, required: true }'], ['select @a as a']),
  'short.yaml': cachedEndpoint('cache.short', '{ ttl_seconds: 60 }', ['v: { type: string, required: true }'], ['select @v as v']),
  'quick.yaml': cachedEndpoint('cache.quick', '{ ttl_seconds: 60, warm_every_seconds: 1 }', ['v: { type: string, required: true }'], ['select @v as v']),
};

let server: RedisServer;
let cluster: Replicas;
let prefixes = 0;

const start = async (count = 3) => (cluster = await startReplicas({ count, endpoints: ENDPOINTS, redisUrl: server.url, prefix: `replicas-${++prefixes}` }));
/** Queries that reached the backend with parameter `name` = `value`. */
const callsWith = (name: string, value: string) => cluster.backend.requests.filter((request) => request.values[name] === value).length;

describe.skipIf(!binary)('the cache across replicas', () => {
  beforeAll(async () => {
    server = await startRedisServer(binary);
  });
  afterEach(async () => {
    await cluster?.close();
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('a burst of one uncached request spread over three replicas runs one backend query, and every replica answers its ETag and Age', async () => {
    await start();
    const release = cluster.backend.hold();
    const pending = Array.from({ length: 30 }, (_, index) => cluster.replicas[index % 3]!.query('cache.short', [['v', 'burst']]));
    await vi.waitFor(() => expect(cluster.backend.requests).toHaveLength(1));
    // The others wait on the one running: none reaches the backend while it is held.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(cluster.backend.requests).toHaveLength(1);
    release();
    const outcomes = await Promise.all(pending);
    expect(cluster.backend.requests).toHaveLength(1);
    expect(new Set(outcomes.map(text))).toEqual(new Set(['{"result":[{"v":"burst"}]}']));
    expect(new Set(outcomes.map((outcome) => outcome.cache?.etag)).size).toBe(1);
    expect(new Set(outcomes.map((outcome) => outcome.cache?.status))).toEqual(new Set(['MISS']));
    const sources = cluster.replicas.map((replica) => replica.sources);
    // One replica ran it; the other two waited for it.
    expect(sources.filter((one) => one.includes('miss'))).toHaveLength(1);
    expect(sources.filter((one) => one.every((source) => source === 'peer_wait' || source === 'shared_hit'))).toHaveLength(2);

    await cluster.time.advance(30 * SECOND);
    const later = await Promise.all(cluster.replicas.map((replica) => replica.query('cache.short', [['v', 'burst']])));
    expect(later.map((outcome) => outcome.cache)).toEqual(later.map(() => ({ status: 'HIT', etag: outcomes[0]!.cache!.etag, ageSeconds: 30, maxAgeSeconds: 30 })));
    expect(cluster.backend.requests).toHaveLength(1);
  });

  it('answers from the process after the first shared hit, and asks the store again a few seconds later', async () => {
    await start(2);
    const [one, other] = cluster.replicas;
    await one!.query('cache.short', [['v', 'x']]);
    await other!.query('cache.short', [['v', 'x']]);
    await other!.query('cache.short', [['v', 'x']]);
    expect(other!.sources).toEqual(['shared_hit', 'local_hit']);
    await cluster.time.advance(6 * SECOND);
    await other!.query('cache.short', [['v', 'x']]);
    expect(other!.sources).toEqual(['shared_hit', 'local_hit', 'shared_hit']);
  });

  it('warming refreshes each key once per period across all replicas, and each replica serves the new result at once', async () => {
    await start();
    for (const replica of cluster.replicas) await replica.query('cache.warm', [['a', 'k1']]);
    for (const replica of cluster.replicas) await replica.query('cache.warm', [['a', 'k2']]);
    expect([callsWith('a', 'k1'), callsWith('a', 'k2')]).toEqual([1, 1]);
    for (let period = 1; period <= 3; period++) {
      await cluster.time.advance(300 * SECOND);
      expect([callsWith('a', 'k1'), callsWith('a', 'k2')]).toEqual([1 + period, 1 + period]);
      // Every replica answers the refreshed entry, not the copy it held: the same ETag and Age.
      // (Asking keeps both keys warmed: warming stops ttl after a key's last request.)
      await vi.waitFor(async () => {
        for (const key of ['k1', 'k2']) {
          const answers = await Promise.all(cluster.replicas.map((replica) => replica.query('cache.warm', [['a', key]])));
          expect(answers.map((answer) => answer.cache?.ageSeconds)).toEqual([0, 0, 0]);
        }
      });
    }
    expect(cluster.replicas.flatMap((replica) => replica.warmed)).toEqual([true, true, true, true, true, true]);
  });

  it('a replica that stops hands its refresh leases over once they lapse', async () => {
    await start(2);
    for (const replica of cluster.replicas) await replica.query('cache.quick', [['v', 'lease']]);
    await cluster.time.advance(1 * SECOND);
    expect(callsWith('v', 'lease')).toBe(2);
    const holder = cluster.replicas.find((replica) => replica.warmed.length === 1)!;
    const heir = cluster.replicas.find((replica) => replica !== holder)!;
    expect(heir.warmed).toEqual([]);
    await holder.close();
    // The lease of a 1 s period lasts 2 s; until it lapses nobody refreshes the key.
    await cluster.time.advance(1 * SECOND);
    expect(callsWith('v', 'lease')).toBe(2);
    await new Promise((resolve) => setTimeout(resolve, 2_100));
    await cluster.time.advance(1 * SECOND);
    expect(callsWith('v', 'lease')).toBe(3);
    expect(heir.warmed).toEqual([true]);
  });

  it('a failed refresh keeps the stored result for every replica: STALE past its freshness, as within one process', async () => {
    await start(2);
    const [one, other] = cluster.replicas;
    const first = await one!.query('cache.short', [['v', 'x']]);
    cluster.backend.failing = true;
    await cluster.time.advance(61 * SECOND);
    const stale = await other!.query('cache.short', [['v', 'x']]);
    expect(stale.cache).toEqual({ status: 'STALE', etag: first.cache!.etag, ageSeconds: 61, maxAgeSeconds: 0 });
    expect(text(stale)).toBe(text(first));
    expect(other!.logs.at(-1)).toMatch(/refreshing cache\.short failed; serving its previous result \(61 s old\) as stale/);
  });

  it('when the replica running a query fails, those waiting for it answer the stored result as STALE rather than try again', async () => {
    await start(2);
    const [one, other] = cluster.replicas;
    const first = await one!.query('cache.short', [['v', 'x']]);
    await cluster.time.advance(61 * SECOND);
    const release = cluster.backend.hold();
    const running = one!.query('cache.short', [['v', 'x']]);
    await vi.waitFor(() => expect(cluster.backend.requests).toHaveLength(2));
    const waiting = other!.query('cache.short', [['v', 'x']]);
    await new Promise((resolve) => setTimeout(resolve, 100));
    cluster.backend.failing = true;
    release();
    const answers = await Promise.all([running, waiting]);
    expect(answers.map((answer) => answer.cache)).toEqual(answers.map(() => ({ status: 'STALE', etag: first.cache!.etag, ageSeconds: 61, maxAgeSeconds: 0 })));
    expect(cluster.backend.requests).toHaveLength(2);
    expect(other!.sources.at(-1)).toBe('peer_wait');
  });

  it('with nothing stored to fall back on, a replica whose peer failed runs the query itself', async () => {
    await start(2);
    const [one, other] = cluster.replicas;
    const release = cluster.backend.hold();
    const running = one!.query('cache.short', [['v', 'cold']]).catch((error: unknown) => error);
    await vi.waitFor(() => expect(cluster.backend.requests).toHaveLength(1));
    const waiting = other!.query('cache.short', [['v', 'cold']]).catch((error: unknown) => error);
    await new Promise((resolve) => setTimeout(resolve, 100));
    cluster.backend.failing = true;
    release();
    expect(await running).toMatchObject({ code: 'query_failed' });
    expect(await waiting).toMatchObject({ code: 'query_failed' });
    expect(cluster.backend.requests).toHaveLength(2);
    cluster.backend.failing = false;
    expect((await other!.query('cache.short', [['v', 'cold']])).cache?.status).toBe('MISS');
  });

  it('a replica waiting on one that died runs the query itself once the dead one\'s lock lapses', async () => {
    await start(1);
    const [replica] = cluster.replicas;
    const name = sharedName(replica!.service.resolve('cache.short'), cacheKey(replica!.service.resolve('cache.short'), { values: { v: 'orphan' }, sql: undefined, redactPii: false }));
    const dead = await openRedisStore({ url: server.url, prefix: `replicas-${prefixes}`, timeoutMs: 500 });
    expect((await dead.store.claim(name, cluster.time.clock().getTime(), false)).kind).toBe('locked');
    await dead.store.close();
    const answer = await replica!.query('cache.short', [['v', 'orphan']]);
    expect(answer.cache?.status).toBe('MISS');
    expect(replica!.sources).toEqual(['miss']);
    expect(cluster.backend.requests).toHaveLength(1);
  }, 20_000);

  it('a replica on a changed definition never answers from the old one\'s entries', async () => {
    await start(1);
    const [old] = cluster.replicas;
    const id = old!.service.resolve('cache.short').definition.id;
    const changed = ENDPOINTS['short.yaml'].replace(/^id: .*$/m, `id: ${id}`).replace('select @v as v', 'select upper(@v) as v');
    const current = await cluster.add(await cluster.loadVersion({ 'short.yaml': changed }));
    expect(text(await old!.query('cache.short', [['v', 'x']]))).toBe('{"result":[{"v":"x"}]}');
    const fresh = await current.query('cache.short', [['v', 'x']]);
    expect(fresh.cache?.status).toBe('MISS');
    expect(text(fresh)).toBe('{"result":[{"v":"X"}]}');
    expect(cluster.backend.requests).toHaveLength(2);
  });

  it('redacted and plain answers never cross replicas', async () => {
    await start(2);
    const [one, other] = cluster.replicas;
    const redacted = await one!.query('cache.short', [['v', 'ann@example.com']], { redactPii: true });
    const plain = await other!.query('cache.short', [['v', 'ann@example.com']]);
    expect(text(redacted)).not.toContain('ann@example.com');
    expect(text(plain)).toContain('ann@example.com');
    expect([redacted.cache?.status, plain.cache?.status]).toEqual(['MISS', 'MISS']);
    expect(text(await other!.query('cache.short', [['v', 'ann@example.com']], { redactPii: true }))).toBe(text(redacted));
    expect(cluster.backend.requests).toHaveLength(2);
  });

  it('a killed store leaves every replica answering from its own cache, and is used again once it is back', async () => {
    await start(2);
    const [one, other] = cluster.replicas;
    await one!.query('cache.short', [['v', 'before']]);
    await other!.query('cache.short', [['v', 'before']]);
    await server.kill();
    // A key each replica holds, and a new one: both answered, the new one by a query on each.
    for (const replica of cluster.replicas) {
      expect((await replica.query('cache.short', [['v', 'before']])).cache?.status).toBe('HIT');
      expect((await replica.query('cache.short', [['v', 'during']])).cache?.status).toBe('MISS');
      expect(replica.service.sharedCacheHealth()).toMatchObject({ kind: 'redis', up: false });
      expect(replica.storeErrors.length).toBeGreaterThan(0);
      expect(replica.logs.some((line) => /the shared redis store failed .*answering from the in-process cache/.test(line))).toBe(true);
      // Within one replica, single flight still holds.
      await Promise.all([replica.query('cache.short', [['v', 'both']]), replica.query('cache.short', [['v', 'both']])]);
    }
    expect([callsWith('v', 'during'), callsWith('v', 'both')]).toEqual([2, 2]);

    await server.restart();
    await vi.waitFor(() => expect(cluster.replicas.map((replica) => replica.service.sharedCacheHealth()?.up)).toEqual([true, true]), { timeout: 10_000, interval: 100 });
    const release = cluster.backend.hold();
    const burst = Promise.all([one!.query('cache.short', [['v', 'after']]), other!.query('cache.short', [['v', 'after']])]);
    await vi.waitFor(() => expect(callsWith('v', 'after')).toBe(1));
    release();
    await burst;
    expect(callsWith('v', 'after')).toBe(1);
  }, 30_000);

  it('a hung store costs a request one short timeout, once; then the replica answers without it until it recovers', async () => {
    await start(1);
    const [replica] = cluster.replicas;
    server.freeze();
    try {
      expect((await replica!.query('cache.short', [['v', 'hung']])).cache?.status).toBe('MISS');
      expect(replica!.service.sharedCacheHealth()).toMatchObject({ up: false, error: expect.stringMatching(/took more than 500 ms|timed out/) });
      expect((await replica!.query('cache.short', [['v', 'hung-2']])).cache?.status).toBe('MISS');
      expect(replica!.storeErrors).toHaveLength(1);
    } finally {
      server.thaw();
    }
    await vi.waitFor(() => expect(replica!.service.sharedCacheHealth()?.up).toBe(true), { timeout: 10_000, interval: 100 });
  }, 30_000);
});
