/**
 * The result cache through the service, over the real DuckDB backend wrapped to count (and hold,
 * and fail) the queries that reach it, with a fake clock and timers driving expiry and warming.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { CanneryError } from '../../../../src/core/errors.js';
import type { QueryOutcome } from '../../../../src/engine/serve/service.js';
import { cachedEndpoint, startHarness, text, type Harness } from './harness.js';

const SECOND = 1000;

const ENDPOINTS = {
  // usage.api-counts' settings: cached 900 s, warmed every 300 s.
  'warm.yaml': cachedEndpoint(
    'cache.warm',
    '{ ttl_seconds: 900, warm_every_seconds: 300 }',
    ['a: { type: string, required: true }', 'b: { type: string, required: false }', 'at: { type: string, required: false, format: date-time }'],
    ['select @a as a, @b as b, @at as at'],
  ),
  'short.yaml': cachedEndpoint('cache.short', '{ ttl_seconds: 60 }', ['v: { type: string, required: true }'], ['select @v as v']),
  'off.yaml': cachedEndpoint('cache.off', 'false', ['v: { type: string, required: true }'], ['select @v as v']),
  'pii.yaml': cachedEndpoint('cache.pii', '{ ttl_seconds: 900 }', ['v: { type: string, required: true }'], ['select @v as v'], true),
};

let harness: Harness;
afterEach(() => harness?.close());

const statuses = (outcomes: QueryOutcome[]) => outcomes.map((outcome) => outcome.cache?.status);
/** Queries that reached the backend with parameter `name` = `value`. */
const callsWith = (name: string, value: string) => harness.backend.requests.filter((request) => request.values[name] === value).length;

describe('hits and misses', () => {
  it('any number of concurrent misses of one key cause one backend query', async () => {
    harness = await startHarness({ endpoints: ENDPOINTS });
    const id = harness.service.resolve('cache.warm').definition.id;
    const release = harness.backend.hold();
    const pending = Array.from({ length: 25 }, (_, i) => harness.query(i % 2 ? 'cache.warm' : id, [['a', 'x']]));
    await vi.waitFor(() => expect(harness.backend.requests).toHaveLength(1));
    release();
    const outcomes = await Promise.all(pending);
    expect(harness.backend.requests).toHaveLength(1);
    expect(new Set(statuses(outcomes))).toEqual(new Set(['MISS']));
    expect(new Set(outcomes.map(text))).toEqual(new Set(['{"result":[{"a":"x","b":null,"at":null}]}']));
    expect((await harness.query('cache.warm', [['a', 'x']])).cache?.status).toBe('HIT');
    expect(harness.backend.requests).toHaveLength(1);
  });

  it('hits within the TTL return the stored bytes with age and seconds left; the TTL ends it', async () => {
    harness = await startHarness({ endpoints: ENDPOINTS });
    const miss = await harness.query('cache.short', [['v', 'x']]);
    expect(miss.cache).toMatchObject({ status: 'MISS', ageSeconds: 0, maxAgeSeconds: 60 });
    await harness.time.advance(59 * SECOND);
    const hit = await harness.query('cache.short', [['v', 'x']]);
    expect(hit.cache).toEqual({ status: 'HIT', etag: miss.cache!.etag, ageSeconds: 59, maxAgeSeconds: 1 });
    expect(hit.body).toBe(miss.body);
    expect(harness.backend.requests).toHaveLength(1);
    await harness.time.advance(1 * SECOND);
    const expired = await harness.query('cache.short', [['v', 'x']]);
    expect(expired.cache).toMatchObject({ status: 'MISS', ageSeconds: 0, maxAgeSeconds: 60, etag: miss.cache!.etag });
    expect(harness.backend.requests).toHaveLength(2);
  });

  it('an endpoint with cache: false runs every request and reports no cache outcome', async () => {
    harness = await startHarness({ endpoints: ENDPOINTS });
    const first = await harness.query('cache.off', [['v', 'x']]);
    const second = await harness.query('cache.off', [['v', 'x']]);
    expect(first.cache).toBeUndefined();
    expect(text(second)).toBe('{"result":[{"v":"x"}]}');
    expect(harness.backend.requests).toHaveLength(2);
    await harness.time.advance(3600 * SECOND);
    expect(harness.backend.requests).toHaveLength(2);
  });
});

