/** Expectations rewritten from answers, as text: only each rewritten `expect` changes. */
import { describe, expect, it } from 'vitest';
import { parseEndpointTestFile, type EndpointTest } from '../../../src/config/endpoint-tests-file.js';
import { templateOfColumns } from '../../../src/engine/testing/row-match.js';
import type { TestAnswer } from '../../../src/engine/testing/run.js';
import { updateExpectations, type TestFix } from '../../../src/engine/testing/update.js';

const HEAD = ['# the file head', 'endpoint: e', 'now: "2024-05-01T12:00:00Z"', 'tests:'];

function file(...tests: string[][]): string {
  return [...HEAD, ...tests.flat(), ''].join('\n');
}

function update(text: string, answers: Record<string, TestAnswer>, extra: Partial<TestFix> = {}) {
  const { tests, problems } = parseEndpointTestFile(text, 'tests/e.yaml');
  expect(problems).toEqual([]);
  const fixes = Object.entries(answers).map(([name, answer]) => ({ test: tests.find((test) => test.name === name) as EndpointTest, answer, ...extra }));
  return updateExpectations(text, fixes);
}

const rowsTest = [
  '  # what the rows are for',
  '  - name: rows',
  '    expect:',
  '      rows:',
  '        - {id: a, n: 1}',
  '        # b is the second',
  '        - {id: b, n: 2}  # inline',
  '        - {id: c, n: 3}',
  '        # after the last row',
  '',
];
const errorTest = ['  - name: error', '    expect: {error: {code: missing_parameter}}', ''];

describe('updateExpectations', () => {
  it('keeps rows that still match, puts a changed row in the place (and under the comment) of the old one, and touches nothing else', () => {
    const text = file(rowsTest, errorTest);
    const { text: updated, outcomes } = update(text, { rows: { rows: [{ id: 'a', n: 1, extra: true }, { id: 'b', n: 20, extra: true }] } });
    expect(outcomes).toEqual([{ test: 'rows', line: 6, updated: true, what: 'rows: 1 changed, 1 removed (3 row(s) -> 2 row(s))' }]);
    expect(updated).toBe(
      file(
        ['  # what the rows are for', '  - name: rows', '    expect:', '      rows:', '        - {id: a, n: 1}', '        # b is the second', '        - {id: b, n: 20} # inline', '        # after the last row', ''],
        errorTest,
      ),
    );
  });

  it('turns `{rows: []}` into a block of whole rows, each TIMESTAMP as ISO text, keeping the comment after it', () => {
    const text = file(['  - name: new', '    expect: {rows: []}  # to fill in', '']);
    const wholeRows = templateOfColumns([
      { name: 'id', type: { kind: 'scalar', name: 'STRING' } },
      { name: 'timestamp', type: { kind: 'scalar', name: 'TIMESTAMP' } },
      { name: 'day', type: { kind: 'scalar', name: 'DATE' } },
    ]);
    const rows = [{ id: 'x', timestamp: 1714564800000000, day: '2024-05-01' }, { id: 'y', timestamp: 1714564800000001, day: '2024-05-01' }];
    const { text: updated } = update(text, { new: { rows } }, { wholeRows });
    expect(updated).toBe(
      file(['  - name: new', '    expect:', '      rows:', '        - {id: x, timestamp: "2024-05-01T12:00:00Z", day: "2024-05-01"}', '        - {id: y, timestamp: "2024-05-01T12:00:00.000001Z", day: "2024-05-01"}  # to fill in', '']),
    );
    // What fits on the line stays on it.
    expect(update(text, { new: { rows: [{ id: 'x' }] } }, { wholeRows }).text).toBe(file(['  - name: new', '    expect: {rows: [{id: x}]}  # to fill in', '']));
  });

  it('writes the values as they came for sandbox SQL, whose columns are its own', () => {
    const text = file(['  - name: sql', '    request: {params: {}, sql: "select 1"}', '    expect: {rows: []}', '']);
    const wholeRows = templateOfColumns([{ name: 'timestamp', type: { kind: 'scalar', name: 'TIMESTAMP' } }]);
    const { text: updated } = update(text, { sql: { rows: [{ timestamp: 1714564800000000 }] } }, { wholeRows });
    expect(updated).toContain('    expect: {rows: [{timestamp: 1714564800000000}]}\n');
  });

  it('swaps rows for an error and an error for rows, block or flow', () => {
    const text = file(rowsTest, errorTest);
    const { text: updated, outcomes } = update(text, {
      rows: { error: { code: 'invalid_parameter', message: 'no', param: 'p' } },
      error: { rows: [{ id: 'z' }] },
    });
    expect(outcomes.map((outcome) => outcome.what)).toEqual(['3 row(s) -> error invalid_parameter (param p)', 'error missing_parameter -> 1 row(s)']);
    expect(updated).toBe(
      file(
        ['  # what the rows are for', '  - name: rows', '    expect:', '      error: {code: invalid_parameter, param: p}', '        # after the last row', ''],
        ['  - name: error', '    expect: {rows: [{id: z}]}', ''],
      ),
    );
  });

  it('leaves a test of rows the answer must include, saying why', () => {
    const text = file(['  - name: some', '    expect:', '      includes:', '        - {id: a}', '']);
    const { text: updated, outcomes } = update(text, { some: { rows: [{ id: 'b' }] } });
    expect(updated).toBe(text);
    expect(outcomes).toEqual([{ test: 'some', line: 5, updated: false, what: 'it lists rows the answer must include, in any order: which to list is yours to choose' }]);
  });

  it('writes the columns a test checks while the answer has them all, and whole rows once one is gone', () => {
    const text = file(['  - name: some', '    expect:', '      rows:', '        - {id: a}', '']);
    expect(update(text, { some: { rows: [{ id: 'b', n: 1 }] } }).text).toContain('        - {id: b}\n');
    const renamed = file(['  - name: some', '    expect:', '      rows:', '        - {id: a, n: 1}', '']);
    expect(update(renamed, { some: { rows: [{ id: 'a', count: 1 }] } }).text).toContain('        - {id: a, count: 1}\n');
  });
});
