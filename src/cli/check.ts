/** `cannery check`: the GitOps gate. Steps 1-3 of the pipeline for every file, no database needed. */
import { formatProblem } from '../config/endpoint-file.js';
import { readSettings } from '../config/settings.js';
import { BUILT_IN_SOURCES, sourceNames } from '../config/sources.js';
import { loadRegistry } from '../engine/registry.js';
import { duckDbDialect } from '../sql/duckdb/dialect.js';
import { sourceColumnsLookup } from '../sql/duckdb/shapes.js';
import type { Command } from './commands.js';
import { dryRunEndpoints } from './dry-run.js';

export const checkCommand: Command = {
  options: { endpoints: { type: 'string' }, 'dry-run': { type: 'boolean' } },
  async run(flags) {
    const dir = typeof flags.endpoints === 'string' ? flags.endpoints : readSettings().endpointsDir;
    const sources = sourceNames(BUILT_IN_SOURCES);
    const dialect = duckDbDialect(sources, sourceColumnsLookup(BUILT_IN_SOURCES));
    const registry = await loadRegistry(dir, { dialect, sources });
    for (const problem of registry.problems) console.log(formatProblem(problem));
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