describe('the cache key', () => {
  it('calls by name and by UUID (any case) share entries', async () => {
    harness = await startHarness({ endpoints: ENDPOINTS });
    const id = harness.service.resolve('cache.warm').definition.id;
    const outcomes = [
      await harness.query('cache.warm', [['a', 'x']]),
      await harness.query(id, [['a', 'x']]),
      await harness.query(id.toUpperCase(), [['a', 'x']]),
    ];
    expect(statuses(outcomes)).toEqual(['MISS', 'HIT', 'HIT']);
    expect(harness.backend.requests).toHaveLength(1);
  });

  it('is insensitive to parameter order, to empty versus absent, and to how a timestamp is written', async () => {
    harness = await startHarness({ endpoints: ENDPOINTS });
    const same = [
      await harness.query('cache.warm', [['a', 'x'], ['b', 'y'], ['at', '2024-05-01T12:00:00Z']]),
      await harness.query('cache.warm', [['at', '2024-05-01T14:00:00+02:00'], ['b', 'y'], ['a', 'x']]),
      await harness.query('cache.warm', [['b', 'y'], ['a', 'x'], ['at', '2024-05-01 12:00:00.000000Z']]),
    ];
    expect(statuses(same)).toEqual(['MISS', 'HIT', 'HIT']);
    const absent = [
      await harness.query('cache.warm', [['a', 'x']]),
      await harness.query('cache.warm', [['a', 'x'], ['b', ''], ['at', '']]),
      await harness.query('cache.warm', [['b', ''], ['a', 'x']]),
    ];
    expect(statuses(absent)).toEqual(['MISS', 'HIT', 'HIT']);
    expect(harness.backend.requests).toHaveLength(2);
  });

  it('different values are different keys', async () => {
    harness = await startHarness({ endpoints: ENDPOINTS });
    const outcomes = [
      await harness.query('cache.warm', [['a', 'x']]),
      await harness.query('cache.warm', [['a', 'y']]),
      await harness.query('cache.warm', [['a', 'x'], ['b', 'x']]),
      await harness.query('cache.warm', [['a', 'x'], ['at', '2024-05-01T12:00:01Z']]),
    ];
    expect(statuses(outcomes)).toEqual(['MISS', 'MISS', 'MISS', 'MISS']);
    expect(harness.backend.requests).toHaveLength(4);
  });

  it('redaction is part of the key, and redacted rows are what is stored', async () => {
    harness = await startHarness({ endpoints: ENDPOINTS });
    const plain = await harness.query('cache.short', [['v', 'ann@example.com']]);
    const redacted = await harness.query('cache.short', [['v', 'ann@example.com']], { redactPii: true });
    expect(statuses([plain, redacted])).toEqual(['MISS', 'MISS']);
    expect(text(plain)).toContain('ann@example.com');
    expect(text(redacted)).not.toContain('ann@example.com');
    const again = await harness.query('cache.short', [['v', 'ann@example.com']], { redactPii: true });
    expect(again.cache?.status).toBe('HIT');
    expect(text(again)).toBe(text(redacted));
    expect(harness.backend.requests).toHaveLength(2);
  });

  it('on an endpoint that always redacts, the header changes nothing and shares the entry', async () => {
    harness = await startHarness({ endpoints: ENDPOINTS });
    const outcomes = [
      await harness.query('cache.pii', [['v', 'ann@example.com']]),
      await harness.query('cache.pii', [['v', 'ann@example.com']], { redactPii: true }),
    ];
    expect(statuses(outcomes)).toEqual(['MISS', 'HIT']);
    expect(text(outcomes[0]!)).not.toContain('ann@example.com');
  });

  it('a changed endpoint definition invalidates that endpoint\'s entries (and their warming)', async () => {
    harness = await startHarness({ endpoints: ENDPOINTS });
    const v1 = harness.service.resolve('cache.warm');
    const changed = ENDPOINTS['warm.yaml'].replace(`id: ${v1.definition.id}`, '').replace('select @a as a', 'select upper(@a) as a');
    const v2 = (await harness.loadVersion({ 'warm.yaml': `id: ${v1.definition.id}\n${changed}` })).find('cache.warm')!;
    expect(v2.definition.id).toBe(v1.definition.id);
    expect(v2.version).not.toBe(v1.version);

    expect((await harness.service.query(v1, [['a', 'x']])).cache?.status).toBe('MISS');
    expect((await harness.service.query(v1, [['a', 'x']])).cache?.status).toBe('HIT');
    const fresh = await harness.service.query(v2, [['a', 'x']]);
    expect(fresh.cache?.status).toBe('MISS');
    expect(text(fresh)).toContain('"a":"X"');
    expect((await harness.service.query(v2, [['a', 'x']])).cache?.status).toBe('HIT');
    // Only the new version is warmed.
    await harness.time.advance(300 * SECOND);
    expect(harness.backend.requests.map((request) => request.sql.includes('upper'))).toEqual([false, true, true]);
  });
});

