/** Assembles a running service from settings: backend, registry, service. Used by `serve` and `run`. */
import { createDuckDbBackend } from './backends/duckdb.js';
import type { Backend } from './backends/types.js';
import type { Settings } from './config/settings.js';
import { BUILT_IN_SOURCES, sourceNames } from './config/sources.js';
import { loadRegistry } from './engine/registry.js';
import { createService, type Service } from './engine/service.js';

export async function openBackend(settings: Settings): Promise<Backend> {
  if (settings.backend === 'bigquery') {
    throw new Error('CANNERY_BACKEND=bigquery is not available in this build yet; use duckdb');
  }
  return createDuckDbBackend({
    path: settings.dbPath,
    sources: BUILT_IN_SOURCES,
    memoryLimit: settings.duckdbMemoryLimit,
    threads: settings.duckdbThreads,
  });
}

export async function openService(settings: Settings, clock?: () => Date): Promise<Service> {
  const backend = await openBackend(settings);
  try {
    const registry = await loadRegistry(settings.endpointsDir, { dialect: backend.dialect, sources: sourceNames(BUILT_IN_SOURCES) });
    return createService({ registry, backend, timeoutMs: settings.queryTimeoutMs, clock });
  } catch (error) {
    await backend.close();
    throw error;
  }
}
