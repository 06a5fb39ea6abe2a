/**
 * The shared cache store on Redis or Valkey (redis:// or rediss://), with ioredis.
 *
 * Keys, under the prefix (CANNERY_CACHE_PREFIX): `entry:<name>`, a hash of the result (entry-codec.ts)
 * that expires ttl past its freshness (the stale window); `lock:<name>`, the fill lock of a key
 * whose query runs, kept alive by its holder and gone LOCK_MS after it stops; `lease:<name>`, a
 * warmed key's refresh lease. `<name>` starts with the endpoint's id and version. Replicas tell
 * each other of results stored and queries failed on one channel, `settled`.
 *
 * Each step that must not interleave with another replica's (check and lock; store, unlock and
 * tell) is one Lua script, so it is one round trip and atomic. Commands are never queued while
 * the connection is down: they fail at once, and the cache answers without the store.
 */
import { randomUUID } from 'node:crypto';
import { Redis, type RedisOptions } from 'ioredis';
import type { FillLock, Settlement, SharedStore } from '../../engine/serve/cache/shared-store.js';
import { decodeEntry, encodeEntry, fieldsOf } from './entry-codec.js';

export interface RedisStoreOptions {
  /** redis://[user:password@]host[:port][/db] or rediss:// (TLS). */
  url: string;
  /** Namespace of every key and the channel, so deployments can share a server. */
  prefix: string;
  /** The longest a command may take (CANNERY_CACHE_TIMEOUT_MS). */
  timeoutMs: number;
}

export interface OpenedStore {
  store: SharedStore;
  /** Whether it answered at start-up; if not, it keeps trying in the background. */
  up: boolean;
}

/** A fill lock lives this long after its holder last renewed it (a third of it, while the query runs). */
export const LOCK_MS = 5_000;

/** Is a key fresh (then its entry is the answer), or may this caller take its lock? Returns the status and the entry there. */
const CLAIM = `
local fields = redis.call('HGETALL', KEYS[1])
local created, ttl
for i = 1, #fields, 2 do
  if fields[i] == 'created_at' then created = tonumber(fields[i + 1]) end
  if fields[i] == 'ttl_ms' then ttl = tonumber(fields[i + 1]) end
end
if ARGV[4] ~= '1' and created and ttl and tonumber(ARGV[3]) < created + ttl then return {'fresh', fields} end
if redis.call('SET', KEYS[2], ARGV[1], 'NX', 'PX', ARGV[2]) then return {'locked', fields} end
return {'busy', fields}
`;

/** Stores a result unless a newer one is there, releases the caller's lock, and tells every replica. */
const FILL = `
local current = tonumber(redis.call('HGET', KEYS[1], 'created_at'))
if not current or current <= tonumber(ARGV[2]) then
  redis.call('DEL', KEYS[1])
  redis.call('HSET', KEYS[1], unpack(ARGV, 6))
  redis.call('PEXPIRE', KEYS[1], ARGV[3])
end
if redis.call('GET', KEYS[2]) == ARGV[1] then redis.call('DEL', KEYS[2]) end
redis.call('PUBLISH', ARGV[5], ARGV[4])
return 1
`;

/** Releases the caller's lock and tells every replica its query failed. */
const RELEASE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
redis.call('PUBLISH', ARGV[2], ARGV[3])
return 1
`;

/** Keeps the caller's lock alive; 0 once it is not the caller's. */
const RENEW = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0
`;

/** Takes a free lease or renews the caller's; 0 while another holds it. */
const LEASE = `
local holder = redis.call('GET', KEYS[1])
if not holder or holder == ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return 1
end
return 0
`;

/** The scripts as ioredis defines them on the client (EVALSHA, falling back to EVAL once). */
interface ScriptCommands {
  cannery_claimBuffer(entry: string, lock: string, token: string, lockMs: number, now: number, force: string): Promise<[Buffer, Buffer[]]>;
  cannery_fill(entry: string, lock: string, token: string, createdAt: number, px: number, message: string, channel: string, ...fields: (string | Buffer)[]): Promise<number>;
  cannery_release(lock: string, token: string, channel: string, message: string): Promise<number>;
  cannery_renew(lock: string, token: string, ms: number): Promise<number>;
  cannery_lease(lease: string, holder: string, ms: number): Promise<number>;
}

