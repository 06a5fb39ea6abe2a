import { describe, expect, it } from 'vitest';
import { CanneryError, type ErrorCode } from '../../../src/core/errors.js';
import { readRequestParams } from '../../../src/engine/serve/params.js';
import type { EndpointDefinition, ParamSpec } from '../../../src/core/types.js';

function definition(params: Record<string, ParamSpec>, name = 'test.endpoint'): EndpointDefinition {
  return {
    id: '5a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d',
    name,
    description: 'unit test',
    language: 'bq_sql',
    query: 'select 1',
    params,
    max_rows: 10,
    cache: false,
    sandbox: false,
    redact_pii: false,
  };
}

const LOGS = definition({
  project: { type: 'string', required: true },
  iso_timestamp_start: { type: 'string', required: false, format: 'date-time' },
  iso_timestamp_end: { type: 'string', required: false, format: 'date-time' },
});

const one = (type: ParamSpec['type'], extra: Partial<ParamSpec> = {}) => definition({ v: { type, required: false, ...extra } });
const valueOf = (def: EndpointDefinition, raw: string) => readRequestParams(def, [['v', raw]]).values.v;

function failure(run: () => unknown): CanneryError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(CanneryError);
    return error as CanneryError;
  }
  throw new Error('expected a CanneryError, nothing was thrown');
}

function expectFailure(run: () => unknown, code: ErrorCode, param: string, fragment?: string | RegExp): CanneryError {
  const error = failure(run);
  expect({ code: error.code, param: error.param }).toEqual({ code, param });
  if (typeof fragment === 'string') expect(error.message).toContain(fragment);
  else if (fragment) expect(error.message).toMatch(fragment);
  return error;
}

describe('readRequestParams: names', () => {
  it('returns every declared parameter, absent optional ones as null', () => {
    expect(readRequestParams(LOGS, [['project', 'p1']])).toEqual({
      values: { project: 'p1', iso_timestamp_start: null, iso_timestamp_end: null },
      sql: undefined,
    });
  });

  it('accepts any iterable of pairs, e.g. URLSearchParams', () => {
    const { values } = readRequestParams(LOGS, new URLSearchParams('project=p+1&iso_timestamp_end=2024-05-01T12%3A00%3A00%2B02%3A00'));
    expect(values).toEqual({ project: 'p 1', iso_timestamp_start: null, iso_timestamp_end: '2024-05-01T10:00:00.000000Z' });
  });

  it('a name given twice is invalid_parameter naming it, even with the same value', () => {
    expectFailure(() => readRequestParams(LOGS, [['project', 'a'], ['project', 'b']]), 'invalid_parameter', 'project', 'more than once');
    expectFailure(() => readRequestParams(LOGS, [['project', 'a'], ['project', 'a']]), 'invalid_parameter', 'project', 'more than once');
    expectFailure(() => readRequestParams(LOGS, [['project', 'a'], ['project', '']]), 'invalid_parameter', 'project');
  });

  it('sql given twice is refused like any other name', () => {
    expectFailure(() => readRequestParams(LOGS, [['project', 'a'], ['sql', 'select 1'], ['sql', 'select 2']]), 'invalid_parameter', 'sql');
  });

  it('an undeclared name is unknown_parameter with a close spelling and the accepted names', () => {
    const error = expectFailure(() => readRequestParams(LOGS, [['project', 'a'], ['projct', 'a']]), 'unknown_parameter', 'projct', 'did you mean "project"?');
    expect(error.message).toContain('test.endpoint accepts: project, iso_timestamp_start, iso_timestamp_end');
    expectFailure(() => readRequestParams(LOGS, [['project', 'a'], ['iso_timestamp_stat', 'x']]), 'unknown_parameter', 'iso_timestamp_stat', 'did you mean "iso_timestamp_start"?');
  });

  it('no suggestion when nothing is close', () => {
    const error = expectFailure(() => readRequestParams(LOGS, [['project', 'a'], ['limit', '5']]), 'unknown_parameter', 'limit');
    expect(error.message).not.toContain('did you mean');
  });

  it('names are case-sensitive', () => {
    expectFailure(() => readRequestParams(LOGS, [['Project', 'a']]), 'unknown_parameter', 'Project', 'did you mean "project"?');
  });

  it('an endpoint without parameters says it accepts none', () => {
    expectFailure(() => readRequestParams(definition({}), [['x', '1']]), 'unknown_parameter', 'x', 'accepts: none');
  });

  it('an undeclared name is refused even when its value is empty', () => {
    expectFailure(() => readRequestParams(LOGS, [['project', 'a'], ['other', '']]), 'unknown_parameter', 'other');
  });

  it('an unknown name is reported before a missing required one', () => {
    expectFailure(() => readRequestParams(LOGS, [['projct', 'a']]), 'unknown_parameter', 'projct');
  });

  // `name in definition.params` would also see Object.prototype and silently ignore these.
  it.each(['constructor', 'toString', '__proto__', 'hasOwnProperty', 'valueOf'])('an undeclared name %j is unknown_parameter', (name) => {
    expectFailure(() => readRequestParams(LOGS, [['project', 'a'], [name, 'x']]), 'unknown_parameter', name);
  });
});

