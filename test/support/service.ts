/**
 * A real cannery over a real socket: fixtures imported into a real DuckDB file with the
 * `import` code path, the real endpoints (or a temporary folder of them), the real h3 app.
 */
import { mkdtemp, rm, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { createAccess, type AccessOptions } from '../../src/access/access.js';
import { openDuckDb } from '../../src/backends/duckdb/backend.js';
import { readSettings } from '../../src/config/settings.js';
import { importNdjson } from '../../src/backends/duckdb/import/import.js';
import { seedDemoData, type SeedOptions } from '../../src/demo/seed.js';
import { createApp } from '../../src/http/app.js';
import type { ConsoleAssets } from '../../src/http/console.js';
import { createMetrics } from '../../src/http/metrics.js';
import { createLogger } from '../../src/core/logger.js';
import { listen } from '../../src/http/server.js';
import { openService } from '../../src/cli/open-service.js';
import { duckDbScratchEngine } from '../../src/backends/duckdb/scratch.js';
import { BUILT_IN_SOURCES } from '../../src/config/sources.js';
import type { SourceDeclaration } from '../../src/config/source-declaration.js';
import { createContractBook } from '../../src/engine/contracts/contract.js';
import type { Service } from '../../src/engine/serve/service.js';
import { SHIPPED_ENDPOINTS } from './shipped-endpoints.js';

export { SHIPPED_ENDPOINTS };

export const TEST_KEY = 'test-key-1';

export type Fixtures = Record<string, object[]>;

export interface TestService {
  url: string;
  service: Service;
  dir: string;
  get(path: string, headers?: Record<string, string>): Promise<Response>;
  /** GET with the test key; the parsed JSON body and the status. */
  call(path: string, headers?: Record<string, string>): Promise<{ status: number; body: any; response: Response }>;
  close(): Promise<void>;
}

export interface TestServiceOptions {
  fixtures?: Fixtures;
  /** Demo data from `cannery seed` (src/demo/seed.ts), written before the fixtures. */
  seed?: Pick<SeedOptions, 'edgeEvents' | 'now'>;
  /** Endpoint files by file name; when absent the shipped endpoints/ folder is served. */
  endpoints?: Record<string, string>;
  clock?: () => Date;
  timeoutMs?: number;
  /** Settings from the environment's names and values (CANNERY_LOG_LEVEL, CANNERY_CORS_ORIGINS, ...). */
  env?: Record<string, string>;
  /** Takes each request log line (default: none is written). */
  logLines?: (line: string) => void;
  /** The console's files (default: no console). */
  console?: ConsoleAssets;
  /** Scoped keys, tokens and the access clock, beside the unscoped TEST_KEY and `second-key`. */
  access?: Omit<AccessOptions, 'apiKeys'>;
  /** The declared sources the catalog types CTE columns from, as `serve` hands them over (default: none). */
  declaredSources?: () => readonly SourceDeclaration[];
}

export async function loadFixtures(dbPath: string, fixtures: Fixtures): Promise<void> {
  const instance = await openDuckDb({ path: dbPath });
  const connection = await instance.connect();
  try {
    for (const [source, events] of Object.entries(fixtures)) {
      const text = events.map((event) => JSON.stringify(event)).join('\n');
      await importNdjson(connection, source, Readable.from([text]));
    }
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

export async function seedFile(dbPath: string, options: Pick<SeedOptions, 'edgeEvents' | 'now'>): Promise<void> {
  const instance = await openDuckDb({ path: dbPath });
  const connection = await instance.connect();
  try {
    await seedDemoData(connection, options);
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

export async function writeEndpoints(dir: string, files: Record<string, string>): Promise<string> {
  await mkdir(dir, { recursive: true });
  for (const [name, text] of Object.entries(files)) await writeFile(join(dir, name), text);
  return dir;
}

export async function startTestService(options: TestServiceOptions = {}): Promise<TestService> {
  const dir = await mkdtemp(join(tmpdir(), 'cannery-test-'));
  const dbPath = join(dir, 'test.duckdb');
  if (options.seed) await seedFile(dbPath, options.seed);
  if (options.fixtures) await loadFixtures(dbPath, options.fixtures);
  const endpointsDir = options.endpoints ? await writeEndpoints(join(dir, 'endpoints'), options.endpoints) : SHIPPED_ENDPOINTS;
  const settings = { ...readSettings(options.env ?? {}), dbPath, endpointsDir, queryTimeoutMs: options.timeoutMs ?? 10_000 };
  const metrics = createMetrics();
  const service = await openService(settings, { clock: options.clock, observer: metrics.engine });
  const app = createApp({
    service,
    access: createAccess({ apiKeys: [TEST_KEY, 'second-key'], ...options.access }),
    metrics,
    logger: options.logLines ? createLogger(settings.logLevel, options.logLines) : createLogger('silent'),
    metricsPublic: settings.metricsPublic,
    corsOrigins: settings.corsOrigins,
    console: options.console,
    contracts: createContractBook(duckDbScratchEngine(BUILT_IN_SOURCES)),
    declaredSources: options.declaredSources,
  });
  const server = await listen(app, { port: 0, host: '127.0.0.1' });
  const get = (path: string, headers: Record<string, string> = {}) => fetch(server.url + path, { headers });
  return {
    url: server.url,
    service,
    dir,
    get,
    async call(path, headers = {}) {
      const response = await get(path, { 'x-api-key': TEST_KEY, ...headers });
      return { status: response.status, body: await response.json(), response };
    },
    async close() {
      await server.close();
      await service.close();
      await service.backend.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
