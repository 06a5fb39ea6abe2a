/** Assembles a running service from settings: backend, registry, service. Used by `serve` and `run`. */
import type { Backend } from '../engine/backend.js';
import type { DuckDbBackend } from '../backends/duckdb/backend.js';
import { sourcesDirOf, type Settings } from '../config/settings.js';
import { SourceFolderError } from '../config/source-files.js';
import { readProjectSources } from '../config/source-model.js';
import { BUILT_IN_SOURCES, sourceNames } from '../config/sources.js';
import type { SourceDeclaration } from '../config/source-declaration.js';
import type { CompileContext } from '../engine/compile/compile.js';
import type { EngineObserver } from '../engine/serve/observer.js';
import { loadRegistry, type LoadOptions } from '../engine/serve/registry.js';
import { loadOptionsFor } from './load-options.js';
import { createService, type Service, type SharedCacheSettings } from '../engine/serve/service.js';

/** The backend of the settings; only its own modules are loaded (the BigQuery client takes ~100 ms). */
export async function openBackend(settings: Settings, declared: readonly SourceDeclaration[] = []): Promise<Backend> {
  if (settings.backend === 'bigquery') {
    const { bigQueryBackendOptions, createBigQueryBackend } = await import('../backends/bigquery/backend.js');
    // The project's declared sources are tables in BigQuery too, mapped by name or their own `bigquery.table`.
    return createBigQueryBackend(bigQueryBackendOptions(settings.bigquery, sourceNames(BUILT_IN_SOURCES), declared));
  }
  return openDuckDbBackend(settings, false, declared);
}

/** The project's declared sources (sources/ beside the endpoint folder, or CANNERY_SOURCES). */
export async function projectSources(settings: Settings): Promise<SourceDeclaration[]> {
  const { sources, problems } = await readProjectSources(sourcesDirOf(settings));
  if (problems.length > 0) throw new SourceFolderError(problems);
  return sources;
}

/**
 * The DuckDB backend of the settings; `writable` for the demo database, which serve keeps current,
 * and for ingest, whose writer stages events in `stagingDirectory`.
 */
export async function openDuckDbBackend(
  settings: Settings,
  writable = false,
  declared: readonly SourceDeclaration[] = [],
  stagingDirectory?: string,
): Promise<DuckDbBackend> {
  const { createDuckDbBackend } = await import('../backends/duckdb/backend.js');
  return createDuckDbBackend({
    writable,
    ...(stagingDirectory === undefined ? {} : { stagingDirectory }),
    path: settings.dbPath,
    sources: BUILT_IN_SOURCES,
    declared,
    memoryLimit: settings.duckdbMemoryLimit,
    threads: settings.duckdbThreads,
    connections: settings.maxConcurrentQueries,
    notice: (message) => console.error(`cannery: ${message}`),
  });
}

/**
 * How endpoint files are compiled for a backend, at start-up and on every reload: over the sources
 * its dialect knows, the log sources and those the project declared.
 */
export function compileContextFor(backend: Backend): CompileContext {
  const { settings } = backend.dialect;
  return { dialect: backend.dialect, sources: settings.name === 'duckdb' ? settings.sources : settings.tables.map(([name]) => name) };
}

export interface OpenServiceOptions {
  /** How the endpoint files are loaded (default: loadOptionsFor the settings). */
  load?: LoadOptions;
  /** Injectable for tests: execution times, and the cache's clock. */
  clock?: () => Date;
  /** Told about backend queries and cache warming (the metrics' engine observer). */
  observer?: EngineObserver;
  /** The project's declared sources (default: projectSources of the settings). */
  declared?: readonly SourceDeclaration[];
  /** The backend to serve from, opened by the caller (default: openBackend of the settings). */
  backend?: Backend;
}

/** CANNERY_NOW's clock: the same instant at every call. */
function fixedClock(now: Date): () => Date {
  return () => new Date(now.getTime());
}

/** The shared cache store of CANNERY_CACHE_URL; one that does not answer yet is used once it does. */
async function openSharedCache(settings: Settings): Promise<SharedCacheSettings | undefined> {
  if (settings.cacheUrl === undefined) return undefined;
  const { openRedisStore } = await import('../stores/redis/redis-store.js');
  const opened = await openRedisStore({ url: settings.cacheUrl, prefix: settings.cachePrefix, timeoutMs: settings.cacheTimeoutMs });
  if (!opened.up) console.error('cannery: the shared cache store (CANNERY_CACHE_URL) does not answer; serving from the in-process cache until it does');
  return { ...opened, timeoutMs: settings.cacheTimeoutMs };
}

export async function openService(settings: Settings, options: OpenServiceOptions = {}): Promise<Service> {
  const load = options.load ?? (await loadOptionsFor(settings));
  const declared = options.declared ?? (await projectSources(settings));
  const opening = options.backend ? Promise.resolve(options.backend) : openBackend(settings, declared);
  // The endpoint files are read, and the compiler loaded, while the database opens.
  const loading = loadRegistry(settings.endpointsDir, opening.then(compileContextFor), undefined, load);
  loading.catch(() => undefined); // awaited below, once the backend is open (or its failure is thrown)
  const backend = await opening;
  let sharedCache: SharedCacheSettings | undefined;
  try {
    sharedCache = await openSharedCache(settings);
    const registry = await loading;
    return createService({
      registry,
      backend,
      timeoutMs: settings.queryTimeoutMs,
      clock: options.clock ?? (settings.now && fixedClock(settings.now)),
      cacheMaxBytes: settings.cacheMaxBytes,
      maxResultBytes: settings.maxResultBytes,
      sandbox: { threads: settings.sandboxThreads, budgetMs: settings.sandboxCompileMs },
      maxConcurrentQueries: settings.maxConcurrentQueries,
      maxQueuedQueries: settings.maxQueuedQueries,
      observer: options.observer,
      sharedCache,
    });
  } catch (error) {
    await sharedCache?.store.close();
    await backend.close();
    throw error;
  }
}
