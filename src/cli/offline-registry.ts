/**
 * The endpoints of a folder, compiled without a database (what `check`, `test`, `openapi` and the
 * benchmarks need): for the DuckDB dialect, and for each other backend `check` gates.
 */
import { declaredTables, readBigQuerySettings } from '../config/bigquery-settings.js';
import type { SourceDeclaration } from '../config/source-declaration.js';
import { BUILT_IN_SOURCES, sourceNames } from '../config/sources.js';
import type { EndpointFolder } from '../config/endpoint-folder.js';
import type { ScratchEngine } from '../engine/backend.js';
import type { CompileContext } from '../engine/compile/compile.js';
import { loadEndpoints, loadRegistry, type LoadOptions, type Registry } from '../engine/serve/registry.js';
import { bigQueryDialect } from '../sql/dialects/bigquery/dialect.js';
import { sourceTables } from '../sql/dialects/bigquery/tables.js';
import { duckDbDialect } from '../sql/dialects/duckdb/dialect.js';
import type { Dialect } from '../sql/generator/dialect.js';
import type { DialectName } from '../sql/language.js';
import { sourceColumnsLookup } from '../sql/analyse/shapes.js';

export type BackendChoice = DialectName | 'all';

export const BACKEND_CHOICES: readonly BackendChoice[] = ['all', 'duckdb', 'bigquery'];

/** Every source name an endpoint may read: the log sources', then the project's declared ones. */
export function allSourceNames(declared: readonly SourceDeclaration[] = []): string[] {
  return [...sourceNames(BUILT_IN_SOURCES), ...declared.map((declaration) => declaration.name)];
}

function offlineDialect(name: DialectName, declared: readonly SourceDeclaration[]): Dialect {
  const sources = allSourceNames(declared);
  if (name === 'duckdb') return duckDbDialect(sources, { sourceColumns: sourceColumnsLookup(BUILT_IN_SOURCES, declared) });
  // Table paths change only the text, not whether a query compiles: the settings' where given.
  const settings = readBigQuerySettings(process.env, false);
  const project = settings.project ?? 'project';
  return bigQueryDialect(sourceTables(sources, { project, dataset: settings.dataset ?? 'dataset' }, declaredTables(settings, declared)));
}

/**
 * Compiles for each backend of `backends` (default: all), reporting any backend's problem; endpoints
 * keep the first one's SQL. `declared`: the project's own sources (readProjectSources). Every
 * column and field an endpoint reads is checked against the sources' declarations.
 */
export function offlineCompileContext(backends: BackendChoice = 'all', declared: readonly SourceDeclaration[] = []): CompileContext {
  const names: DialectName[] = backends === 'all' ? ['duckdb', 'bigquery'] : [backends];
  const [served, ...others] = names.map((name) => offlineDialect(name, declared));
  return { dialect: served!, alsoCheck: others, sources: allSourceNames(declared), columns: sourceColumnsLookup(BUILT_IN_SOURCES, declared) };
}

/** Endpoints compiled to run on `engine`'s scratch databases (what `test` and `diff` run them on). */
export function scratchCompileContext(engine: ScratchEngine, declared: readonly SourceDeclaration[] = []): CompileContext {
  return { dialect: engine.dialect, sources: allSourceNames(declared), columns: sourceColumnsLookup(BUILT_IN_SOURCES, declared) };
}

/** The folder as loaded (every file that parsed has its definition) and the registry compiled from it. */
export function loadOfflineEndpoints(dir: string, context = offlineCompileContext(), load: LoadOptions = {}): Promise<{ folder: EndpointFolder; registry: Registry }> {
  return loadEndpoints(dir, context, undefined, load);
}

/**
 * Compiles every file of `dir` for each backend of `backends` (default: all), reporting any
 * backend's problem; through the compile cache and threads of `load`.
 */
export function loadOfflineRegistry(dir: string, backends: BackendChoice = 'all', load: LoadOptions = {}, declared: readonly SourceDeclaration[] = []): Promise<Registry> {
  return loadRegistry(dir, offlineCompileContext(backends, declared), undefined, load);
}
