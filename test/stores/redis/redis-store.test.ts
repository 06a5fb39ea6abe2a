/**
 * The shared cache store on a real Redis (or Valkey) server started for this file: entries as the
 * server holds them, the fill lock, notifications between two stores (two replicas), the refresh
 * lease, and a store that comes back by itself after its server does.
 */
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { COMPRESS_ABOVE_BYTES } from '../../../src/stores/redis/entry-codec.js';
import { LOCK_MS, openRedisStore } from '../../../src/stores/redis/redis-store.js';
import type { Settlement, SharedStore, StoredResult } from '../../../src/engine/serve/cache/shared-store.js';
import { NO_REDIS, redisBinary, startRedisServer, type RedisServer } from '../../../bench/redis-server.js';

const binary = redisBinary();
if (!binary) console.warn(`skipping the shared cache store's tests: ${NO_REDIS}`);

const NAME = '0b0f5b9e-0000-4000-8000-000000000001:0123456789abcdef:hash';
const NOW = Date.parse('2024-05-01T12:00:00Z');

const result = (body: string, computedAt = Date.now(), ttlMs = 60_000): StoredResult => ({
  body: Buffer.from(body),
  rows: 1,
  etag: `"etag-of-${body.length}"`,
  computedAt,
  ttlMs,
});

