/**
 * The sources a project declares (its source folder) beside the shipped log sources: what name
 * resolution, the dialects and the BigQuery table mapping read. The shipped ones come first and
 * cannot be declared again; a project folder that holds a shipped file unchanged (this repository's
 * own sources/) is the same declaration, not a second one.
 */
import { isDeepStrictEqual } from 'node:util';
import type { Problem } from '../core/types.js';
import type { SourceDeclaration } from './source-declaration.js';
import { readSourceFolder } from './source-files.js';
import { BUILT_IN_DECLARATIONS, sourceId } from './sources.js';

export interface ProjectSources {
  /** The project's own declarations, without the shipped log sources, by file name. */
  sources: SourceDeclaration[];
  /** Every problem of the folder's files, each at its file and line. */
  problems: Problem[];
  /** The line of each declaration's `name` and of each column and nested field (SourceFileResult.fieldLines), by source name. */
  fieldLines: ReadonlyMap<string, Readonly<Record<string, number>>>;
}

/**
 * Reads `dir` (a folder that does not exist declares nothing) and refuses a redeclared shipped
 * source, and a UUID that another source has too (Logflare's `source=` must name one source).
 */
export async function readProjectSources(dir: string): Promise<ProjectSources> {
  const folder = await readSourceFolder(dir);
  const sources: SourceDeclaration[] = [];
  const problems = [...folder.problems];
  for (const declaration of folder.sources) {
    const shipped = BUILT_IN_DECLARATIONS.find((built) => built.name.toLowerCase() === declaration.name.toLowerCase());
    if (!shipped) {
      sources.push(declaration);
      continue;
    }
    // A shipped source's UUID is fixed in code, not in its file.
    if (isDeepStrictEqual({ ...declaration, file: undefined, id: undefined }, { ...shipped, file: undefined, id: undefined })) continue;
    problems.push({
      file: declaration.file ?? dir,
      line: folder.fieldLines.get(declaration.name)?.name ?? 1,
      field: 'name',
      message: `source ${declaration.name} is a shipped log source (${shipped.name}); name your own source otherwise`,
    });
  }
  const owners = new Map(BUILT_IN_DECLARATIONS.map((shipped) => [sourceId(shipped), shipped.name]));
  for (const declaration of sources) {
    const id = sourceId(declaration);
    const owner = owners.get(id);
    if (owner === undefined) {
      owners.set(id, declaration.name);
      continue;
    }
    problems.push({
      file: declaration.file ?? dir,
      line: folder.fieldLines.get(declaration.name)?.name ?? 1,
      field: 'id',
      message: `source ${declaration.name} has the id ${id} of source ${owner}; give each source its own UUID`,
    });
  }
  return { sources, problems, fieldLines: folder.fieldLines };
}
