/** Runs the tests of endpoint test files, one fresh scratch database per test. */
import { findTestedEndpoint } from '../../config/endpoint-tests-check.js';
import type { EndpointTest, EndpointTestFile } from '../../config/endpoint-tests-file.js';
import type { ScratchEngine } from '../backend.js';
import { answerTest, TestSetupError, type TestAnswer } from './run.js';
import type { Registry } from '../serve/registry.js';
import { judge, type Verdict } from './verdict.js';

export interface TestResult {
  file: string;
  /** The endpoint as the test file names it. */
  endpoint: string;
  name: string;
  /** Where to look when it failed: the test, or the event the importer refused. */
  line: number;
  ms: number;
  verdict: Verdict;
  /** What the endpoint answered, when the test could run. */
  answer?: TestAnswer;
}

export interface TestRunOptions {
  /** Only tests whose `<endpoint> <name>` contains this (ignoring case). */
  filter?: string;
  /** Told of each result as it comes, for progress. */
  onResult?: (result: TestResult) => void;
}

/** Files with problems are skipped: their problems are the caller's to report. */
export async function runEndpointTests(
  files: readonly EndpointTestFile[],
  registry: Registry,
  engine: ScratchEngine,
  options: TestRunOptions = {},
): Promise<TestResult[]> {
  const filter = options.filter?.toLowerCase();
  const results: TestResult[] = [];
  for (const testFile of files) {
    if (testFile.problems.length || testFile.endpoint === undefined) continue;
    const reference = testFile.endpoint;
    const endpoint = findTestedEndpoint(reference, registry.endpoints);
    for (const test of testFile.tests) {
      if (filter !== undefined && !`${reference} ${test.name}`.toLowerCase().includes(filter)) continue;
      const started = performance.now();
      const { verdict, line, answer } = endpoint
        ? await verdictOf(() => answerTest(endpoint, test, engine), test)
        : { verdict: unloaded(reference), line: testFile.endpointLine, answer: undefined };
      const result = { file: testFile.file, endpoint: reference, name: test.name, line, ms: performance.now() - started, verdict, answer };
      results.push(result);
      options.onResult?.(result);
    }
  }
  return results;
}

async function verdictOf(run: () => Promise<TestAnswer>, test: EndpointTest): Promise<{ verdict: Verdict; line: number; answer?: TestAnswer }> {
  try {
    const answer = await run();
    return { verdict: judge(test.expect, answer), line: test.line, answer };
  } catch (error) {
    if (!(error instanceof TestSetupError)) throw error;
    return { verdict: { passed: false, message: error.message, details: [] }, line: error.line };
  }
}

function unloaded(reference: string): Verdict {
  return { passed: false, message: `endpoint "${reference}" did not load; \`cannery check\` says why`, details: [] };
}
