/**
 * A cannery over a real socket, built piece by piece for what the shipped wiring cannot show:
 * the real DuckDB backend wrapped to count, hold and fail its queries, fake time driving cache
 * expiry and warming, small query limits, and the request log captured line by line.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDuckDbBackend } from '../../src/backends/duckdb/backend.js';
import type { Backend } from '../../src/engine/backend.js';
import { loadRegistry } from '../../src/engine/serve/registry.js';
import { createService, type Service } from '../../src/engine/serve/service.js';
import { createApp } from '../../src/http/app.js';
import { createMetrics } from '../../src/http/metrics.js';
import { listen } from '../../src/http/server.js';
import { createLogger } from '../../src/core/logger.js';
import { compileContextFor } from '../../src/cli/open-service.js';
import { countingBackend, type CountingBackend } from '../engine/serve/cache/counting-backend.js';
import { fakeTime, type FakeTime } from '../engine/serve/cache/fake-time.js';
import { loadFixtures, TEST_KEY, writeEndpoints, type Fixtures } from './service.js';
import { parsePrometheusText, type Samples } from './prometheus-text.js';

export interface OpsServiceOptions {
  endpoints: Record<string, string>;
  fixtures?: Fixtures;
  maxConcurrentQueries?: number;
  maxQueuedQueries?: number;
  /** Replaces the counting backend's answers (say, with a failure that is a bug). */
  wrap?: (backend: Backend) => Backend;
}

export interface OpsService {
  url: string;
  service: Service;
  backend: CountingBackend;
  time: FakeTime;
  /** Every request log line so far, parsed. */
  logs: any[];
  /** A request with the test key (unless `headers` gives another). */
  send(path: string, init?: RequestInit): Promise<Response>;
  /** GET /metrics, parsed. */
  metrics(): Promise<Samples>;
  close(): Promise<void>;
}

export async function startOpsService(options: OpsServiceOptions): Promise<OpsService> {
  const dir = await mkdtemp(join(tmpdir(), 'cannery-ops-'));
  const dbPath = join(dir, 'test.duckdb');
  if (options.fixtures) await loadFixtures(dbPath, options.fixtures);
  const inner = await createDuckDbBackend({ path: dbPath });
  const backend = countingBackend(inner);
  const registry = await loadRegistry(await writeEndpoints(join(dir, 'endpoints'), options.endpoints), compileContextFor(inner));
  if (registry.problems.length) throw new Error(`endpoint problems: ${JSON.stringify(registry.problems)}`);
  const time = fakeTime();
  const metrics = createMetrics();
  const service = createService({
    registry,
    backend: options.wrap ? options.wrap(backend) : backend,
    timeoutMs: 10_000,
    clock: time.clock,
    timers: time.timers,
    maxConcurrentQueries: options.maxConcurrentQueries,
    maxQueuedQueries: options.maxQueuedQueries,
    observer: metrics.engine,
    // Failed refreshes the tests cause on purpose; the metrics and the answers show them.
    log: () => {},
  });
  const logs: any[] = [];
  const logger = createLogger('debug', (line) => logs.push(JSON.parse(line)));
  const server = await listen(createApp({ service, apiKeys: [TEST_KEY], metrics, logger }), { port: 0, host: '127.0.0.1' });
  const send = (path: string, init: RequestInit = {}) =>
    fetch(server.url + path, { ...init, headers: { 'x-api-key': TEST_KEY, ...(init.headers as Record<string, string>) } });
  return {
    url: server.url,
    service,
    backend,
    time,
    logs,
    send,
    async metrics() {
      const response = await send('/metrics');
      if (response.status !== 200) throw new Error(`/metrics: ${response.status} ${await response.text()}`);
      return parsePrometheusText(await response.text());
    },
    async close() {
      await server.close();
      await service.close();
      await backend.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
