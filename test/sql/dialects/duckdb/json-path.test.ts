import { describe, expect, it } from 'vitest';
import { InvalidJsonPath, jsonPointer } from '../../../../src/sql/dialects/duckdb/json-path.js';

describe('a BigQuery JSONPath as a JSON Pointer', () => {
  it.each([
    ['$', 'double', ''],
    ['$.class.students[0].name', 'double', '/class/students/0/name'],
    ['$."a.b".c', 'double', '/a.b/c'],
    ['$."say \\"hi\\""', 'double', '/say "hi"'],
    ["$['a.b'].c", 'bracket', '/a.b/c'],
    ['$[fruits]', 'bracket', '/fruits'],
    ['$.a[0][1]', 'bracket', '/a/0/1'],
    // RFC 6901 escapes: `~` is ~0 and `/` is ~1 inside a step.
    ['$."a/b~c"', 'double', '/a~1b~0c'],
  ] as const)('%s (%s quoting) is %s', (path, quoting, pointer) => {
    expect(jsonPointer(path, quoting)).toBe(pointer);
  });

  it.each([
    ['a.b', 'double'],
    ['$.', 'double'],
    ['$..a', 'double'],
    ['$[*]', 'double'],
    ["$['a']", 'double'],
    ['$."a"', 'bracket'],
  ] as const)('refuses %s (%s quoting), as BigQuery does', (path, quoting) => {
    expect(() => jsonPointer(path, quoting)).toThrow(InvalidJsonPath);
  });
});
