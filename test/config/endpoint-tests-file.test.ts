/** Endpoint test files: parsed, validated against their schema, flattened, each problem at its line. */
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ENDPOINT_TESTS_SCHEMA_URL, loadEndpointTests, parseEndpointTestFile } from '../../src/config/endpoint-tests-file.js';
import { sourceNames } from '../../src/config/sources.js';
import { lineOf } from '../support/endpoint-text.js';

const text = (lines: string[]) => `${lines.join('\n')}\n`;

const TWO_TESTS = text([
  'endpoint: logs.all',
  'now: "2024-05-01T12:00:00Z"',
  'events:',
  '  cloudflare.logs.prod:',
  '    - {id: a, timestamp: "2024-05-01T11:00:00Z", event_message: m, project: p}',
  '    - {id: b, timestamp: 1714561200000000, event_message: m}',
  'tests:',
  '  - name: uses the defaults',
  '    request: {params: {project: p, limit: 5, flag: true}}',
  '    expect:',
  '      rows: [{id: a}]',
  '  - name: has its own',
  '    now: "2024-05-02T00:00:00+02:00"',
  '    events:',
  '      postgres.logs:',
  '        - {id: c, timestamp: "2024-05-01T11:00:00Z", event_message: m}',
  '    request:',
  '      params: {project: p}',
  '      sql: select 1 as one',
  '      redact_pii: true',
  '    expect:',
  '      error: {code: invalid_parameter, param: project}',
]);

describe('parseEndpointTestFile', () => {
  const parsed = parseEndpointTestFile(TWO_TESTS, 'tests/logs.all.yaml');

  it('reads the endpoint and one self-contained test per entry, each at its line', () => {
    expect(parsed.problems).toEqual([]);
    expect(parsed.endpoint).toBe('logs.all');
    expect(parsed.endpointLine).toBe(1);
    expect(parsed.tests.map((test) => [test.name, test.line])).toEqual([
      ['uses the defaults', lineOf(TWO_TESTS, 'uses the defaults')],
      ['has its own', lineOf(TWO_TESTS, 'has its own')],
    ]);
  });

  it("applies the file's now and events to a test that gives none", () => {
    const [first] = parsed.tests;
    expect(first!.now).toBe('2024-05-01T12:00:00Z');
    expect(Object.keys(first!.events)).toEqual(['cloudflare.logs.prod']);
    expect(first!.eventLines['cloudflare.logs.prod']).toEqual([lineOf(TWO_TESTS, '{id: a,'), lineOf(TWO_TESTS, '{id: b,')]);
  });

  it("replaces the file's events and now with a test's own, lines included", () => {
    const second = parsed.tests[1]!;
    expect(second.now).toBe('2024-05-02T00:00:00+02:00');
    expect(second.events).toEqual({ 'postgres.logs': [{ id: 'c', timestamp: '2024-05-01T11:00:00Z', event_message: 'm' }] });
    expect(second.eventLines).toEqual({ 'postgres.logs': [lineOf(TWO_TESTS, '{id: c,')] });
  });

  it('sends parameter values as text, as a query string would carry them', () => {
    expect(parsed.tests[0]!.request).toEqual({ params: { project: 'p', limit: '5', flag: 'true' }, redactPii: false });
    expect(parsed.tests[1]!.request).toEqual({ params: { project: 'p' }, sql: 'select 1 as one', redactPii: true });
  });

  it('reads each kind of expectation', () => {
    expect(parsed.tests[0]!.expect).toEqual({ kind: 'rows', rows: [{ id: 'a' }] });
    expect(parsed.tests[1]!.expect).toEqual({ kind: 'error', code: 'invalid_parameter', param: 'project' });
    const includes = parseEndpointTestFile(text(['endpoint: x', 'now: "2024-05-01T00:00:00Z"', 'tests:', '  - name: t', '    expect: {includes: [{n: 1}]}']), 'f.yaml');
    expect(includes.tests[0]!.expect).toEqual({ kind: 'includes', rows: [{ n: 1 }] });
  });

  it('keeps timestamps as the text written: YAML does not turn them into dates', () => {
    const unquoted = parseEndpointTestFile(text(['endpoint: x', 'now: 2024-05-01T00:00:00Z', 'tests:', '  - name: t', '    expect: {rows: [{t: 2024-05-01T00:00:00Z}]}']), 'f.yaml');
    expect(unquoted.problems).toEqual([]);
    expect(unquoted.tests[0]!.now).toBe('2024-05-01T00:00:00Z');
    expect(unquoted.tests[0]!.expect).toEqual({ kind: 'rows', rows: [{ t: '2024-05-01T00:00:00Z' }] });
  });
});

