import { describe, expect, test } from 'vitest';
import { formatProblem } from '../../src/config/problem-line.js';

describe('formatProblem', () => {
  test('file:line: message, with the field only when the message does not name it', () => {
    expect(formatProblem({ file: 'endpoints/a.yaml', line: 3, message: 'missing required field "query"', field: 'query' })).toBe(
      'endpoints/a.yaml:3: missing required field "query"',
    );
    expect(formatProblem({ file: 'a.yaml', line: 12, message: 'enum is only allowed on string parameters', field: 'params.limit.enum' })).toBe(
      'a.yaml:12: enum is only allowed on string parameters (params.limit.enum)',
    );
    expect(formatProblem({ file: 'a.yaml', line: 1, message: 'duplicate key "id"' })).toBe('a.yaml:1: duplicate key "id"');
  });
});
