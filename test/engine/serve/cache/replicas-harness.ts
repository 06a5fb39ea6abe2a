/**
 * Several services ("replicas") in this process, each with its own shared store connection to
 * one real Redis, its own in-process tier and its own registry, over one counting DuckDB backend
 * and one fake clock: what the cluster-wide cache tests drive. (test/cli/replicas.test.ts runs
 * the same over three `serve` processes.)
 */
import { rm } from 'node:fs/promises';
import { openRedisStore } from '../../../../src/stores/redis/redis-store.js';
import type { CacheSource } from '../../../../src/engine/serve/cache/read-through.js';
import { UNOBSERVED } from '../../../../src/engine/serve/observer.js';
import type { Registry } from '../../../../src/engine/serve/registry.js';
import { createService, type QueryOutcome, type Service } from '../../../../src/engine/serve/service.js';
import type { CountingBackend } from './counting-backend.js';
import { fakeTime, type FakeTime } from './fake-time.js';
import { testBed } from './harness.js';

export interface Replica {
  service: Service;
  /** Where each of its answers came from, in order. */
  sources: CacheSource[];
  /** Warming refreshes it ran, and whether each got a new result. */
  warmed: boolean[];
  /** Calls to the shared store that failed, by operation. */
  storeErrors: string[];
  logs: string[];
  query(idOrName: string, params?: [string, string][], options?: { redactPii?: boolean }): Promise<QueryOutcome>;
  close(): Promise<void>;
}

export interface Replicas {
  replicas: Replica[];
  backend: CountingBackend;
  time: FakeTime;
  /** Loads endpoint files as a replica's registry (another version, for one replica). */
  loadVersion(files: Record<string, string>): Promise<Registry>;
  /** Another replica on the same store and backend. */
  add(registry?: Registry): Promise<Replica>;
  close(): Promise<void>;
}

export async function startReplicas(options: { count: number; endpoints: Record<string, string>; redisUrl: string; prefix: string }): Promise<Replicas> {
  const { dir, backend, registry, load } = await testBed(options.endpoints);
  // Now, so that entries' execution times and the server's expiry agree.
  const time = fakeTime(new Date().toISOString());
  const replicas: Replica[] = [];

  const add = async (own = registry): Promise<Replica> => {
    const opened = await openRedisStore({ url: options.redisUrl, prefix: options.prefix, timeoutMs: 500 });
    const sources: CacheSource[] = [];
    const warmed: boolean[] = [];
    const storeErrors: string[] = [];
    const logs: string[] = [];
    const service = createService({
      registry: own,
      backend,
      timeoutMs: 10_000,
      clock: time.clock,
      timers: time.timers,
      cacheMaxBytes: 1 << 20,
      log: (message) => logs.push(message),
      observer: {
        ...UNOBSERVED,
        cacheAnswered: (_endpoint, source) => sources.push(source),
        warmed: (_endpoint, ok) => warmed.push(ok),
        sharedStoreError: (operation) => storeErrors.push(operation),
      },
      sharedCache: { ...opened, timeoutMs: 500 },
    });
    const replica: Replica = {
      service,
      sources,
      warmed,
      storeErrors,
      logs,
      query: async (idOrName, params = [], queryOptions = {}) => service.query(service.resolve(idOrName), params, queryOptions),
      close: () => service.close(),
    };
    replicas.push(replica);
    return replica;
  };

  for (let index = 0; index < options.count; index++) await add();
  // Each store's subscription is made before the test starts.
  await new Promise((resolve) => setTimeout(resolve, 50));
  return {
    replicas,
    backend,
    time,
    loadVersion: load,
    add,
    async close() {
      for (const replica of replicas) await replica.close();
      await backend.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
