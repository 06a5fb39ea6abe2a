/**
 * `cannery diff [--base REF] [--endpoints DIR] [--sources DIR] [--format text|markdown] [--fail-on breaking]`:
 * what the working tree's endpoint and source files change against a commit (default: the merge
 * base with the default branch), and what each source change does to each endpoint. Exit 0; 1
 * with `--fail-on breaking` when a change is breaking; 2 when there is nothing to compare with.
 */
import { normalize } from 'node:path';
import { duckDbScratchEngine } from '../backends/duckdb/scratch.js';
import { parseEndpointFiles } from '../config/commit-endpoints.js';
import { readSettings } from '../config/settings.js';
import type { EndpointFolder } from '../config/endpoint-folder.js';
import type { SourceDeclaration } from '../config/source-declaration.js';
import { parseSourceFile } from '../config/source-files.js';
import { BUILT_IN_DECLARATIONS, BUILT_IN_SOURCES } from '../config/sources.js';
import type { Change } from '../engine/contracts/contract-diff.js';
import { createContractBook } from '../engine/contracts/contract.js';
import { diffEndpoints, type EndpointDiff } from '../engine/contracts/endpoint-diff.js';
import { diffSources, sourceReadChanges } from '../engine/contracts/source-diff.js';
import { compileRegistry, type Registry } from '../engine/serve/registry.js';
import { sourceColumnsLookup } from '../sql/analyse/shapes.js';
import type { Command, Flags } from './command.js';
import { breakingCount, diffMarkdown, diffText, type DiffReport } from './diff-report.js';
import { folderInRepository, GitProblem, locateInRepository, resolveBase, yamlTextsAt, type EndpointsInRepository } from './git.js';
import { loadOfflineEndpoints, scratchCompileContext } from './offline-registry.js';
import { projectSourcesFor } from './project-sources.js';
import { loadCheckedTests } from './test-files.js';

export const diffCommand: Command = {
  options: { base: { type: 'string' }, endpoints: { type: 'string' }, sources: { type: 'string' }, format: { type: 'string' }, 'fail-on': { type: 'string' } },
  async run(flags) {
    const format = flags.format ?? 'text';
    if (format !== 'text' && format !== 'markdown') throw new Error(`--format must be text or markdown (got "${String(format)}")`);
    const failOn = flags['fail-on'];
    if (failOn !== undefined && failOn !== 'breaking') throw new Error(`--fail-on must be breaking (got "${String(failOn)}")`);
    const dir = typeof flags.endpoints === 'string' ? flags.endpoints : readSettings().endpointsDir;

    let report: DiffReport;
    try {
      report = await compare(dir, flags, typeof flags.base === 'string' ? flags.base : undefined);
    } catch (error) {
      if (!(error instanceof GitProblem)) throw error;
      console.error(`cannery diff: ${error.message}`);
      return 2;
    }
    console.log(format === 'markdown' ? diffMarkdown(report) : diffText(report));
    return failOn === 'breaking' && breakingCount(report) > 0 ? 1 : 0;
  },
};

async function compare(dir: string, flags: Flags, requestedBase: string | undefined): Promise<DiffReport> {
  const where = await locateInRepository(dir);
  const base = await resolveBase(requestedBase, where.top);
  const project = await projectSourcesFor(flags, dir);
  const baseSources = await sourcesAt(base.commit, await folderInRepository(project.dir, where.top), project.sources);
  const texts = await yamlTextsAt(base.commit, where);
  const engine = duckDbScratchEngine(BUILT_IN_SOURCES, project.sources);
  const context = scratchCompileContext(engine, project.sources);
  // The base's endpoints read the base's sources.
  const baseContext = scratchCompileContext(duckDbScratchEngine(BUILT_IN_SOURCES, baseSources), baseSources);
  const before = compileRegistry(parseEndpointFiles(texts.map(({ path, text }) => ({ file: `${base.commit.slice(0, 7)}:${path}`, text }))), baseContext);
  const { folder, registry: after } = await loadOfflineEndpoints(dir, context);
  const testFiles = await loadCheckedTests(folder, context.sources);
  const sources = diffSources(baseSources, project.sources);
  const reads = sourceReadChanges(before.endpoints, sources, baseSources, sourceColumnsLookup(BUILT_IN_SOURCES, baseSources));
  const diffs = withSourceReads(await diffEndpoints(before, after, testFiles, engine, createContractBook(engine)), reads, before, folder);
  return { dir: normalize(dir), base, sources, diffs, problems: [...project.problems, ...after.problems, ...testFiles.flatMap((file) => file.problems)] };
}

/**
 * The project's own sources as `commit` holds them (`at`: their folder there), beside the shipped
 * ones as readProjectSources takes them; a file that does not load there is left out. Without a
 * folder in the repository, the base's sources are today's: nothing to compare.
 */
async function sourcesAt(commit: string, at: EndpointsInRepository | undefined, now: readonly SourceDeclaration[]): Promise<SourceDeclaration[]> {
  if (!at) return [...now];
  const texts = await yamlTextsAt(commit, at);
  return texts
    .map(({ path, text }) => parseSourceFile(text, `${commit.slice(0, 7)}:${path}`).declaration)
    .filter((declaration): declaration is SourceDeclaration => declaration !== undefined)
    .filter((declaration) => !BUILT_IN_DECLARATIONS.some((shipped) => shipped.name.toLowerCase() === declaration.name.toLowerCase()));
}

/**
 * Each endpoint's diff with what the source changes do to it: added to its own changes, or a diff
 * of its own when its file is unchanged. An endpoint the base had whose file is still there but
 * no longer compiles (it reads what is gone) is not "removed": it is broken by the sources.
 */
function withSourceReads(diffs: readonly EndpointDiff[], reads: ReadonlyMap<string, Change[]>, before: Registry, folder: EndpointFolder): EndpointDiff[] {
  const done = new Set<string>();
  const result = diffs.map((diff) => {
    const changes = reads.get(diff.name);
    if (!changes) return diff;
    done.add(diff.name);
    const old = before.find(diff.name);
    const still = diff.status === 'removed' ? folder.files.find((file) => file.definition !== undefined && file.definition.id === old?.definition.id) : undefined;
    if (still) return { name: diff.name, status: 'affected' as const, file: still.file, changes, rows: [] };
    return { ...diff, changes: [...changes, ...diff.changes] };
  });
  for (const [name, changes] of reads) {
    if (done.has(name)) continue;
    const file = folder.files.find((loaded) => loaded.definition?.name === name)?.file ?? before.find(name)!.file;
    result.push({ name, status: 'affected', file, changes, rows: [] });
  }
  return result;
}
