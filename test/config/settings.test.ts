/** The operations settings: defaults, accepted values, and refusal of malformed ones at start-up. */
import { availableParallelism } from 'node:os';
import { describe, expect, it } from 'vitest';
import { readSettings } from '../../src/config/settings.js';

describe('operations settings', () => {
  it('defaults: 16 queries at once and 64 waiting, info logs, /metrics behind a key, no CORS, the console on', () => {
    expect(readSettings({})).toMatchObject({ maxConcurrentQueries: 16, maxQueuedQueries: 64, logLevel: 'info', metricsPublic: false, corsOrigins: [], console: true, demoLive: true, ingest: false });
  });

  it("defaults: DuckDB on every core (below the event loop), the sandbox compiles on every core but the event loop's (one at the least), a 1 GB memory limit", () => {
    const beside = Math.max(1, availableParallelism() - 1);
    expect(readSettings({})).toMatchObject({ duckdbThreads: availableParallelism(), sandboxThreads: beside, duckdbMemoryLimit: '1GB' });
    expect(readSettings({ CANNERY_DUCKDB_THREADS: '3', CANNERY_SANDBOX_THREADS: '5' })).toMatchObject({ duckdbThreads: 3, sandboxThreads: 5 });
    expect(() => readSettings({ CANNERY_DUCKDB_THREADS: '0' })).toThrow('CANNERY_DUCKDB_THREADS must be a whole number from 1 to 1024 (got "0")');
  });

  it('reads each from the environment', () => {
    const settings = readSettings({
      CANNERY_MAX_CONCURRENT_QUERIES: '4',
      CANNERY_MAX_QUEUED_QUERIES: '0',
      CANNERY_LOG_LEVEL: 'silent',
      CANNERY_METRICS_PUBLIC: 'true',
      CANNERY_CORS_ORIGINS: ' https://app.example.com , http://localhost:3000,,*',
      CANNERY_CONSOLE: 'false',
      CANNERY_DEMO_LIVE: 'false',
      CANNERY_INGEST: 'true',
      CANNERY_INGEST_MAX_BYTES: '2048',
      CANNERY_INGEST_QUEUE_EVENTS: '10',
    });
    expect(settings).toMatchObject({
      maxConcurrentQueries: 4,
      maxQueuedQueries: 0,
      logLevel: 'silent',
      metricsPublic: true,
      corsOrigins: ['https://app.example.com', 'http://localhost:3000', '*'],
      console: false,
      demoLive: false,
      ingest: true,
      ingestMaxBytes: 2048,
      ingestQueueEvents: 10,
    });
  });

  it('API keys: comma-separated, trimmed; one a header cannot carry is refused without being echoed', () => {
    expect(readSettings({ CANNERY_API_KEYS: ' a1!~ , ,b-2_' }).apiKeys).toEqual(['a1!~', 'b-2_']);
    for (const bad of ['ok,sécret', 'ok,two words', 'ok,tab\there']) {
      expect(() => readSettings({ CANNERY_API_KEYS: bad })).toThrow(/^CANNERY_API_KEYS: key 2 has a character a header cannot carry/);
      expect(() => readSettings({ CANNERY_API_KEYS: bad })).not.toThrow(bad.split(',')[1]!);
    }
  });

  it("the key a command sends to a running server: CANNERY_KEY, none when unset or empty", () => {
    expect(readSettings({ CANNERY_KEY: 'k-1' }).callerKey).toBe('k-1');
    expect(readSettings({ CANNERY_KEY: '' }).callerKey).toBeUndefined();
    expect(readSettings({}).callerKey).toBeUndefined();
  });

  it.each([
    [{ CANNERY_MAX_CONCURRENT_QUERIES: '0' }, 'CANNERY_MAX_CONCURRENT_QUERIES must be a whole number from 1'],
    [{ CANNERY_MAX_QUEUED_QUERIES: '-1' }, 'CANNERY_MAX_QUEUED_QUERIES must be a whole number from 0'],
    [{ CANNERY_LOG_LEVEL: 'verbose' }, 'CANNERY_LOG_LEVEL must be one of debug, info, warn, error, silent (got "verbose")'],
    [{ CANNERY_METRICS_PUBLIC: 'yes' }, 'CANNERY_METRICS_PUBLIC must be true or false (got "yes")'],
    [{ CANNERY_CONSOLE: 'off' }, 'CANNERY_CONSOLE must be true or false (got "off")'],
    [{ CANNERY_DEMO_LIVE: 'no' }, 'CANNERY_DEMO_LIVE must be true or false (got "no")'],
    [{ CANNERY_CORS_ORIGINS: 'https://app.example.com/' }, '"https://app.example.com/" is not an origin'],
    [{ CANNERY_CORS_ORIGINS: 'app.example.com' }, '"app.example.com" is not an origin'],
    [{ CANNERY_CORS_ORIGINS: 'https://APP.example.com' }, '"https://APP.example.com" is not an origin'],
  ])('refuses %j', (env, message) => {
    expect(() => readSettings(env)).toThrow(message);
  });
});