describe('readRequestParams: sql (sandbox)', () => {
  it('sql is reserved: accepted without being declared and returned apart', () => {
    expect(readRequestParams(LOGS, [['project', 'a'], ['sql', 'select 1']])).toEqual({
      values: { project: 'a', iso_timestamp_start: null, iso_timestamp_end: null },
      sql: 'select 1',
    });
  });

  it('an empty sql is absent', () => {
    expect(readRequestParams(LOGS, [['project', 'a'], ['sql', '']]).sql).toBeUndefined();
  });

  it('sql does not count as a declared parameter', () => {
    expectFailure(() => readRequestParams(LOGS, [['sql', 'select 1']]), 'missing_parameter', 'project');
  });
});

describe('readRequestParams: presence', () => {
  it.each([
    ['a string', { type: 'string' }, ' (string)'],
    ['an integer', { type: 'integer' }, ' (integer)'],
    ['an enum', { type: 'string', enum: ['a', 'b'] }, ' (one of: a, b)'],
    ['a timestamp', { type: 'string', format: 'date-time' }, '(an ISO 8601 timestamp)'],
    ['a regex', { type: 'string', format: 'regex' }, '(an RE2 regular expression)'],
  ] as const)('a missing required %s is missing_parameter saying what is expected', (_label, spec, hint) => {
    const def = definition({ v: { required: true, ...spec } as ParamSpec });
    expectFailure(() => readRequestParams(def, []), 'missing_parameter', 'v', `missing required parameter "v"${hint.startsWith(' ') ? hint : ` ${hint}`}`);
  });

  it('an empty required value is missing', () => {
    expectFailure(() => readRequestParams(LOGS, [['project', '']]), 'missing_parameter', 'project');
  });

  it.each(['string', 'integer', 'number', 'boolean'] as const)('an empty optional %s is null, and not validated', (type) => {
    expect(valueOf(one(type, type === 'string' ? { enum: ['a'], format: 'date-time' } : {}), '')).toBeNull();
  });

  it('a whitespace-only value is not empty', () => {
    expect(valueOf(one('string'), ' ')).toBe(' ');
    expectFailure(() => valueOf(one('integer'), ' '), 'invalid_parameter', 'v');
  });
});

describe('readRequestParams: integer', () => {
  it.each([
    ['0', 0],
    ['42', 42],
    ['-7', -7],
    ['007', 7],
    ['9007199254740991', Number.MAX_SAFE_INTEGER],
    ['-9007199254740991', Number.MIN_SAFE_INTEGER],
  ])('%j -> %d', (raw, expected) => {
    expect(valueOf(one('integer'), raw)).toBe(expected);
  });

  it.each(['1.5', '1.0', '1e3', '+1', ' 1', '1 ', '0x10', 'abc', '--1', '-', '9007199254740992', '99999999999999999999', 'Infinity', '١٢'])(
    '%j is invalid_parameter',
    (raw) => {
      expectFailure(() => valueOf(one('integer'), raw), 'invalid_parameter', 'v', 'must be a whole number');
    },
  );
});

