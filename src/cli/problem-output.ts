/** How `cannery check` reports problems: text lines, one JSON document, or GitHub annotations. */
import type { Registry } from '../engine/serve/registry.js';
import type { EndpointTestFile } from '../config/endpoint-tests-file.js';
import type { Problem } from '../core/types.js';

export type CheckFormat = 'text' | 'json' | 'github';

export function checkFormat(raw: string | boolean | undefined): CheckFormat {
  if (raw === undefined) return 'text';
  if (raw === 'text' || raw === 'json' || raw === 'github') return raw;
  throw new Error(`--format must be text, json or github (got "${String(raw)}")`);
}

/** The JSON form: stable field names for scripts and bots. */
export function checkReport(dir: string, registry: Registry, problems: readonly Problem[], testFiles: readonly EndpointTestFile[]): string {
  return JSON.stringify({
    ok: problems.length === 0,
    dir,
    endpoints: registry.endpoints.map(({ definition, file }) => ({ name: definition.name, id: definition.id, file })),
    tests: testFiles.map(({ file, endpoint, tests }) => ({ file, endpoint: endpoint ?? null, tests: tests.length })),
    problems: problems.map(({ file, line, field, message }) => ({ file, line, ...(field ? { field } : {}), message })),
  });
}

/** GitHub escapes annotation data and properties with percent-encoding of these characters. */
function escapeData(text: string): string {
  return text.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

function escapeProperty(text: string): string {
  return escapeData(text).replace(/:/g, '%3A').replace(/,/g, '%2C');
}

/** `::error file=...,line=...::message`, which GitHub shows next to the line in a pull request. */
export function githubAnnotation(problem: Problem, title = problem.field && `cannery check: ${problem.field}`): string {
  const titled = title ? `,title=${escapeProperty(title)}` : '';
  return `::error file=${escapeProperty(problem.file)},line=${problem.line}${titled}::${escapeData(problem.message)}`;
}