describe('failures', () => {
  it('a failure on a cold key is returned as the error it is, and is not cached', async () => {
    harness = await startHarness({ endpoints: ENDPOINTS });
    harness.backend.failing = true;
    const failure = await harness.query('cache.warm', [['a', 'x']]).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(CanneryError);
    expect((failure as CanneryError).code).toBe('query_failed');
    harness.backend.failing = false;
    expect((await harness.query('cache.warm', [['a', 'x']])).cache?.status).toBe('MISS');
    expect(harness.backend.requests).toHaveLength(2);
    // A failed cold key is not warmed either.
    expect(harness.time.pending()).toBe(1);
  });

  it('a failed refresh keeps serving the previous result, STALE once past its freshness, until ttl past it', async () => {
    harness = await startHarness({ endpoints: ENDPOINTS });
    const first = await harness.query('cache.warm', [['a', 'x']]);
    harness.backend.failing = true;

    await harness.time.advance(300 * SECOND); // warming fails; the entry is still fresh
    expect(harness.backend.requests).toHaveLength(2);
    expect(harness.logs).toHaveLength(1);
    expect(harness.logs[0]).toMatch(/cache\.warm failed; serving its previous result/);
    const fresh = await harness.query('cache.warm', [['a', 'x']]);
    expect(fresh.cache).toMatchObject({ status: 'HIT', ageSeconds: 300, maxAgeSeconds: 600 });

    await harness.time.advance(650 * SECOND); // 950 s: expired; this request's refresh fails too
    const stale = await harness.query('cache.warm', [['a', 'x']]);
    expect(stale.cache).toEqual({ status: 'STALE', etag: first.cache!.etag, ageSeconds: 950, maxAgeSeconds: 0 });
    expect(stale.body).toBe(first.body);

    await harness.time.advance(849 * SECOND); // 1799 s: still within ttl past freshness
    expect((await harness.query('cache.warm', [['a', 'x']])).cache?.status).toBe('STALE');
    await harness.time.advance(1 * SECOND); // 1800 s: ttl past freshness; the error is the answer
    expect(harness.logs.at(-1)).toBe('cache: warming cache.warm failed, with no previous result to keep');
    await expect(harness.query('cache.warm', [['a', 'x']])).rejects.toMatchObject({ code: 'query_failed' });

    harness.backend.failing = false;
    const recovered = await harness.query('cache.warm', [['a', 'x']]);
    expect(recovered.cache).toMatchObject({ status: 'MISS', ageSeconds: 0, maxAgeSeconds: 900 });
  });
});