describe('readRequestParams: number', () => {
  it.each([
    ['0', 0],
    ['2.5', 2.5],
    ['-0.25', -0.25],
    ['1e3', 1000],
    ['.5', 0.5],
    ['42', 42],
  ])('%j -> %d', (raw, expected) => {
    expect(valueOf(one('number'), raw)).toBe(expected);
  });

  it.each(['abc', 'NaN', 'Infinity', '-Infinity', '1e999', '1,5', '2.5.1', ' ', '\t'])('%j is invalid_parameter', (raw) => {
    expectFailure(() => valueOf(one('number'), raw), 'invalid_parameter', 'v', 'must be a number');
  });

  // Observed leniency of Number(): hex, binary and octal literals and surrounding spaces pass.
  it.each([
    ['0x10', 16],
    ['0b11', 3],
    ['0o7', 7],
    [' 5 ', 5],
  ])('observed: %j is accepted as %d', (raw, expected) => {
    expect(valueOf(one('number'), raw)).toBe(expected);
  });
});

describe('readRequestParams: boolean', () => {
  it('true and false', () => {
    expect(valueOf(one('boolean'), 'true')).toBe(true);
    expect(valueOf(one('boolean'), 'false')).toBe(false);
  });

  it.each(['TRUE', 'False', '1', '0', 'yes', 'on', 't'])('%j is invalid_parameter', (raw) => {
    expectFailure(() => valueOf(one('boolean'), raw), 'invalid_parameter', 'v', 'must be true or false');
  });
});

describe('readRequestParams: string', () => {
  it('a plain string is bound verbatim', () => {
    expect(valueOf(one('string'), "x'; drop table t; --")).toBe("x'; drop table t; --");
  });

  it('enum: an allowed value passes; anything else is refused listing the allowed values', () => {
    const def = one('string', { enum: ['minutely', 'hourly', 'daily'] });
    expect(valueOf(def, 'hourly')).toBe('hourly');
    expectFailure(() => valueOf(def, 'weekly'), 'invalid_parameter', 'v', 'must be one of: minutely, hourly, daily (got "weekly")');
    expectFailure(() => valueOf(def, 'Hourly'), 'invalid_parameter', 'v');
    expectFailure(() => valueOf(def, ' hourly'), 'invalid_parameter', 'v');
  });

  it('date-time: normalised to canonical UTC', () => {
    expect(valueOf(one('string', { format: 'date-time' }), '2024-05-01T14:00:00+02:00')).toBe('2024-05-01T12:00:00.000000Z');
  });

  it('date-time: a timestamp without a zone is refused with an example', () => {
    expectFailure(
      () => valueOf(one('string', { format: 'date-time' }), '2024-05-01T12:00:00'),
      'invalid_parameter',
      'v',
      'e.g. 2024-05-01T12:00:00Z or 2024-05-01T14:00:00.123456+02:00 (got "2024-05-01T12:00:00")',
    );
  });

  it('date-time: a fraction finer than microseconds is refused, as BigQuery refuses it, saying so', () => {
    for (const text of ['2024-05-01T12:00:00.1234567Z', '2024-05-01T12:00:00.123456789+02:00', '2024-05-01T12:00:00.1234567890Z']) {
      expectFailure(() => valueOf(one('string', { format: 'date-time' }), text), 'invalid_parameter', 'v', 'at most 6 fraction digits (microseconds, as BigQuery)');
    }
  });

  it('regex: a valid RE2 pattern is bound verbatim', () => {
    for (const pattern of ['p1', '^https://p1\\.', '(?i)abc|def', '[a-z]+\\d{2,}']) {
      expect(valueOf(one('string', { format: 'regex' }), pattern)).toBe(pattern);
    }
  });

  it.each([
    ['unclosed group', '(abc'],
    ['unclosed class', '[abc'],
    ['dangling repetition', '*abc'],
    ['backreference (not RE2)', '(a)\\1'],
    ['lookahead (not RE2)', 'a(?=b)'],
  ])('regex: %s is invalid_parameter', (_label, pattern) => {
    expectFailure(() => valueOf(one('string', { format: 'regex' }), pattern), 'invalid_parameter', 'v', 'must be a valid RE2 regular expression');
  });

  it('each invalid value names its own parameter', () => {
    const def = definition({
      interval: { type: 'string', required: true, enum: ['daily'] },
      project: { type: 'string', required: true, format: 'regex' },
    });
    expectFailure(() => readRequestParams(def, [['interval', 'daily'], ['project', '(']]), 'invalid_parameter', 'project');
    expectFailure(() => readRequestParams(def, [['interval', 'x'], ['project', 'p']]), 'invalid_parameter', 'interval');
  });
});
