/** A test's answer against its expectation, and what a failure says. */
import { describe, expect, it } from 'vitest';
import type { TestExpectation } from '../../../src/config/endpoint-tests-file.js';
import { judge } from '../../../src/engine/testing/verdict.js';

const rows = (...list: object[]): TestExpectation => ({ kind: 'rows', rows: list as Record<string, unknown>[] });
const includes = (...list: object[]): TestExpectation => ({ kind: 'includes', rows: list as Record<string, unknown>[] });
const answer = (...list: object[]) => ({ rows: list as Record<string, never>[] });
const failed = { code: 'invalid_parameter', message: 'parameter "interval" must be one of: minutely, hourly, daily (got "weekly")', param: 'interval' };

describe('rows', () => {
  it('passes on the same rows in the same order, checking the listed columns', () => {
    expect(judge(rows({ id: 'a' }, { id: 'b' }), answer({ id: 'a', n: 1 }, { id: 'b', n: 2 }))).toEqual({ passed: true });
  });

  it('fails on another order, with a diff of expected (-) against actual (+) rows, cut to the listed columns', () => {
    expect(judge(rows({ id: 'a' }, { id: 'b' }), answer({ id: 'b', n: 2 }, { id: 'a', n: 1 }))).toEqual({
      passed: false,
      message: '2 row(s), as expected, but they differ',
      details: ['(- expected, + actual)', '- {id: "a"}', '  {id: "b"}', '+ {id: "a"}'],
    });
  });

  it('says how many rows it expected and got, and shows timestamps the way the test wrote them', () => {
    const t = Date.parse('2024-05-01T10:00:00Z') * 1000;
    const verdict = judge(rows({ id: 'a', t: '2024-05-01T10:00:00Z' }), answer({ id: 'a', t }, { id: 'b', t: t + 1 }));
    expect(verdict).toEqual({
      passed: false,
      message: 'expected 1 row(s), got 2',
      details: ['(- expected, + actual)', '  {id: "a", t: "2024-05-01T10:00:00Z"}', '+ {id: "b", t: "2024-05-01T10:00:00.000001Z"}'],
    });
  });

  it('names a column the result does not have, and the ones it has', () => {
    const verdict = judge(rows({ idd: 'a' }), answer({ id: 'a', n: 1 }));
    expect(verdict).toMatchObject({ passed: false, message: '1 row(s), as expected, but they differ; the result has no column "idd" (its columns: id, n)' });
  });

  it('fails on an error, naming it', () => {
    expect(judge(rows(), { error: failed })).toEqual({ passed: false, message: `expected 0 row(s), got the error invalid_parameter (param interval)`, details: [] });
  });
});

describe('includes', () => {
  it('passes when every expected row matches a distinct actual row, in any order', () => {
    expect(judge(includes({ id: 'b' }, { id: 'a' }), answer({ id: 'a' }, { id: 'c' }, { id: 'b' }))).toEqual({ passed: true });
  });

  it('finds a matching where a greedy pick would not: a partial row may fit several', () => {
    // {n: 1} fits both rows; taken greedily it would leave nothing for {id: "a"}.
    expect(judge(includes({ n: 1 }, { id: 'a' }), answer({ id: 'a', n: 1 }, { id: 'b', n: 1 }))).toEqual({ passed: true });
    expect(judge(includes({ n: 1 }, { n: 1 }), answer({ id: 'a', n: 1 }))).toMatchObject({ passed: false, message: '1 of 2 expected row(s) not in the result (1 row(s))' });
  });

  it('lists the missing rows and the result', () => {
    expect(judge(includes({ id: 'x' }), answer({ id: 'a', n: 1 }))).toEqual({
      passed: false,
      message: '1 of 1 expected row(s) not in the result (1 row(s))',
      details: ['not in the result:', '- {id: "x"}', 'the result:', '  {id: "a"}'],
    });
  });
});

describe('error', () => {
  it('passes on the code, and the param when the test names one', () => {
    expect(judge({ kind: 'error', code: 'invalid_parameter', param: 'interval' }, { error: failed })).toEqual({ passed: true });
    expect(judge({ kind: 'error', code: 'invalid_parameter' }, { error: failed })).toEqual({ passed: true });
  });

  it('fails on another code or param, quoting the message', () => {
    expect(judge({ kind: 'error', code: 'invalid_parameter', param: 'project' }, { error: failed })).toEqual({
      passed: false,
      message: `expected the error invalid_parameter (param project), got invalid_parameter (param interval): ${failed.message}`,
      details: [],
    });
  });

  it('fails on rows, showing them', () => {
    expect(judge({ kind: 'error', code: 'missing_parameter' }, answer({ id: 'a' }))).toEqual({
      passed: false,
      message: 'expected the error missing_parameter, got 1 row(s)',
      details: ['+ {id: "a"}'],
    });
  });
});
