/** The set of compiled endpoints, found by UUID or by name. */
import { loadEndpointFolder } from '../config/endpoint-folder.js';
import { compileEndpoint, type CompileContext } from './compile.js';
import type { CompiledEndpoint, Problem } from './types.js';

export interface Registry {
  endpoints: readonly CompiledEndpoint[];
  /** Problems of files that did not compile; their endpoints are not served. */
  problems: readonly Problem[];
  find(idOrName: string): CompiledEndpoint | undefined;
}

export async function loadRegistry(dir: string, context: CompileContext): Promise<Registry> {
  const folder = await loadEndpointFolder(dir);
  const endpoints: CompiledEndpoint[] = [];
  const problems: Problem[] = [];
  for (const file of folder.files) {
    const outcome = compileEndpoint(file, context);
    if (outcome.endpoint) endpoints.push(outcome.endpoint);
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
  return {
    endpoints,
    problems,
    find: (idOrName) => byKey.get(UUID.test(idOrName) ? idOrName.toLowerCase() : idOrName),
  };
}
