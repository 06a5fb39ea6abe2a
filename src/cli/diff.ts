/**
 * `cannery diff [--base REF] [--endpoints DIR] [--format text|markdown] [--fail-on breaking]`:
 * what the working tree's endpoint files change against a commit (default: the merge base with
 * the default branch). Exit 0; 1 with `--fail-on breaking` when a change is breaking; 2 when
 * there is nothing to compare with.
 */
import { normalize } from 'node:path';
import { duckDbScratchEngine } from '../backends/duckdb/scratch.js';
import { parseEndpointFiles } from '../config/commit-endpoints.js';
import { readSettings } from '../config/settings.js';
import { BUILT_IN_SOURCES } from '../config/sources.js';
import { createContractBook } from '../engine/contracts/contract.js';
import { diffEndpoints } from '../engine/contracts/endpoint-diff.js';
import { compileRegistry } from '../engine/serve/registry.js';
import type { Command } from './command.js';
import { breakingCount, diffMarkdown, diffText, type DiffReport } from './diff-report.js';
import { endpointTextsAt, GitProblem, locateInRepository, resolveBase } from './git.js';
import { loadOfflineEndpoints, scratchCompileContext } from './offline-registry.js';
import { loadCheckedTests } from './test-files.js';

export const diffCommand: Command = {
  options: { base: { type: 'string' }, endpoints: { type: 'string' }, format: { type: 'string' }, 'fail-on': { type: 'string' } },
  async run(flags) {
    const format = flags.format ?? 'text';
    if (format !== 'text' && format !== 'markdown') throw new Error(`--format must be text or markdown (got "${String(format)}")`);
    const failOn = flags['fail-on'];
    if (failOn !== undefined && failOn !== 'breaking') throw new Error(`--fail-on must be breaking (got "${String(failOn)}")`);
    const dir = typeof flags.endpoints === 'string' ? flags.endpoints : readSettings().endpointsDir;

    let report: DiffReport;
    try {
      report = await compare(dir, typeof flags.base === 'string' ? flags.base : undefined);
    } catch (error) {
      if (!(error instanceof GitProblem)) throw error;
      console.error(`cannery diff: ${error.message}`);
      return 2;
    }
    console.log(format === 'markdown' ? diffMarkdown(report) : diffText(report));
    return failOn === 'breaking' && breakingCount(report) > 0 ? 1 : 0;
  },
};

async function compare(dir: string, requestedBase: string | undefined): Promise<DiffReport> {
  const where = await locateInRepository(dir);
  const base = await resolveBase(requestedBase, where.top);
  const texts = await endpointTextsAt(base.commit, where);
  const engine = duckDbScratchEngine(BUILT_IN_SOURCES);
  const context = scratchCompileContext(engine);
  const before = compileRegistry(parseEndpointFiles(texts.map(({ path, text }) => ({ file: `${base.commit.slice(0, 7)}:${path}`, text }))), context);
  const { folder, registry: after } = await loadOfflineEndpoints(dir, context);
  const testFiles = await loadCheckedTests(folder, context.sources);
  const diffs = await diffEndpoints(before, after, testFiles, engine, createContractBook(engine));
  return { dir: normalize(dir), base, diffs, problems: [...after.problems, ...testFiles.flatMap((file) => file.problems)] };
}
