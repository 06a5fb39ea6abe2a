/** How `cannery test` shows its results: text for people, GitHub annotations, JUnit XML for CI dashboards. */
import type { EndpointTestFile } from '../config/endpoint-tests-file.js';
import type { Problem } from '../core/types.js';
import type { TestResult } from '../engine/testing/run-files.js';
import { githubAnnotation } from './problem-output.js';

/** One result in text: a mark, the name, the time; a failure adds its message, its lines and where it is. */
export function resultText(result: TestResult): string[] {
  const ms = `(${Math.round(result.ms)} ms)`;
  if (result.verdict.passed) return [`  ✓ ${result.name} ${ms}`];
  const { message, details } = result.verdict;
  return [`  ✗ ${result.name} ${ms}`, `      ${message}`, ...details.map((line) => `      ${line}`), `      at ${result.file}:${result.line}`];
}

export function failureAnnotation(result: TestResult): string | undefined {
  if (result.verdict.passed) return undefined;
  const { message, details } = result.verdict;
  return githubAnnotation({ file: result.file, line: result.line, message: [message, ...details].join('\n') }, `cannery test: ${result.endpoint}: ${result.name}`);
}

export function summaryText(results: readonly TestResult[], problems: readonly Problem[], seconds: number): string {
  const failed = results.filter((result) => !result.verdict.passed).length;
  const problemText = problems.length ? `, ${problems.length} problem(s) in test files` : '';
  return `${results.length - failed} passed, ${failed} failed${problemText} (${seconds.toFixed(1)} s)`;
}

/**
 * JUnit XML as CI systems read it: one testsuite per test file, one testcase per test, a
 * `failure` with the message and the diff; a test file's problems are an `error` each.
 */
export function junitXml(files: readonly EndpointTestFile[], results: readonly TestResult[]): string {
  const suites = files.map((testFile) => {
    const own = results.filter((result) => result.file === testFile.file);
    const failures = own.filter((result) => !result.verdict.passed).length;
    const seconds = own.reduce((sum, result) => sum + result.ms, 0) / 1000;
    const cases = own.map((result) => {
      const head = `    <testcase name="${xml(result.name)}" classname="${xml(result.endpoint)}" file="${xml(result.file)}" line="${result.line}" time="${(result.ms / 1000).toFixed(3)}"`;
      if (result.verdict.passed) return `${head}/>`;
      const { message, details } = result.verdict;
      return `${head}>\n      <failure message="${xml(message)}">${xml([message, ...details].join('\n'))}</failure>\n    </testcase>`;
    });
    const errors = testFile.problems.map(
      (problem) => `    <testcase name="${xml(`${problem.file}:${problem.line}`)}" classname="${xml(testFile.endpoint ?? testFile.file)}" file="${xml(problem.file)}" line="${problem.line}">\n      <error message="${xml(problem.message)}"/>\n    </testcase>`,
    );
    const name = testFile.endpoint ?? testFile.file;
    return [
      `  <testsuite name="${xml(name)}" file="${xml(testFile.file)}" tests="${own.length + errors.length}" failures="${failures}" errors="${errors.length}" time="${seconds.toFixed(3)}">`,
      ...cases,
      ...errors,
      '  </testsuite>',
    ].join('\n');
  });
  const failures = results.filter((result) => !result.verdict.passed).length;
  const errors = files.reduce((sum, testFile) => sum + testFile.problems.length, 0);
  const seconds = results.reduce((sum, result) => sum + result.ms, 0) / 1000;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="cannery test" tests="${results.length + errors}" failures="${failures}" errors="${errors}" time="${seconds.toFixed(3)}">`,
    ...suites,
    '</testsuites>',
    '',
  ].join('\n');
}

/** Text for XML attributes and content; characters XML 1.0 cannot hold at all are dropped. */
function xml(text: string): string {
  return text
    .replace(/[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/\n/g, '&#10;');
}
