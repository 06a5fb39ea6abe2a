/** The set of compiled endpoints, found by UUID or by name. */
import { loadEndpointFolder, type LoadedEndpointFile } from '../config/endpoint-folder.js';
import { compileEndpoint, type CompileContext } from './compile.js';
import type { Problem } from '../core/types.js';
import type { CompiledEndpoint } from './compiled-endpoint.js';

export interface Registry {
  endpoints: readonly CompiledEndpoint[];
  /** Problems of files that did not compile; their endpoints are not served. */
  problems: readonly Problem[];
  find(idOrName: string): CompiledEndpoint | undefined;
}

/**
 * Loads and compiles every file of `dir`. On a reload, a file that now fails keeps serving
 * its last good version from `previous`: a typo in one file never takes its endpoint down.
 */
export async function loadRegistry(dir: string, context: CompileContext, previous?: Registry): Promise<Registry> {
  return compileRegistry((await loadEndpointFolder(dir)).files, context, previous);
}

/** Compiles endpoint files already loaded (from a folder, or from a commit by `cannery diff`). */
export function compileRegistry(files: readonly LoadedEndpointFile[], context: CompileContext, previous?: Registry): Registry {
  const endpoints: CompiledEndpoint[] = [];
  const problems: Problem[] = [];
  for (const file of files) {
    const outcome = compileEndpoint(file, context);
    const served = outcome.endpoint ?? previous?.endpoints.find((endpoint) => endpoint.file === file.file);
    if (served) endpoints.push(served);
    problems.push(...outcome.problems);
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
  // The last name found, and its endpoint: a run of requests for one endpoint compares the name
  // rather than hashing it for the map.
  let lastName = '';
  let lastFound: CompiledEndpoint | undefined;
  return {
    endpoints,
    problems,
    // A name, or an id as the files give it (lowercase), is found at once: this runs on every request.
    find(idOrName) {
      if (lastFound !== undefined && idOrName === lastName) return lastFound;
      const found = byKey.get(idOrName) ?? (UUID.test(idOrName) ? byKey.get(idOrName.toLowerCase()) : undefined);
      if (found !== undefined) {
        lastName = idOrName;
        lastFound = found;
      }
      return found;
    },
  };
}
