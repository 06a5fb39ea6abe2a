/**
 * A command's declared sources (`sources/*.yaml`, docs/sources.md): `--sources DIR`, else
 * CANNERY_SOURCES, else `sources/` beside the endpoint folder, as `cannery init` lays them out.
 */
import { SourceFolderError } from '../config/source-files.js';
import type { SourceDeclaration } from '../config/source-declaration.js';
import type { Flags } from './command.js';
import { projectSourcesFor } from './project-sources.js';

/**
 * The project's own declared sources, without the shipped log sources (whose tables keep their own
 * layout); a folder that does not exist declares none, and a file with a problem is refused.
 */
export async function declaredSources(flags: Flags, endpointsDir: string): Promise<SourceDeclaration[]> {
  const { sources, problems } = await projectSourcesFor(flags, endpointsDir);
  if (problems.length > 0) throw new SourceFolderError(problems);
  return sources;
}
