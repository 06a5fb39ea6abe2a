import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';
import { parseEndpointFile } from '../../src/config/endpoint-file.js';
import type { EndpointFileResult } from '../../src/config/endpoint-file.js';
import { formatProblem } from '../../src/config/problem-line.js';

const shipped = (name: string): string => fileURLToPath(new URL(`../../endpoints/${name}`, import.meta.url));

const FIELDS = ['id', 'name', 'description', 'language', 'max_rows', 'cache', 'sandbox', 'redact_pii', 'params', 'query'] as const;
type Field = (typeof FIELDS)[number];

/**
 * A valid endpoint file with one field per line, in FIELDS order (id on line 1, query on line 10),
 * so each test can say exactly which line it expects. An override replaces a field's line (and may
 * span several lines); null leaves the field out; `extra` is appended after query.
 */
function endpoint(overrides: Partial<Record<Field, string | null>> = {}, extra = ''): string {
  const defaults: Record<Field, string> = {
    id: 'id: 90ea8432-727f-4399-8617-f3fe240ba64a',
    name: 'name: test.endpoint',
    description: 'description: A test endpoint.',
    language: 'language: bq_sql',
    max_rows: 'max_rows: 100',
    cache: 'cache: false',
    sandbox: 'sandbox: false',
    redact_pii: 'redact_pii: false',
    params: 'params: { project: { type: string, required: true } }',
    query: 'query: select @project as p',
  };
  const lines = FIELDS.map((field) => (field in overrides ? overrides[field] : defaults[field]));
  return `${lines.filter((line) => line !== null).join('\n')}\n${extra}`;
}

function parse(text: string): EndpointFileResult {
  return parseEndpointFile(text, 'test.yaml');
}

/** The file's only problem, as line and message; fails if there is not exactly one. */
function onlyProblem(text: string): { line: number; message: string } {
  const { problems, definition } = parse(text);
  expect(definition).toBeUndefined();
  expect(problems.map(formatProblem)).toHaveLength(1);
  const [problem] = problems;
  return { line: problem!.line, message: problem!.message };
}

