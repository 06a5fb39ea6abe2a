/**
 * A service over the real DuckDB backend, wrapped in a counting backend, with endpoints from a
 * temporary folder and a fake clock and timers: what the cache tests drive.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDuckDbBackend } from '../../../../src/backends/duckdb/backend.js';
import { BUILT_IN_SOURCES, sourceNames } from '../../../../src/config/sources.js';
import { loadRegistry, type Registry } from '../../../../src/engine/serve/registry.js';
import { createService, type QueryOutcome, type Service } from '../../../../src/engine/serve/service.js';
import { endpointText } from '../../../support/endpoint-text.js';
import { writeEndpoints } from '../../../support/service.js';
import { countingBackend, type CountingBackend } from './counting-backend.js';
import { fakeTime, type FakeTime } from './fake-time.js';

/** An endpoint file like endpointText's, with its `cache` and `redact_pii` settings. */
export function cachedEndpoint(name: string, cache: string, params: string[], query: string[], redactPii = false): string {
  const text = endpointText(name, params, query).replace('cache: false', `cache: ${cache}`);
  return redactPii ? text.replace('redact_pii: false', 'redact_pii: true') : text;
}

/** Edge events of project p1, one per id, a minute apart from 10:00 on 2024-05-01, each with an IPv4 address in its message. */
export function edgeEventsOf(ids: string[]): object[] {
  return ids.map((id, index) => ({
    id,
    timestamp: `2024-05-01T10:0${index}:00Z`,
    event_message: `GET /rest/v1/t from 203.0.113.${index + 7}`,
    project: 'p1',
    metadata: { request: { path: '/rest/v1/t' } },
  }));
}

export interface Harness {
  service: Service;
  backend: CountingBackend;
  time: FakeTime;
  /** Messages the service logged. */
  logs: string[];
  /** Runs endpoint `idOrName` with `params` (pairs, in the order given). */
  query(idOrName: string, params?: [string, string][], options?: { redactPii?: boolean }): Promise<QueryOutcome>;
  /** Loads another version of the endpoint files, for the same backend. */
  loadVersion(files: Record<string, string>): Promise<Registry>;
  close(): Promise<void>;
}

export interface HarnessOptions {
  endpoints: Record<string, string>;
  maxBytes?: number;
  warmConcurrency?: number;
}

/** What the cache tests stand on: a temporary folder, the counting DuckDB backend, and endpoint files loaded. */
export interface TestBed {
  dir: string;
  backend: CountingBackend;
  registry: Registry;
  /** Loads another version of the endpoint files, for the same backend. */
  load(files: Record<string, string>): Promise<Registry>;
}

export async function testBed(endpoints: Record<string, string>): Promise<TestBed> {
  const dir = await mkdtemp(join(tmpdir(), 'cannery-cache-'));
  const inner = await createDuckDbBackend({ path: join(dir, 'test.duckdb') });
  const backend = countingBackend(inner);
  let versions = 0;
  const load = async (files: Record<string, string>) =>
    loadRegistry(await writeEndpoints(join(dir, `endpoints-${versions++}`), files), { dialect: inner.dialect, sources: sourceNames(BUILT_IN_SOURCES) });
  const registry = await load(endpoints);
  if (registry.problems.length) throw new Error(`endpoint problems: ${JSON.stringify(registry.problems)}`);
  return { dir, backend, registry, load };
}

export async function startHarness(options: HarnessOptions): Promise<Harness> {
  const { dir, backend, registry, load } = await testBed(options.endpoints);
  const time = fakeTime();
  const logs: string[] = [];
  const service = createService({
    registry,
    backend,
    timeoutMs: 10_000,
    clock: time.clock,
    timers: time.timers,
    cacheMaxBytes: options.maxBytes ?? 1 << 20,
    warmConcurrency: options.warmConcurrency ?? 4,
    log: (message) => logs.push(message),
  });
  return {
    service,
    backend,
    time,
    logs,
    query: async (idOrName, params = [], queryOptions = {}) => service.query(service.resolve(idOrName), params, queryOptions),
    loadVersion: load,
    async close() {
      await service.close();
      await backend.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

export const text = (outcome: QueryOutcome) => Buffer.from(outcome.body).toString('utf8');