describe.skipIf(!binary)('the Redis store', () => {
  let server: RedisServer;
  let raw: Redis;
  const stores: SharedStore[] = [];
  const open = async (prefix = 'test') => {
    const opened = await openRedisStore({ url: server.url, prefix, timeoutMs: 1_000 });
    stores.push(opened.store);
    return opened;
  };

  beforeAll(async () => {
    server = await startRedisServer(binary);
    raw = new Redis(server.url);
  });
  afterEach(async () => {
    for (const store of stores.splice(0)) await store.close();
    await raw.flushall();
  });
  afterAll(async () => {
    raw?.disconnect();
    await server?.stop();
  });

  it('claims a missing key, keeps its result with every field, for ttl past its freshness, under a namespaced key', async () => {
    const { store, up } = await open();
    expect(up).toBe(true);
    const claim = await store.claim(NAME, Date.now(), false);
    expect(claim).toMatchObject({ kind: 'locked', previous: undefined });
    if (claim.kind !== 'locked') return;
    const stored = result('{"result":[{"v":1}]}');
    await claim.lock.fill(stored);

    expect(await raw.keys('*')).toEqual([`test:entry:${NAME}`]);
    const fields = await raw.hgetall(`test:entry:${NAME}`);
    expect(fields).toEqual({
      body: '{"result":[{"v":1}]}',
      encoding: 'identity',
      rows: '1',
      etag: stored.etag,
      created_at: String(stored.computedAt),
      ttl_ms: '60000',
    });
    const pttl = await raw.pttl(`test:entry:${NAME}`);
    expect(pttl).toBeGreaterThan(119_000);
    expect(pttl).toBeLessThanOrEqual(120_000);
    expect(await store.get(NAME)).toEqual({ ...stored, body: Buffer.from(stored.body) });
    expect(await store.locked(NAME)).toBe(false);
  });

  it('answers a fresh entry to a claim, and gives the lock over an expired one with the entry there as the previous', async () => {
    const { store } = await open();
    const first = await store.claim(NAME, NOW, false);
    if (first.kind !== 'locked') throw new Error('not locked');
    await first.lock.fill(result('one', NOW, 60_000));
    expect(await store.claim(NAME, NOW + 59_999, false)).toMatchObject({ kind: 'fresh', result: { computedAt: NOW } });
    const expired = await store.claim(NAME, NOW + 60_000, false);
    expect(expired).toMatchObject({ kind: 'locked', previous: { computedAt: NOW } });
    // A warming refresh claims a fresh entry too, once the lock is free.
    if (expired.kind === 'locked') await expired.lock.fail();
    expect(await store.claim(NAME, NOW + 1, true)).toMatchObject({ kind: 'locked', previous: { computedAt: NOW } });
  });

  it('gives the lock to one claimant at a time; the others hear how it ended', async () => {
    const one = (await open()).store;
    const other = (await open()).store;
    const heard: Settlement[] = [];
    other.onSettled((settlement) => heard.push(settlement));
    await new Promise((resolve) => setTimeout(resolve, 50)); // the subscription is made

    const claim = await one.claim(NAME, Date.now(), false);
    expect(await other.claim(NAME, Date.now(), false)).toMatchObject({ kind: 'busy' });
    expect(await other.locked(NAME)).toBe(true);
    if (claim.kind !== 'locked') throw new Error('not locked');
    await claim.lock.fail();
    await vi.waitFor(() => expect(heard).toEqual([{ name: NAME, filled: false, computedAt: 0 }]));
    expect(await other.locked(NAME)).toBe(false);

    const again = await other.claim(NAME, Date.now(), false);
    if (again.kind !== 'locked') throw new Error('not locked');
    const stored = result('two');
    await again.lock.fill(stored);
    await vi.waitFor(() => expect(heard.at(-1)).toEqual({ name: NAME, filled: true, computedAt: stored.computedAt }));
  });

  it('never replaces a result with an older one', async () => {
    const { store } = await open();
    const slow = await store.claim(NAME, NOW, false);
    if (slow.kind !== 'locked') throw new Error('not locked');
    await raw.del(`test:lock:${NAME}`); // the slow holder's lock expired; another replica went ahead
    const fast = await store.claim(NAME, NOW, false);
    if (fast.kind !== 'locked') throw new Error('not locked');
    await fast.lock.fill(result('newer', NOW + 2_000));
    await slow.lock.fill(result('older', NOW + 1_000));
    expect(Buffer.from((await store.get(NAME))!.body).toString()).toBe('newer');
  });

  it(`compresses bodies past ${COMPRESS_ABOVE_BYTES} bytes, and reads them back as they were`, async () => {
    const { store } = await open();
    const big = JSON.stringify({ result: Array.from({ length: 2_000 }, (_, index) => ({ id: index, message: `GET /rest/v1/items ${index}` })) });
    expect(big.length).toBeGreaterThan(COMPRESS_ABOVE_BYTES);
    const claim = await store.claim(NAME, Date.now(), false);
    if (claim.kind !== 'locked') throw new Error('not locked');
    await claim.lock.fill(result(big));
    expect(await raw.hget(`test:entry:${NAME}`, 'encoding')).toBe('gzip');
    const storedBytes = (await raw.hgetBuffer(`test:entry:${NAME}`, 'body'))!.byteLength;
    expect(storedBytes).toBeLessThan(big.length / 5);
    expect(Buffer.from((await store.get(NAME))!.body).toString()).toBe(big);
  });

  it('keeps a lock alive while its holder runs, and lets it expire when the holder is gone', async () => {
    const holder = await open();
    const other = (await open()).store;
    const claim = await holder.store.claim(NAME, Date.now(), false);
    expect(claim.kind).toBe('locked');
    await new Promise((resolve) => setTimeout(resolve, LOCK_MS + 500));
    expect(await other.locked(NAME)).toBe(true);
    // The holder dies without a word: its lock lapses within LOCK_MS.
    await holder.store.close();
    await vi.waitFor(async () => expect(await other.locked(NAME)).toBe(false), { timeout: LOCK_MS + 1_000, interval: 200 });
    expect((await other.claim(NAME, Date.now(), false)).kind).toBe('locked');
  }, 20_000);

  it('gives a refresh lease to one store at a time, renews it for its holder, and hands it over when it lapses', async () => {
    const one = (await open()).store;
    const other = (await open()).store;
    expect(await one.lease(NAME, 600)).toBe(true);
    expect(await other.lease(NAME, 600)).toBe(false);
    expect(await one.lease(NAME, 600)).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 700));
    expect(await other.lease(NAME, 600)).toBe(true);
    expect(await one.lease(NAME, 600)).toBe(false);
  });

  it('keeps deployments with different prefixes apart', async () => {
    const blue = (await open('blue')).store;
    const green = (await open('green')).store;
    const claim = await blue.claim(NAME, Date.now(), false);
    if (claim.kind !== 'locked') throw new Error('not locked');
    await claim.lock.fill(result('blue'));
    expect(await green.get(NAME)).toBeUndefined();
    expect((await green.claim(NAME, Date.now(), false)).kind).toBe('locked');
  });

  it('fails fast while its server is down, and answers again by itself once it is back', async () => {
    const { store } = await open();
    await store.ping();
    await server.kill();
    await expect(store.get(NAME)).rejects.toThrow();
    await server.restart();
    raw.disconnect();
    raw = new Redis(server.url);
    await vi.waitFor(() => store.ping(), { timeout: 10_000, interval: 200 });
    expect(await store.get(NAME)).toBeUndefined();
  }, 20_000);

  it('starts when its server does not answer, saying so, and is used once it does', async () => {
    await server.kill();
    const { store, up } = await open();
    expect(up).toBe(false);
    await server.restart();
    raw.disconnect();
    raw = new Redis(server.url);
    await vi.waitFor(() => store.ping(), { timeout: 10_000, interval: 200 });
  }, 20_000);
});
