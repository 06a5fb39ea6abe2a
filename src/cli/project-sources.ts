/** The project's own sources for a command: `--sources DIR`, else CANNERY_SOURCES, else `sources` beside the endpoint folder. */
import { readSettings, sourcesDirOf } from '../config/settings.js';
import { readProjectSources, type ProjectSources } from '../config/source-model.js';
import type { Flags } from './command.js';

export function projectSourcesFor(flags: Flags, endpointsDir: string): Promise<ProjectSources & { dir: string }> {
  const dir = typeof flags.sources === 'string' ? flags.sources : sourcesDirOf({ endpointsDir, sourcesDir: readSettings().sourcesDir });
  return readProjectSources(dir).then((project) => ({ ...project, dir }));
}