describe('problems', () => {
  const problemsOf = (lines: string[]) => {
    const source = text(lines);
    return { source, problems: parseEndpointTestFile(source, 'f.yaml').problems };
  };

  it('reports a schema error at the line of the field, in words', () => {
    const { source, problems } = problemsOf(['endpoint: x', 'now: "2024-05-01T00:00:00Z"', 'tests:', '  - name: t', '    expect: {rows: []}', '    requst: {params: {}}']);
    expect(problems).toEqual([
      expect.objectContaining({ line: lineOf(source, 'requst'), message: expect.stringMatching(/unknown field "tests\[0\]\.requst" \(did you mean "request"\?/) }),
    ]);
  });

  it('refuses an expectation with two kinds, or none', () => {
    for (const expect_ of ['{rows: [], includes: [{a: 1}]}', '{}']) {
      const { problems } = problemsOf(['endpoint: x', 'now: "2024-05-01T00:00:00Z"', 'tests:', '  - name: t', `    expect: ${expect_}`]);
      expect(problems.map((problem) => problem.message)).toEqual([expect.stringContaining('expect must have exactly one of rows, includes or error')]);
    }
  });

  it('refuses a zone-less now and a log event without an id; any other source name is checked against the project (endpoint-tests-check)', () => {
    const { source, problems } = problemsOf([
      'endpoint: x',
      'now: "2024-05-01T00:00:00"',
      'events:',
      '  cloudflare.logs.prd: []',
      '  postgres.logs:',
      '    - {timestamp: "2024-05-01T00:00:00Z", event_message: m}',
      'tests:',
      '  - name: t',
      '    expect: {rows: []}',
    ]);
    expect(problems.map((problem) => [problem.line, problem.message])).toEqual([
      [lineOf(source, 'now:'), expect.stringContaining('now must be an ISO 8601 timestamp with Z or an offset')],
      [lineOf(source, '{timestamp'), expect.stringContaining('missing required field "events.postgres.logs[0].id"')],
    ]);
  });

  it('reports a test without any now, and a test name used twice', () => {
    const { source, problems } = problemsOf(['endpoint: x', 'tests:', '  - name: same', '    expect: {rows: []}', '  - name: same', '    now: "2024-05-01T00:00:00Z"', '    expect: {rows: []}']);
    expect(problems).toEqual([
      { file: 'f.yaml', line: 3, field: 'tests[0].now', message: 'test "same" has no now: give the execution time in the test or at the top of the file' },
      { file: 'f.yaml', line: lineOf(source, 'now:') - 1, field: 'tests[1].name', message: 'test name "same" is already used on line 3' },
    ]);
  });

  it('reports YAML syntax errors at their line', () => {
    const { problems } = problemsOf(['endpoint: x', 'tests:', '  - name: [unclosed']);
    expect(problems[0]!.message).toMatch(/^YAML syntax error/);
  });
});

describe('the schema', () => {
  it('lists exactly the shipped log sources, for editors to complete, and takes any other name for a declared source', () => {
    const schema = JSON.parse(readFileSync(ENDPOINT_TESTS_SCHEMA_URL, 'utf8'));
    expect(Object.keys(schema.$defs.events.properties)).toEqual(sourceNames());
    expect(schema.$defs.events.additionalProperties.type).toBe('array');
  });
});

describe('loadEndpointTests', () => {
  const made: string[] = [];
  afterAll(() => Promise.all(made.map((dir) => rm(dir, { recursive: true, force: true }))));

  it('reads the YAML files of <endpoints>/tests in name order, skipping dot files and subfolders', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'cannery-tests-'));
    made.push(dir);
    await mkdir(join(dir, 'tests', 'more'), { recursive: true });
    await writeFile(join(dir, 'tests', 'b.yaml'), TWO_TESTS);
    await writeFile(join(dir, 'tests', 'a.yml'), TWO_TESTS.replace('logs.all', 'usage.api-counts'));
    await writeFile(join(dir, 'tests', '.a.yaml.swp'), 'not yaml: [');
    await writeFile(join(dir, 'tests', 'more', 'c.yaml'), 'not yaml: [');
    const files = await loadEndpointTests(dir);
    expect(files.map((file) => [file.file, file.endpoint, file.problems])).toEqual([
      [join(dir, 'tests', 'a.yml'), 'usage.api-counts', []],
      [join(dir, 'tests', 'b.yaml'), 'logs.all', []],
    ]);
  });

  it('finds no tests in a folder without tests/', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'cannery-tests-'));
    made.push(dir);
    expect(await loadEndpointTests(dir)).toEqual([]);
  });
});

describe('YAML anchors', () => {
  it('let tests share a list of events', () => {
    const parsed = parseEndpointTestFile(
      text([
        'endpoint: x',
        'now: "2024-05-01T00:00:00Z"',
        'tests:',
        '  - name: one',
        '    events:',
        '      postgres.logs: &shared',
        '        - {id: a, timestamp: 1, event_message: m}',
        '    expect: {rows: []}',
        '  - name: two',
        '    events: {postgres.logs: *shared}',
        '    expect: {rows: []}',
      ]),
      'f.yaml',
    );
    expect(parsed.problems).toEqual([]);
    expect(parsed.tests[1]!.events).toEqual(parsed.tests[0]!.events);
  });
});
