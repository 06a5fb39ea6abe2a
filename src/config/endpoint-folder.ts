/**
 * The endpoint folder: which of its files are endpoint files, and the rule across them (no two
 * share an id or a name). Reading a file's text is endpoint-text.ts's, parsing it endpoint-file.ts's;
 * the registry reads them through the compile cache (engine/serve/registry.ts). No YAML here: a
 * start whose files are all in the compile cache never loads the YAML and schema modules.
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { EndpointFileResult } from './endpoint-file.js';

export type LoadedEndpointFile = EndpointFileResult & { file: string };

export interface EndpointFolder {
  dir: string;
  /** One entry per `*.yaml` / `*.yml` file, sorted by file name. */
  files: LoadedEndpointFile[];
}

/** Whether a file name is a YAML file's, and not a dot file's (editor swap and backup files). */
export function isYamlFileName(name: string): boolean {
  return !name.startsWith('.') && /\.ya?ml$/.test(name);
}

/** The path of every `*.yaml` / `*.yml` file directly inside `dir`, sorted by file name. */
export async function listEndpointFiles(dir: string): Promise<string[]> {
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const reason =
      code === 'ENOENT' ? 'does not exist' : code === 'ENOTDIR' ? 'is not a folder' : `cannot be read (${(error as Error).message})`;
    throw new Error(`endpoint folder ${dir} ${reason}`, { cause: error });
  }
  return entries
    // Subfolders are not endpoints: tests/ holds the endpoint tests.
    .filter((entry) => !entry.isDirectory() && isYamlFileName(entry.name))
    .map((entry) => entry.name)
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
    .map((name) => join(dir, name));
}

/**
 * A file whose id or name an earlier file already uses gets a problem and loses its definition,
 * so the endpoints that remain can be resolved unambiguously by id or by name.
 */
export function rejectDuplicates(files: LoadedEndpointFile[]): void {
  const owners = { id: new Map<string, LoadedEndpointFile>(), name: new Map<string, LoadedEndpointFile>() };
  for (const entry of files) {
    const { definition } = entry;
    if (!definition) continue;
    for (const field of ['id', 'name'] as const) {
      const first = owners[field].get(definition[field]);
      if (!first) continue;
      entry.problems.push({
        file: entry.file,
        line: entry.fieldLines[field] ?? 1,
        field,
        message: `${field} ${definition[field]} is already used by ${first.file}:${first.fieldLines[field] ?? 1}`,
      });
    }
    if (entry.problems.length > 0) {
      delete entry.definition;
      continue;
    }
    owners.id.set(definition.id, entry);
    owners.name.set(definition.name, entry);
  }
}
