import { describe, expect, it } from 'vitest';
import { capturingGroups } from '../../../src/sql/analyse/regex-groups.js';

describe('capturing groups of an RE2 pattern', () => {
  it.each([
    ['^[a-z]+@', 0],
    ['^([a-z]+)@', 1],
    ['(a)(b)', 2],
    ['(?:a)(b)', 1],
    ['(?i)abc', 0],
    ['(?P<user>\\w+)', 1],
    ['\\(not a group\\)', 0],
    ['[(]x[)]', 0],
    ['[]()](y)', 1],
    ['[^]()](y)', 1],
  ])('%s has %i', (pattern, groups) => {
    expect(capturingGroups(pattern)).toBe(groups);
  });
});
