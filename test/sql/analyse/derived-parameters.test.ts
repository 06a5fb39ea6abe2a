import { describe, expect, it } from 'vitest';
import { derivedValue, withDerivedValues } from '../../../src/sql/analyse/derived-parameters.js';
import { MAX_LITERALS } from '../../../src/sql/analyse/regex-literals.js';
import type { DerivedParameter } from '../../../src/sql/parse/tree.js';

const literal = (index: number): DerivedParameter => ({ kind: 'required_literal', of: 'p', index });
const exact: DerivedParameter = { kind: 'literals_exact', of: 'p' };

describe('derived parameters of a regular expression', () => {
  it('are its literals, then NULLs, and whether they are all it matches', () => {
    const values = (pattern: unknown) => [...Array.from({ length: MAX_LITERALS }, (_, index) => derivedValue(literal(index), pattern)), derivedValue(exact, pattern)];
    expect(values('proj|zz17')).toEqual(['proj', 'zz17', null, null, true]);
    expect(values('abc.*def')).toEqual(['abc', null, null, null, false]);
    // Nothing required: the first search is for '', which every text contains.
    expect(values('.*')).toEqual(['', null, null, null, false]);
    expect(values(null)).toEqual(['', null, null, null, false]);
    // A caller's value is read on the event loop, per request: one RE2 refuses requires nothing here
    // (RE2 then raises its error), where building its literal once took gigabytes.
    expect(values('((a{1000}){1000}){500}')).toEqual(['', null, null, null, false]);
  });

  it('are added to the caller values by name, which stay as they are', () => {
    const derived = { __a: literal(0), __b: exact };
    expect(withDerivedValues(derived, { p: 'x|y', q: 1 })).toEqual({ p: 'x|y', q: 1, __a: 'x', __b: true });
    const none = { p: 'x' };
    expect(withDerivedValues({}, none)).toBe(none);
  });
});
