/**
 * `cannery check`: the GitOps gate. Steps 1-3 of the pipeline for every file and every backend
 * (`--backend duckdb|bigquery|all`, default all), no database needed: an endpoint that cannot run
 * in production fails here, with the backend named.
 * Exit 0 or 1; `--format json` for scripts; on GitHub Actions (or `--format github`) problems
 * are also annotations shown next to the line in the pull request.
 */
import { readSettings } from '../config/settings.js';
import type { Command } from './commands.js';
import { dryRunEndpoints } from './dry-run.js';
import { BACKEND_CHOICES, loadOfflineRegistry, type BackendChoice } from './offline-registry.js';
import { formatProblem } from '../config/endpoint-file.js';
import { checkFormat, checkReport, githubAnnotation } from './problem-output.js';

export const checkCommand: Command = {
  options: { endpoints: { type: 'string' }, 'dry-run': { type: 'boolean' }, format: { type: 'string' }, backend: { type: 'string' } },
  async run(flags) {
    const format = checkFormat(flags.format);
    const dir = typeof flags.endpoints === 'string' ? flags.endpoints : readSettings().endpointsDir;
    const registry = await loadOfflineRegistry(dir, backendChoice(flags.backend));
    if (format === 'json') {
      console.log(checkReport(dir, registry));
    } else {
      const annotate = format === 'github' || process.env.GITHUB_ACTIONS === 'true';
      for (const problem of registry.problems) {
        if (format === 'text') console.log(formatProblem(problem));
        if (annotate) console.log(githubAnnotation(problem));
      }
    }
    const files = new Set(registry.problems.map((problem) => problem.file)).size;
    if (registry.problems.length) {
      console.error(`${registry.problems.length} problem(s) in ${files} file(s); ${registry.endpoints.length} endpoint(s) ok`);
      return 1;
    }
    console.error(`ok: ${registry.endpoints.length} endpoint(s) in ${dir}`);
    if (flags['dry-run']) {
      const failures = await dryRunEndpoints(registry.endpoints, readSettings());
      if (failures) console.error(`${failures} endpoint(s) failed the BigQuery dry run`);
      return failures ? 1 : 0;
    }
    return 0;
  },
};

function backendChoice(raw: string | boolean | undefined): BackendChoice {
  if (raw === undefined) return 'all';
  if (BACKEND_CHOICES.includes(raw as BackendChoice)) return raw as BackendChoice;
  throw new Error(`--backend must be ${BACKEND_CHOICES.join(', ')} (got "${String(raw)}")`);
}
