/**
 * A test's answer against its expectation: passed, or failed with one line saying how and the
 * lines that show it (expected rows `-`, actual rows `+`, shared rows plain).
 */
import type { JsonObject, TestExpectation } from '../../config/endpoint-tests-file.js';
import type { WireRow } from '../../core/types.js';
import type { TestAnswer } from './run.js';
import { flowText, matches, shownLike, templateOf, type Template } from './row-match.js';
import { diffSequences, diffText } from './sequence-diff.js';

export type Verdict = { passed: true } | { passed: false; message: string; details: string[] };

/** Rows of a result listed in a failure, at most. */
const SHOWN_ROWS = 20;

export function judge(expect: TestExpectation, answer: TestAnswer): Verdict {
  if (expect.kind === 'error') return judgeError(expect, answer);
  if (answer.error) {
    const expected = expect.kind === 'rows' ? `${expect.rows.length} row(s)` : 'rows';
    return { passed: false, message: `expected ${expected}, got the error ${errorText(answer.error)}`, details: [] };
  }
  const missingColumns = absentColumns(expect.rows, answer.rows);
  const template = templateOf(expect.rows);
  return expect.kind === 'rows'
    ? judgeRows(expect.rows, answer.rows, template, missingColumns)
    : judgeIncludes(expect.rows, answer.rows, template, missingColumns);
}

function judgeError(expect: Extract<TestExpectation, { kind: 'error' }>, answer: TestAnswer): Verdict {
  const wanted = errorText(expect);
  if (!answer.error) {
    const details = answer.rows.slice(0, SHOWN_ROWS).map((row) => `+ ${flowText(row)}`);
    return { passed: false, message: `expected the error ${wanted}, got ${answer.rows.length} row(s)`, details: withMore(details, answer.rows.length) };
  }
  if (answer.error.code === expect.code && (expect.param === undefined || answer.error.param === expect.param)) return { passed: true };
  return { passed: false, message: `expected the error ${wanted}, got ${errorText(answer.error)}: ${answer.error.message}`, details: [] };
}

function judgeRows(expected: JsonObject[], actual: WireRow[], template: Template, missingColumns: string[]): Verdict {
  if (expected.length === actual.length && expected.every((row, index) => matches(row, actual[index]))) return { passed: true };
  const steps = diffSequences(expected, actual, (a, b) => matches(a, b));
  const count = expected.length === actual.length ? `${actual.length} row(s), as expected, but they differ` : `expected ${expected.length} row(s), got ${actual.length}`;
  return {
    passed: false,
    message: `${count}${columnsNote(missingColumns, actual)}`,
    details: ['(- expected, + actual)', ...diffText(steps, flowText, (row) => flowText(shownLike(row, template)))],
  };
}

function judgeIncludes(expected: JsonObject[], actual: WireRow[], template: Template, missingColumns: string[]): Verdict {
  const matched = matchEach(expected, actual);
  const missing = expected.filter((_, index) => matched[index] === undefined);
  if (missing.length === 0) return { passed: true };
  const shown = actual.slice(0, SHOWN_ROWS).map((row) => `  ${flowText(shownLike(row, template))}`);
  return {
    passed: false,
    message: `${missing.length} of ${expected.length} expected row(s) not in the result (${actual.length} row(s))${columnsNote(missingColumns, actual)}`,
    details: ['not in the result:', ...missing.map((row) => `- ${flowText(row)}`), 'the result:', ...withMore(shown, actual.length)],
  };
}

/**
 * For each expected row, a distinct actual row it matches, if every one can have one: a
 * bipartite matching by augmenting paths, since a partial row may match several actual rows.
 */
function matchEach(expected: JsonObject[], actual: WireRow[]): (number | undefined)[] {
  const candidates = expected.map((row) => actual.flatMap((candidate, index) => (matches(row, candidate) ? [index] : [])));
  const owner = new Map<number, number>();
  const assign = (row: number, visited: Set<number>): boolean => {
    for (const index of candidates[row]!) {
      if (visited.has(index)) continue;
      visited.add(index);
      const current = owner.get(index);
      if (current === undefined || assign(current, visited)) {
        owner.set(index, row);
        return true;
      }
    }
    return false;
  };
  expected.forEach((_, row) => assign(row, new Set()));
  const result: (number | undefined)[] = expected.map(() => undefined);
  for (const [index, row] of owner) result[row] = index;
  return result;
}

/** Columns the expected rows name that the result does not have (known only when it has a row). */
function absentColumns(expected: JsonObject[], actual: WireRow[]): string[] {
  const first = actual[0];
  if (!first) return [];
  return [...new Set(expected.flatMap((row) => Object.keys(row)))].filter((column) => !Object.hasOwn(first, column));
}

function columnsNote(missing: string[], actual: WireRow[]): string {
  if (!missing.length) return '';
  return `; the result has no column ${missing.map((column) => `"${column}"`).join(', ')} (its columns: ${Object.keys(actual[0]!).join(', ')})`;
}

/** `missing_parameter (param project)`. */
export function errorText(error: { code: string; param?: string }): string {
  return error.param === undefined ? error.code : `${error.code} (param ${error.param})`;
}

function withMore(lines: string[], total: number): string[] {
  return total > lines.length ? [...lines, `  … ${total - lines.length} more row(s)`] : lines;
}
