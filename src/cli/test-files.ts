/** The endpoint test files of a folder, with every problem `cannery check` can find in them without running them. */
import type { EndpointFolder } from '../config/endpoint-folder.js';
import { checkEndpointTests } from '../config/endpoint-tests-check.js';
import { loadEndpointTests, type EndpointTestFile } from '../config/endpoint-tests-file.js';
import type { EndpointDefinition } from '../core/types.js';

/**
 * A file's problems include those of its requests against its endpoint, and its events' sources
 * against `sources` (every source an endpoint may read); such a file is not run.
 */
export async function loadCheckedTests(folder: EndpointFolder, sources: readonly string[]): Promise<EndpointTestFile[]> {
  const files = await loadEndpointTests(folder.dir);
  // Against every file that parsed, compiled or not: an endpoint whose SQL fails still exists.
  const definitions = folder.files.flatMap((file): EndpointDefinition[] => (file.definition ? [file.definition] : []));
  for (const problem of checkEndpointTests(files, definitions, sources)) files.find((file) => file.file === problem.file)?.problems.push(problem);
  return files;
}
