/**
 * `cannery test [--endpoints DIR] [--filter TEXT] [--format text|github] [--junit FILE] [--update]`:
 * runs the endpoint tests in DIR/tests, each on a fresh in-memory DuckDB. Exit 1 on any failure
 * or problem in a test file (or an endpoint file); with --update, on a failure it could not rewrite.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { duckDbScratchEngine } from '../backends/duckdb/scratch.js';
import { formatProblem } from '../config/problem-line.js';
import { TESTS_FOLDER } from '../config/endpoint-tests-file.js';
import { readSettings } from '../config/settings.js';
import { BUILT_IN_SOURCES } from '../config/sources.js';
import { runEndpointTests } from '../engine/testing/run-files.js';
import type { Command } from './command.js';
import { loadOfflineEndpoints, scratchCompileContext } from './offline-registry.js';
import { githubAnnotation } from './problem-output.js';
import { declaredSources } from './source-folder.js';
import { loadCheckedTests } from './test-files.js';
import { failureAnnotation, junitXml, resultText, summaryText } from './test-report.js';
import { updateFailingTests } from './test-update.js';

export const testCommand: Command = {
  options: { endpoints: { type: 'string' }, sources: { type: 'string' }, filter: { type: 'string' }, format: { type: 'string' }, junit: { type: 'string' }, update: { type: 'boolean' } },
  async run(flags) {
    const format = flags.format ?? 'text';
    if (format !== 'text' && format !== 'github') throw new Error(`--format must be text or github (got "${String(format)}")`);
    const annotate = format === 'github' || process.env.GITHUB_ACTIONS === 'true';
    const dir = typeof flags.endpoints === 'string' ? flags.endpoints : readSettings().endpointsDir;
    const started = performance.now();
    const declared = await declaredSources(flags, dir);
    const engine = duckDbScratchEngine(BUILT_IN_SOURCES, declared);
    const context = scratchCompileContext(engine, declared);
    const { folder, registry } = await loadOfflineEndpoints(dir, context);
    const files = await loadCheckedTests(folder, context.sources);
    const problems = [...registry.problems, ...files.flatMap((file) => file.problems)];
    for (const problem of problems) {
      console.log(formatProblem(problem));
      if (annotate) console.log(githubAnnotation(problem));
    }
    let heading = '';
    const results = await runEndpointTests(files, registry, engine, {
      filter: typeof flags.filter === 'string' ? flags.filter : undefined,
      onResult(result) {
        if (heading !== result.file) {
          heading = result.file;
          console.log(`${result.file} (${result.endpoint})`);
        }
        for (const line of resultText(result)) console.log(line);
        const annotation = annotate ? failureAnnotation(result) : undefined;
        if (annotation) console.log(annotation);
      },
    });
    if (typeof flags.junit === 'string') await writeFile(flags.junit, junitXml(files, results));
    console.log(summaryText(results, problems, (performance.now() - started) / 1000));
    const filter = typeof flags.filter === 'string' ? flags.filter : undefined;
    if (results.length === 0 && !problems.length) console.error(`cannery: no endpoint tests ran (looked in ${join(dir, TESTS_FOLDER)}${filter ? `, for "${filter}"` : ''})`);
    // A filter that matches nothing is a typo more often than an intent.
    const nothingMatched = filter !== undefined && results.length === 0;
    const failed = flags.update === true ? await updateFailingTests(files, results, registry, engine) : results.filter((result) => !result.verdict.passed).length;
    return problems.length || nothingMatched || failed > 0 ? 1 : 0;
  },
};
