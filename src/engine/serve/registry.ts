/** The set of compiled endpoints, found by UUID or by name. */
import { listEndpointFiles, rejectDuplicates, type EndpointFolder, type LoadedEndpointFile } from '../../config/endpoint-folder.js';
import { readEndpointText } from '../../config/endpoint-text.js';
import { compileEndpoint, type CompileContext } from '../compile/compile.js';
import type { FileCompile } from '../compile/file.js';
import { compileTexts, type CompileFolderOptions, type LoadStats } from '../compile/folder.js';
import type { Problem } from '../../core/types.js';
import type { CompiledEndpoint } from '../compiled-endpoint.js';

export interface Registry {
  endpoints: readonly CompiledEndpoint[];
  /** Problems of files that did not compile; their endpoints are not served. */
  problems: readonly Problem[];
  /** How the load that made it went (none for a registry made of given endpoints). */
  stats?: LoadStats;
  find(idOrName: string): CompiledEndpoint | undefined;
}

export type LoadOptions = CompileFolderOptions;

/**
 * Loads and compiles every file of `dir`, through the compile cache and worker threads of
 * `options`; the files are read while `context` is on its way (its backend opening). On a
 * reload, a file that now fails keeps serving its last good version from `previous`: a typo in
 * one file never takes its endpoint down.
 */
export async function loadRegistry(dir: string, context: CompileContext | Promise<CompileContext>, previous?: Registry, options: LoadOptions = {}): Promise<Registry> {
  return (await loadEndpoints(dir, context, previous, options)).registry;
}

/** As loadRegistry, with the folder as loaded too (every file that parsed has its definition: what endpoint tests are checked against). */
export async function loadEndpoints(dir: string, context: CompileContext | Promise<CompileContext>, previous?: Registry, options: LoadOptions = {}): Promise<{ folder: EndpointFolder; registry: Registry }> {
  // Awaited once the files are read: a context that fails meanwhile is no unhandled rejection.
  if (context instanceof Promise) context.catch(() => undefined);
  const texts = await Promise.all((await listEndpointFiles(dir)).map(readEndpointText));
  const { results, stats } = await compileTexts(texts, context, options);
  const files = results.map((result) => result.loaded);
  rejectDuplicates(files);
  return { folder: { dir, files }, registry: { ...registryOf(results, previous), stats } };
}

/** Compiles endpoint files already loaded (from a commit by `cannery diff`). */
export function compileRegistry(files: readonly LoadedEndpointFile[], context: CompileContext, previous?: Registry): Registry {
  return registryOf(files.map((loaded) => ({ loaded, outcome: loaded.problems.length > 0 ? undefined : compileEndpoint(loaded, context) })), previous);
}

function registryOf(results: readonly FileCompile[], previous: Registry | undefined): Registry {
  const endpoints: CompiledEndpoint[] = [];
  const problems: Problem[] = [];
  for (const { loaded, outcome } of results) {
    const failed = loaded.problems.length > 0 ? loaded.problems : (outcome?.problems ?? []);
    const served = (failed.length === 0 ? outcome?.endpoint : undefined) ?? previous?.endpoints.find((endpoint) => endpoint.file === loaded.file);
    if (served) endpoints.push(served);
    problems.push(...failed);
  }
  return createRegistry(endpoints, problems);
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function createRegistry(endpoints: CompiledEndpoint[], problems: Problem[] = []): Registry {
  const byKey = new Map<string, CompiledEndpoint>();
  for (const endpoint of endpoints) {
    // UUIDs are case-insensitive; names are matched exactly.
    byKey.set(endpoint.definition.id.toLowerCase(), endpoint);
    byKey.set(endpoint.definition.name, endpoint);
  }
  return {
    endpoints,
    problems,
    // A name, or an id as the files give it (lowercase), is found at once: this runs on every request.
    find(idOrName) {
      return byKey.get(idOrName) ?? (UUID.test(idOrName) ? byKey.get(idOrName.toLowerCase()) : undefined);
    },
  };
}
