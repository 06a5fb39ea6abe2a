/**
 * `cannery test --update`: each failing test's expected rows (or error) rewritten from what its
 * endpoint answers now (engine/testing/update.ts), file by file, saying what changed.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { findTestedEndpoint } from '../config/endpoint-tests-check.js';
import type { EndpointTestFile } from '../config/endpoint-tests-file.js';
import type { ScratchEngine } from '../engine/backend.js';
import { createContractBook } from '../engine/contracts/contract.js';
import type { Registry } from '../engine/serve/registry.js';
import type { TestResult } from '../engine/testing/run-files.js';
import { templateOfColumns } from '../engine/testing/row-match.js';
import { updateExpectations, type TestFix } from '../engine/testing/update.js';

/** Rewrites what can be rewritten and prints it; returns how many failing tests were left as they are. */
export async function updateFailingTests(files: readonly EndpointTestFile[], results: readonly TestResult[], registry: Registry, engine: ScratchEngine): Promise<number> {
  const failing = results.filter((result): result is TestResult & { verdict: { passed: false; message: string } } => !result.verdict.passed);
  const lines: string[] = [];
  let left = 0;
  let updated = 0;
  let written = 0;
  const contracts = createContractBook(engine);
  for (const testFile of files) {
    const own = failing.filter((result) => result.file === testFile.file);
    if (own.length === 0) continue;
    const endpoint = findTestedEndpoint(testFile.endpoint!, registry.endpoints);
    const contract = endpoint ? (await contracts.of([endpoint])).get(endpoint)?.contract : undefined;
    const wholeRows = contract ? templateOfColumns(contract.columns) : undefined;
    lines.push(testFile.file);
    const fixes: TestFix[] = [];
    for (const result of own) {
      const test = testFile.tests.find((candidate) => candidate.name === result.name)!;
      if (result.answer) fixes.push({ test, answer: result.answer, wholeRows });
      else {
        left += 1;
        lines.push(`  not updated: ${result.name} (line ${result.line}): it did not run (${result.verdict.message})`);
      }
    }
    if (fixes.length === 0) continue;
    const { text, outcomes } = updateExpectations(await readFile(testFile.file, 'utf8'), fixes);
    for (const outcome of outcomes) {
      lines.push(`  ${outcome.updated ? 'updated' : 'not updated'}: ${outcome.test} (line ${outcome.line}): ${outcome.what}`);
      if (outcome.updated) updated += 1;
      else left += 1;
    }
    if (outcomes.some((outcome) => outcome.updated)) {
      await writeFile(testFile.file, text);
      written += 1;
    }
  }
  lines.push(`${updated} test(s) updated in ${written} file(s)${left ? `; ${left} failing test(s) left as they are` : ''}${updated ? ': `git diff` shows the new expectations' : ''}`);
  console.log(['', ...lines].join('\n'));
  return left;
}
