/**
 * Where a project's source files are (`sources/*.yaml`, docs/sources.md): `--sources DIR`, else
 * CANNERY_SOURCES, else `sources/` beside the endpoint folder, as `cannery init` lays them out.
 */
import { dirname, join } from 'node:path';
import { loadSourceFolder } from '../config/source-files.js';
import { BUILT_IN_SOURCES, sourceNames } from '../config/sources.js';
import type { SourceDeclaration } from '../config/source-declaration.js';
import type { Flags } from './command.js';

export function sourcesDir(flags: Flags, endpointsDir: string): string {
  if (typeof flags.sources === 'string') return flags.sources;
  const fromEnvironment = process.env.CANNERY_SOURCES;
  if (fromEnvironment !== undefined && fromEnvironment !== '') return fromEnvironment;
  return join(dirname(endpointsDir), 'sources');
}

/**
 * The project's declared sources, but the log sources, whose tables keep their own layout
 * (source-tables.ts) even where a file declares them; a folder that does not exist declares none.
 */
export async function declaredSources(flags: Flags, endpointsDir: string): Promise<SourceDeclaration[]> {
  const logSources = new Set(sourceNames(BUILT_IN_SOURCES));
  return (await loadSourceFolder(sourcesDir(flags, endpointsDir))).filter((source) => !logSources.has(source.name));
}
