/**
 * What `cannery check` can tell of a test file without running it: that its endpoint exists,
 * that every source its events name is one of the project's, and that each request fits the
 * endpoint's parameters. A request may break a rule on purpose
 * when the test expects the very error that break causes (an unknown parameter expected to be
 * `unknown_parameter`), so such a test is let through.
 */
import type { EndpointDefinition, Problem } from '../core/types.js';
import type { EndpointTest, EndpointTestFile } from './endpoint-tests-file.js';
import { didYouMean } from './spelling.js';

/** The endpoint a test file is about, by name or (case-insensitive) id. */
export function findTestedEndpoint<T extends { definition: EndpointDefinition }>(reference: string, endpoints: readonly T[]): T | undefined {
  const id = reference.toLowerCase();
  return endpoints.find(({ definition }) => definition.name === reference || definition.id === id);
}

/** `sources`: every source name an endpoint may read, the log sources' and the project's declared ones. */
export function checkEndpointTests(files: readonly EndpointTestFile[], definitions: readonly EndpointDefinition[], sources: readonly string[]): Problem[] {
  const endpoints = definitions.map((definition) => ({ definition }));
  const problems: Problem[] = [];
  for (const testFile of files) {
    for (const { name, line } of testFile.eventSources) {
      if (sources.includes(name)) continue;
      problems.push({
        file: testFile.file,
        line,
        field: 'events',
        message: `events: "${name}" is not a source${didYouMean(name, sources)}; sources: ${sources.join(', ')} (a project's own are declared in sources/*.yaml)`,
      });
    }
    if (testFile.endpoint === undefined) continue;
    const found = findTestedEndpoint(testFile.endpoint, endpoints);
    if (!found) {
      const names = definitions.map((definition) => definition.name);
      problems.push({
        file: testFile.file,
        line: testFile.endpointLine,
        field: 'endpoint',
        message: `endpoint "${testFile.endpoint}" is not defined${didYouMean(testFile.endpoint, names)}; endpoints: ${names.join(', ') || 'none'}`,
      });
      continue;
    }
    for (const test of testFile.tests) {
      for (const message of requestProblems(test, found.definition)) problems.push({ file: testFile.file, line: test.line, message: `test "${test.name}": ${message}` });
    }
  }
  return problems;
}

function requestProblems(test: EndpointTest, definition: EndpointDefinition): string[] {
  const expected = test.expect.kind === 'error' ? test.expect : undefined;
  const expects = (code: string, param: string) => expected?.code === code && (expected.param === undefined || expected.param === param);
  const declared = Object.keys(definition.params);
  const messages: string[] = [];
  for (const name of Object.keys(test.request.params)) {
    if (Object.hasOwn(definition.params, name) || expects('unknown_parameter', name)) continue;
    messages.push(`parameter "${name}" is not declared by ${definition.name}${didYouMean(name, declared)}; it accepts: ${declared.join(', ') || 'none'}`);
  }
  for (const [name, spec] of Object.entries(definition.params)) {
    if (!spec.required || (test.request.params[name] ?? '') !== '' || expects('missing_parameter', name)) continue;
    messages.push(`the required parameter "${name}" of ${definition.name} is missing (or expect the error missing_parameter)`);
  }
  if (test.request.sql !== undefined && !definition.sandbox && !expects('sandbox_not_enabled', 'sql')) {
    messages.push(`sends sql, but ${definition.name} does not enable the sandbox (or expect the error sandbox_not_enabled)`);
  }
  return messages;
}