export async function openRedisStore(options: RedisStoreOptions): Promise<OpenedStore> {
  const { prefix, timeoutMs } = options;
  const connection: RedisOptions = {
    commandTimeout: timeoutMs,
    connectTimeout: Math.max(timeoutMs, 2_000),
    // Fail at once while disconnected, and never re-send after a reconnect: the cache has
    // answered without the store by then.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    // Reconnects for ever, at most two seconds apart: the store coming back is noticed by itself.
    retryStrategy: (times) => Math.min(times * 200, 2_000),
    // RESP2: what every Redis and Valkey version speaks.
    protocol: 2,
    lazyConnect: true,
    connectionName: 'cannery',
    scripts: {
      cannery_claim: { lua: CLAIM, numberOfKeys: 2 },
      cannery_fill: { lua: FILL, numberOfKeys: 2 },
      cannery_release: { lua: RELEASE, numberOfKeys: 1 },
      cannery_renew: { lua: RENEW, numberOfKeys: 1 },
      cannery_lease: { lua: LEASE, numberOfKeys: 1 },
    },
  };
  const client = new Redis(options.url, connection);
  // Notifications wait for their connection rather than fail: nothing waits on them but waiters
  // that poll as well.
  const subscriber = client.duplicate({ enableOfflineQueue: true, maxRetriesPerRequest: null, commandTimeout: undefined, connectionName: 'cannery-notifications' });
  // Failures reach the cache through the calls that meet them (shared-tier.ts says so once);
  // ioredis would otherwise report each reconnect attempt as an unhandled 'error'.
  client.on('error', () => {});
  subscriber.on('error', () => {});
  const scripts = client as unknown as ScriptCommands;

  const replica = randomUUID();
  let tokens = 0;
  const channel = `${prefix}:settled`;
  const entryKey = (name: string) => `${prefix}:entry:${name}`;
  const lockKey = (name: string) => `${prefix}:lock:${name}`;
  const leaseKey = (name: string) => `${prefix}:lease:${name}`;

  const listeners: ((settlement: Settlement) => void)[] = [];
  // Locks whose renewal runs, stopped by close as well: a closed store holds nothing.
  const renewals = new Set<NodeJS.Timeout>();
  subscriber.on('message', (_channel: string, message: string) => {
    const settlement = parseSettlement(message);
    if (settlement) for (const listener of listeners) listener(settlement);
  });
  void subscriber.subscribe(channel).catch(() => {});

  const lockFor = (name: string, token: string): FillLock => {
    const renewing = setInterval(() => {
      scripts.cannery_renew(lockKey(name), token, LOCK_MS).then(
        (held) => {
          if (!held) stop();
        },
        () => {},
      );
    }, LOCK_MS / 3);
    renewing.unref();
    renewals.add(renewing);
    const stop = () => {
      clearInterval(renewing);
      renewals.delete(renewing);
    };
    return {
      async fill(result) {
        stop();
        const fields = (await encodeEntry(result)).flat();
        // Kept through the stale window, ttl past its freshness: counted from now, not from
        // computedAt, so that no replica's clock can make the server drop it early.
        const px = 2 * result.ttlMs;
        await scripts.cannery_fill(entryKey(name), lockKey(name), token, result.computedAt, px, `filled ${result.computedAt} ${name}`, channel, ...fields);
      },
      async fail() {
        stop();
        await scripts.cannery_release(lockKey(name), token, channel, `failed 0 ${name}`);
      },
    };
  };

  const store: SharedStore = {
    kind: 'redis',
    async claim(name, now, force) {
      const token = `${replica}:${++tokens}`;
      const [status, reply] = await scripts.cannery_claimBuffer(entryKey(name), lockKey(name), token, LOCK_MS, now, force ? '1' : '0');
      const found = await decodeEntry(fieldsOf(reply));
      const kind = status.toString();
      if (kind === 'fresh') {
        if (found) return { kind: 'fresh', result: found };
        // An entry this version cannot read: claimed over, and replaced by the result.
        return store.claim(name, now, true);
      }
      if (kind === 'locked') return { kind: 'locked', lock: lockFor(name, token), previous: found };
      return { kind: 'busy', previous: found };
    },
    async get(name) {
      return decodeEntry(new Map(Object.entries(await client.hgetallBuffer(entryKey(name)))));
    },
    locked: async (name) => (await client.exists(lockKey(name))) === 1,
    lease: async (name, ms) => (await scripts.cannery_lease(leaseKey(name), replica, Math.ceil(ms))) === 1,
    async ping() {
      if (client.status === 'end') await client.connect();
      await client.ping();
    },
    onSettled(listener) {
      listeners.push(listener);
    },
    async close() {
      for (const renewing of renewals) clearInterval(renewing);
      renewals.clear();
      client.disconnect();
      subscriber.disconnect();
    },
  };

  const up = await client.connect().then(
    () => true,
    () => false,
  );
  return { store, up };
}

function parseSettlement(message: string): Settlement | undefined {
  const [state, computedAt, name] = message.split(' ');
  if ((state !== 'filled' && state !== 'failed') || name === undefined) return undefined;
  return { name, filled: state === 'filled', computedAt: Number(computedAt) };
}