describe('shipped endpoint files', () => {
  test('logs.all loads without problems', async () => {
    const file = shipped('logs.all.yaml');
    const result = parseEndpointFile(readFileSync(file, 'utf8'), file);
    expect(result.problems).toEqual([]);
    const definition = result.definition!;
    expect(definition).toMatchObject({
      id: 'b699a50c-0586-48fa-95e6-6041369c6c05',
      name: 'logs.all',
      language: 'bq_sql',
      max_rows: 1000,
      cache: false,
      sandbox: true,
      redact_pii: false,
    });
    expect(definition.description).toMatch(/^Log records of one project/);
    expect(Object.keys(definition.params)).toEqual(['project', 'iso_timestamp_start', 'iso_timestamp_end']);
    expect(definition.params.project).toMatchObject({ type: 'string', required: true });
    expect(definition.params.iso_timestamp_start).toMatchObject({ type: 'string', format: 'date-time', required: false });
    expect(definition.query).toMatch(/^with\n {2}edge_logs as \(/);
    expect(result.queryLine).toBe(28);
    expect(readFileSync(file, 'utf8').split('\n')[result.queryLine - 1]).toBe('  with');
    expect(result.fieldLines).toMatchObject({ id: 2, max_rows: 8, params: 12, 'params.iso_timestamp_end': 22, query: 27 });
  });

  test('usage.api-counts loads without problems', async () => {
    const result = parseEndpointFile(readFileSync(shipped('usage.api-counts.yaml'), 'utf8'), 'usage.api-counts.yaml');
    expect(result.problems).toEqual([]);
    expect(result.definition).toMatchObject({
      id: '90ea8432-727f-4399-8617-f3fe240ba64a',
      name: 'usage.api-counts',
      language: 'bq_sql',
      max_rows: 1000,
      cache: { ttl_seconds: 900, warm_every_seconds: 300 },
      sandbox: true,
      redact_pii: false,
    });
    expect(result.definition!.params).toEqual({
      interval: { type: 'string', required: true, enum: ['minutely', 'hourly', 'daily'], description: 'Bucket size and window.' },
      project: {
        type: 'string',
        required: true,
        format: 'regex',
        description: "RE2 regular expression tested (unanchored) against each request's URL.",
      },
    });
    expect(result.queryLine).toBe(27);
  });
});

describe('a valid file', () => {
  test('fills in required: false for params that leave it out', () => {
    const { definition, problems } = parse(endpoint({ params: 'params: { project: { type: string } }' }));
    expect(problems).toEqual([]);
    expect(definition!.params.project).toEqual({ type: 'string', required: false });
  });

  test('queryLine is the line of a plain scalar query', () => {
    expect(parse(endpoint()).queryLine).toBe(10);
  });

  test('queryLine of a block scalar is the line after its header, wherever the header sits', () => {
    expect(parse(endpoint({ query: 'query: |  # the SQL\n  select @project as p' })).queryLine).toBe(11);
    expect(parse(endpoint({ query: 'query:\n  >-\n  select @project\n  as p' })).queryLine).toBe(12);
  });

  test('warm_every_seconds may equal ttl_seconds', () => {
    const text = endpoint({ cache: 'cache: { ttl_seconds: 60, warm_every_seconds: 60 }' });
    expect(parse(text).problems).toEqual([]);
  });
});

describe('YAML problems', () => {
  test('a syntax error is reported at its line', () => {
    expect(onlyProblem(endpoint({ description: 'description: one: two' }))).toEqual({
      line: 3,
      message: 'YAML syntax error: Nested mappings are not allowed in compact mappings',
    });
  });

  test('a duplicate key names the key and its first line', () => {
    expect(onlyProblem(endpoint({}, 'sandbox: true\n'))).toEqual({
      line: 11,
      message: 'duplicate key "sandbox" (first defined on line 7)',
    });
  });

  test('an empty file is not an endpoint', () => {
    expect(onlyProblem('# nothing here\n')).toEqual({
      line: 1,
      message: 'the file must be a mapping of endpoint fields (got nothing)',
    });
  });
});

describe('schema problems', () => {
  test.each(FIELDS)('missing %s is reported at the top of the file', (field) => {
    expect(onlyProblem(endpoint({ [field]: null }))).toEqual({ line: 1, message: `missing required field "${field}"` });
  });

  test('a param without a type is reported at the param', () => {
    const params = 'params:\n  project:\n    required: true';
    expect(onlyProblem(endpoint({ params }))).toEqual({ line: 10, message: 'missing required field "params.project.type"' });
  });

  test('an unknown top-level field is reported at its key, with the allowed fields', () => {
    const { line, message } = onlyProblem(endpoint({}, 'ttl: 5\n'));
    expect(line).toBe(11);
    expect(message).toBe(
      'unknown field "ttl" (allowed: id, name, description, language, query, params, max_rows, cache, sandbox, redact_pii)',
    );
  });

  test('an unknown param field suggests the close spelling', () => {
    const params = 'params:\n  project:\n    type: string\n    requird: true';
    const { line, message } = onlyProblem(endpoint({ params }));
    expect(line).toBe(12);
    expect(message).toContain('unknown field "params.project.requird" (did you mean "required"?');
  });

  test.each([
    ['max_rows', 'max_rows: "100"', 5, 'max_rows must be an integer (got "100")'],
    ['sandbox', 'sandbox: yes', 7, 'sandbox must be true or false (got "yes")'],
    ['redact_pii', 'redact_pii:', 8, 'redact_pii must be true or false (got nothing)'],
    ['params', 'params: [project]', 9, 'params must be a mapping (got a list)'],
  ] as const)('%s of the wrong type', (field, text, line, message) => {
    expect(onlyProblem(endpoint({ [field]: text }))).toEqual({ line, message });
  });

  test('a param type outside the list names the allowed types', () => {
    const params = 'params:\n  project:\n    type: int';
    expect(onlyProblem(endpoint({ params }))).toEqual({
      line: 11,
      message: 'params.project.type must be one of: string, integer, number, boolean (got "int")',
    });
  });

  test('max_rows out of range', () => {
    expect(onlyProblem(endpoint({ max_rows: 'max_rows: 100001' }))).toEqual({
      line: 5,
      message: 'max_rows must be at most 100000 (got 100001)',
    });
  });

  test.each(['not-a-uuid', '90EA8432-727F-4399-8617-F3FE240BA64A', '90ea8432727f43998617f3fe240ba64a'])('bad id %s', (id) => {
    const { line, message } = onlyProblem(endpoint({ id: `id: ${id}` }));
    expect(line).toBe(1);
    expect(message).toContain('id must be a lowercase UUID');
  });

  test.each(['Usage.counts', 'usage..counts', '1usage', 'usage counts', 'usage.'])('bad name %j', (name) => {
    const { line, message } = onlyProblem(endpoint({ name: `name: "${name}"` }));
    expect(line).toBe(2);
    expect(message).toContain('name must be lowercase letters, digits and _');
  });

  test('a name that looks like a UUID', () => {
    const { line, message } = onlyProblem(endpoint({ name: 'name: b699a50c-0586-48fa-95e6-6041369c6c05' }));
    expect(line).toBe(2);
    expect(message).toContain('name must not look like a UUID');
  });

  test('a language other than bq_sql', () => {
    expect(onlyProblem(endpoint({ language: 'language: postgres' }))).toEqual({
      line: 4,
      message: 'language must be "bq_sql" (got "postgres")',
    });
  });

  test('an empty query', () => {
    expect(onlyProblem(endpoint({ query: 'query: |\n\n' }))).toEqual({ line: 10, message: 'query must not be empty (got "")' });
  });

  test('an unknown cache key is reported at the key, without the `false` alternative', () => {
    const { problems } = parse(endpoint({ cache: 'cache:\n  ttl: 900' }));
    expect(problems.map(({ line, message }) => ({ line, message }))).toEqual([
      { line: 6, message: 'missing required field "cache.ttl_seconds"' },
      { line: 7, message: 'unknown field "cache.ttl" (allowed: ttl_seconds, warm_every_seconds)' },
    ]);
  });

  test.each([
    ['cache: 300', '(got 300)'],
    ['cache: true', '(got true)'],
    ['cache: [900]', '(got a list)'],
  ])('a cache that is neither false nor an object: %s', (cache, got) => {
    expect(onlyProblem(endpoint({ cache }))).toEqual({
      line: 6,
      message: `cache must be false or an object with ttl_seconds ${got}`,
    });
  });

  test('a bad value inside the cache object', () => {
    expect(onlyProblem(endpoint({ cache: 'cache:\n  ttl_seconds: 0' }))).toEqual({
      line: 7,
      message: 'cache.ttl_seconds must be at least 1 (got 0)',
    });
  });

  test('enum on an integer param is reported at the enum', () => {
    const params = 'params:\n  limit:\n    type: integer\n    enum: [a, b]';
    expect(onlyProblem(endpoint({ params }))).toEqual({
      line: 12,
      message: 'enum is only allowed on string parameters, not integer',
    });
  });

  test('format on a boolean param is reported at the format', () => {
    const params = 'params:\n  flag:\n    format: regex\n    type: boolean';
    expect(onlyProblem(endpoint({ params }))).toEqual({
      line: 11,
      message: 'format is only allowed on string parameters, not boolean',
    });
  });

  test('sql is a reserved param name', () => {
    const params = 'params:\n  project: { type: string }\n  sql: { type: string }';
    expect(onlyProblem(endpoint({ params }))).toEqual({
      line: 11,
      message: 'parameter name "sql" is reserved for sandboxed queries',
    });
  });

  test('a param name that is not an SQL identifier', () => {
    const params = 'params:\n  project-id: { type: string }';
    const { line, message } = onlyProblem(endpoint({ params }));
    expect(line).toBe(10);
    expect(message).toBe(
      'parameter names must be SQL identifiers: letters, digits and _, not starting with a digit (got "project-id")',
    );
  });

  test('an enum listing a value twice is reported at the repeat', () => {
    const params = 'params:\n  interval:\n    type: string\n    enum:\n      - hourly\n      - daily\n      - hourly';
    expect(onlyProblem(endpoint({ params }))).toEqual({
      line: 15,
      message: 'params.interval.enum lists "hourly" more than once',
    });
  });

  test('an empty enum', () => {
    const params = 'params:\n  interval: { type: string, enum: [] }';
    expect(onlyProblem(endpoint({ params }))).toEqual({
      line: 10,
      message: 'params.interval.enum must list at least one value',
    });
  });

  test('every problem of a file is reported at once, in line order', () => {
    const text = endpoint({ id: 'id: 42', language: 'language: sql', cache: 'cache: {ttl_seconds: "1"}' });
    expect(parse(text).problems.map((p) => p.line)).toEqual([1, 4, 6]);
  });
});

describe('rules beyond the schema', () => {
  test('warm_every_seconds greater than ttl_seconds', () => {
    const { line, message } = onlyProblem(endpoint({ cache: 'cache:\n  ttl_seconds: 60\n  warm_every_seconds: 300' }));
    expect(line).toBe(8);
    expect(message).toContain('cache.warm_every_seconds (300) must not exceed cache.ttl_seconds (60)');
  });
});
