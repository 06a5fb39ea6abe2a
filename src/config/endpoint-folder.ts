import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { loadEndpointFile, parseEndpointFile } from './endpoint-file.js';
import type { EndpointFileResult } from './endpoint-file.js';

export type LoadedEndpointFile = EndpointFileResult & { file: string };

export interface EndpointFolder {
  dir: string;
  /** One entry per `*.yaml` / `*.yml` file, sorted by file name. */
  files: LoadedEndpointFile[];
}

/**
 * Loads every endpoint file directly inside `dir`. Problems stay with their file; a file whose
 * id or name an earlier file already uses gets a problem and loses its definition, so the
 * endpoints that remain can be resolved unambiguously by id or by name.
 */
export async function loadEndpointFolder(dir: string): Promise<EndpointFolder> {
  const names = await listEndpointFiles(dir);
  const files = await Promise.all(
    names.map(async (name): Promise<LoadedEndpointFile> => {
      const file = join(dir, name);
      return { file, ...(await loadEndpointFile(file)) };
    }),
  );
  rejectDuplicates(files);
  return { dir, files };
}

/** Endpoint files from their texts (as a commit holds them), checked as a folder is. */
export function parseEndpointFiles(texts: readonly { file: string; text: string }[]): LoadedEndpointFile[] {
  const files = texts.map(({ file, text }) => ({ file, ...parseEndpointFile(text, file) }));
  rejectDuplicates(files);
  return files;
}

/** Whether a file name is a YAML file's, and not a dot file's (editor swap and backup files). */
export function isYamlFileName(name: string): boolean {
  return !name.startsWith('.') && /\.ya?ml$/.test(name);
}

async function listEndpointFiles(dir: string): Promise<string[]> {
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
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

function rejectDuplicates(files: LoadedEndpointFile[]): void {
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
