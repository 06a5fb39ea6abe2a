/**
 * `cannery check`: the GitOps gate. Steps 1-3 of the pipeline for every file and every backend
 * (`--backend duckdb|bigquery|all`, default all), no database needed: an endpoint that cannot run
 * in production fails here, with the backend named. The endpoint test files are checked against
 * the endpoints they test.
 * Exit 0 or 1; `--format json` for scripts; on GitHub Actions (or `--format github`) problems
 * are also annotations shown next to the line in the pull request.
 */
import { readSettings } from '../config/settings.js';
import type { Command } from './command.js';
import { dryRunOnBigQuery } from './dry-run.js';
import { BACKEND_CHOICES, loadOfflineEndpoints, offlineCompileContext, type BackendChoice } from './offline-registry.js';
import { formatProblem } from '../config/problem-line.js';
import { loadOptionsFor } from './load-options.js';
import { checkFormat, checkReport, githubAnnotation } from './problem-output.js';
import { projectSourcesFor } from './project-sources.js';
import { loadCheckedTests } from './test-files.js';

export const checkCommand: Command = {
  options: { endpoints: { type: 'string' }, sources: { type: 'string' }, 'dry-run': { type: 'boolean' }, format: { type: 'string' }, backend: { type: 'string' } },
  async run(flags) {
    const format = checkFormat(flags.format);
    const dir = typeof flags.endpoints === 'string' ? flags.endpoints : readSettings().endpointsDir;
    const project = await projectSourcesFor(flags, dir);
    const context = offlineCompileContext(backendChoice(flags.backend), project.sources);
    const { folder, registry } = await loadOfflineEndpoints(dir, context, await loadOptionsFor(readSettings()));
    const testFiles = await loadCheckedTests(folder, context.sources);
    const problems = [...project.problems, ...registry.problems, ...testFiles.flatMap((file) => file.problems)];
    if (format === 'json') {
      console.log(checkReport(dir, registry, problems, testFiles));
    } else {
      const annotate = format === 'github' || process.env.GITHUB_ACTIONS === 'true';
      for (const problem of problems) {
        if (format === 'text') console.log(formatProblem(problem));
        if (annotate) console.log(githubAnnotation(problem));
      }
    }
    const files = new Set(problems.map((problem) => problem.file)).size;
    if (problems.length) {
      console.error(`${problems.length} problem(s) in ${files} file(s); ${registry.endpoints.length} endpoint(s) ok`);
      return 1;
    }
    const tests = testFiles.reduce((sum, file) => sum + file.tests.length, 0);
    console.error(`ok: ${registry.endpoints.length} endpoint(s) and ${tests} test(s) in ${testFiles.length} test file(s) in ${dir}`);
    if (flags['dry-run']) {
      const { differences, failures } = await dryRunOnBigQuery(registry.endpoints, project, readSettings());
      if (differences) console.error(`${differences} difference(s) between the declared sources and their BigQuery tables`);
      if (failures) console.error(`${failures} endpoint(s) failed the BigQuery dry run`);
      return differences || failures ? 1 : 0;
    }
    return 0;
  },
};

function backendChoice(raw: string | boolean | undefined): BackendChoice {
  if (raw === undefined) return 'all';
  if (BACKEND_CHOICES.includes(raw as BackendChoice)) return raw as BackendChoice;
  throw new Error(`--backend must be ${BACKEND_CHOICES.join(', ')} (got "${String(raw)}")`);
}