describe('CANNERY_NOW', () => {
  it('unset: the real clock; set: that instant, with Z or an offset', () => {
    expect(readSettings({}).now).toBeUndefined();
    expect(readSettings({ CANNERY_NOW: '2026-11-27T15:00:00Z' }).now).toEqual(new Date('2026-11-27T15:00:00Z'));
    expect(readSettings({ CANNERY_NOW: '2026-11-27T16:00:00.5+01:00' }).now).toEqual(new Date('2026-11-27T15:00:00.500Z'));
  });

  it.each(['2026-11-27T15:00:00', '2026-11-27', 'yesterday', '2026-13-27T15:00:00Z'])('refuses %j, a time without a zone or no time', (raw) => {
    expect(() => readSettings({ CANNERY_NOW: raw })).toThrow(`CANNERY_NOW must be an ISO 8601 time with Z or an offset, such as 2026-11-27T15:00:00Z (got "${raw}")`);
  });
});

describe('shared cache settings', () => {
  it('default: no shared store, a 250 ms bound on each call to one, keys under cannery:', () => {
    expect(readSettings({})).toMatchObject({ cacheUrl: undefined, cacheTimeoutMs: 250, cachePrefix: 'cannery' });
  });

  it('takes redis:// and rediss:// URLs (Redis or Valkey), a timeout and a prefix', () => {
    expect(readSettings({ CANNERY_CACHE_URL: 'redis://cache.internal:6379/2', CANNERY_CACHE_TIMEOUT_MS: '100', CANNERY_CACHE_PREFIX: 'prod.eu' })).toMatchObject({
      cacheUrl: 'redis://cache.internal:6379/2',
      cacheTimeoutMs: 100,
      cachePrefix: 'prod.eu',
    });
    expect(readSettings({ CANNERY_CACHE_URL: 'rediss://default:s3cret@cache.example.com:6380' }).cacheUrl).toBe('rediss://default:s3cret@cache.example.com:6380');
  });

  it('refuses another scheme or no host without repeating the URL, which may carry a password', () => {
    for (const bad of ['http://u:pw1@cache:6379', 'pw2@cache.internal:6379', 'redis://', 'memcached://:pw3@cache']) {
      expect(() => readSettings({ CANNERY_CACHE_URL: bad })).toThrow(/^CANNERY_CACHE_URL must be a redis:\/\/ or rediss:\/\/ URL with a host/);
      expect(() => readSettings({ CANNERY_CACHE_URL: bad })).not.toThrow('pw');
    }
    expect(() => readSettings({ CANNERY_CACHE_PREFIX: 'a b' })).toThrow('CANNERY_CACHE_PREFIX must be 1 to 64 letters');
    expect(() => readSettings({ CANNERY_CACHE_TIMEOUT_MS: '0' })).toThrow('CANNERY_CACHE_TIMEOUT_MS must be a whole number from 1');
  });

  it('the longest a signed token may live: 24h by default, a length of time, anything else refused by name', () => {
    expect(readSettings({}).jwtMaxTtlSeconds).toBe(86_400);
    expect(readSettings({ CANNERY_JWT_MAX_TTL: '15m' }).jwtMaxTtlSeconds).toBe(900);
    expect(readSettings({ CANNERY_JWT_MAX_TTL: '7d' }).jwtMaxTtlSeconds).toBe(604_800);
    for (const bad of ['forever', '3600', '0h', '1.5h', '-1h']) {
      expect(() => readSettings({ CANNERY_JWT_MAX_TTL: bad })).toThrow(`CANNERY_JWT_MAX_TTL must be a length of time such as 90s, 15m, 24h or 7d (got "${bad}")`);
    }
  });

  it('the memory limit of loads: 512MB by default, a size DuckDB takes, anything else refused by name', () => {
    expect(readSettings({}).loadMemoryLimit).toBe('512MB');
    expect(readSettings({ CANNERY_LOAD_MEMORY_LIMIT: ' 1.5GiB ' }).loadMemoryLimit).toBe('1.5GiB');
    for (const bad of ['lots', '512', '80%', '-1GB']) {
      expect(() => readSettings({ CANNERY_LOAD_MEMORY_LIMIT: bad })).toThrow(`CANNERY_LOAD_MEMORY_LIMIT must be a size such as 512MB or 2GB (got "${bad}")`);
    }
  });
});
