/** The endpoints of a folder, compiled without a database (what `check` and `openapi` need). */
import { BUILT_IN_SOURCES, sourceNames } from '../config/sources.js';
import { loadRegistry, type Registry } from '../engine/registry.js';
import { duckDbDialect } from '../sql/duckdb/dialect.js';
import { sourceColumnsLookup } from '../sql/duckdb/shapes.js';

export function loadOfflineRegistry(dir: string): Promise<Registry> {
  const sources = sourceNames(BUILT_IN_SOURCES);
  return loadRegistry(dir, { dialect: duckDbDialect(sources, sourceColumnsLookup(BUILT_IN_SOURCES)), sources });
}