describe('warming', () => {
  it('re-runs requested keys only, replacing their entries, and stops ttl after the last request', async () => {
    harness = await startHarness({ endpoints: ENDPOINTS });
    await harness.query('cache.warm', [['a', 'kept']]);
    await harness.query('cache.warm', [['a', 'left']]);
    await harness.query('cache.short', [['v', 'unwarmed']]);
    await harness.time.advance(300 * SECOND);
    expect([callsWith('a', 'kept'), callsWith('a', 'left'), callsWith('v', 'unwarmed')]).toEqual([2, 2, 1]);
    // The entry was replaced by the refresh: its age counts from 300 s.
    const replaced = await harness.query('cache.warm', [['a', 'kept']]);
    expect(replaced.cache).toMatchObject({ status: 'HIT', ageSeconds: 0, maxAgeSeconds: 900 });

    await harness.time.advance(600 * SECOND); // 900 s: "left" was last asked for at 0, so it is not refreshed
    expect([callsWith('a', 'kept'), callsWith('a', 'left')]).toEqual([4, 3]);
    await harness.time.advance(300 * SECOND); // 1200 s: "kept" was last asked for at 300
    expect([callsWith('a', 'kept'), callsWith('a', 'left')]).toEqual([4, 3]);
    expect(harness.time.pending()).toBe(0);
    await harness.time.advance(3600 * SECOND);
    expect(harness.backend.requests).toHaveLength(8);

    // The key that was let go has expired: asking again is a miss, and warms it again.
    expect((await harness.query('cache.warm', [['a', 'left']])).cache?.status).toBe('MISS');
    expect(harness.time.pending()).toBe(1);
  });

  it('never blocks requests: while a refresh is held, hits are served from the current entry', async () => {
    harness = await startHarness({ endpoints: ENDPOINTS });
    const first = await harness.query('cache.warm', [['a', 'x']]);
    const release = harness.backend.hold();
    const warming = harness.time.advance(300 * SECOND);
    await vi.waitFor(() => expect(harness.backend.inFlight).toBe(1));
    const during = await harness.query('cache.warm', [['a', 'x']]);
    expect(during.cache?.status).toBe('HIT');
    expect(during.body).toBe(first.body);
    release();
    await warming;
    expect(harness.backend.requests).toHaveLength(2);
  });

  it('runs with bounded concurrency', async () => {
    harness = await startHarness({ endpoints: ENDPOINTS, warmConcurrency: 2 });
    const keys = ['k1', 'k2', 'k3', 'k4', 'k5'];
    for (const key of keys) await harness.query('cache.warm', [['a', key]]);
    const release = harness.backend.hold();
    const warming = harness.time.advance(300 * SECOND);
    await vi.waitFor(() => expect(harness.backend.inFlight).toBe(2));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(harness.backend.inFlight).toBe(2);
    release();
    await warming;
    expect(keys.map((key) => callsWith('a', key))).toEqual([2, 2, 2, 2, 2]);
    expect(harness.backend.maxInFlight).toBe(2);
  });

  it('stops when the service closes', async () => {
    harness = await startHarness({ endpoints: ENDPOINTS });
    await harness.query('cache.warm', [['a', 'x']]);
    expect(harness.time.pending()).toBe(1);
    await harness.service.close();
    expect(harness.time.pending()).toBe(0);
    await harness.time.advance(900 * SECOND);
    expect(harness.backend.requests).toHaveLength(1);
  });
});

describe('memory', () => {
  // Values of 10,000 characters: each entry is about 20 kB (the value is in the body and the key).
  const big = (letter: string) => letter.repeat(10_000);

  it('is capped; least recently used entries go first, and are no longer warmed', async () => {
    harness = await startHarness({ endpoints: ENDPOINTS, maxBytes: 50_000 });
    const ask = async (letter: string) => (await harness.query('cache.warm', [['a', big(letter)]])).cache?.status;
    expect([await ask('a'), await ask('b'), await ask('a'), await ask('c')]).toEqual(['MISS', 'MISS', 'HIT', 'MISS']);
    // "b" was least recently used when "c" came in.
    expect(await ask('a')).toBe('HIT');
    expect(await ask('c')).toBe('HIT');
    await harness.time.advance(300 * SECOND);
    expect(['a', 'b', 'c'].map((letter) => callsWith('a', big(letter)))).toEqual([2, 1, 2]);
    expect(await ask('b')).toBe('MISS');
  });

  it('a result larger than the cap is served but neither stored nor warmed', async () => {
    harness = await startHarness({ endpoints: ENDPOINTS, maxBytes: 15_000 });
    const outcomes = [await harness.query('cache.warm', [['a', big('a')]]), await harness.query('cache.warm', [['a', big('a')]])];
    expect(statuses(outcomes)).toEqual(['MISS', 'MISS']);
    expect(text(outcomes[1]!)).toContain(big('a'));
    expect(harness.time.pending()).toBe(0);
  });
});
