/** What `cannery check` finds in test files without running them: the endpoint, and requests that cannot fit it. */
import { describe, expect, it } from 'vitest';
import { checkEndpointTests, findTestedEndpoint } from '../../src/config/endpoint-tests-check.js';
import { parseEndpointTestFile } from '../../src/config/endpoint-tests-file.js';
import type { EndpointDefinition } from '../../src/core/types.js';

const LOGS: EndpointDefinition = {
  id: 'b699a50c-0586-48fa-95e6-6041369c6c05',
  name: 'logs.all',
  description: 'd',
  language: 'bq_sql',
  query: 'select 1',
  params: { project: { type: 'string', required: true }, iso_timestamp_start: { type: 'string', required: false, format: 'date-time' } },
  max_rows: 10,
  cache: false,
  sandbox: false,
  redact_pii: false,
};

function testFile(endpoint: string, request: string, expect_ = '{rows: []}') {
  return parseEndpointTestFile(['endpoint: ' + endpoint, 'now: "2024-05-01T00:00:00Z"', 'tests:', '  - name: t', `    request: ${request}`, `    expect: ${expect_}`, ''].join('\n'), 'f.yaml');
}

const SOURCES = ['postgres.logs', 'shop.orders'];
const messages = (files: ReturnType<typeof testFile>[]) => checkEndpointTests(files, [LOGS], SOURCES).map((problem) => `${problem.line}: ${problem.message}`);

describe('checkEndpointTests', () => {
  it('accepts a request that fits, by name or by id in any case', () => {
    expect(messages([testFile('logs.all', '{params: {project: p}}'), testFile(LOGS.id.toUpperCase(), '{params: {project: p}}')])).toEqual([]);
  });

  it('reports an endpoint that does not exist at the endpoint line, with a close spelling', () => {
    expect(messages([testFile('logs.al', '{params: {project: p}}')])).toEqual(['1: endpoint "logs.al" is not defined (did you mean "logs.all"?); endpoints: logs.all']);
  });

  it('reports an undeclared parameter at the test, with a close spelling', () => {
    expect(messages([testFile('logs.all', '{params: {project: p, iso_timestamp_stat: x}}')])).toEqual([
      '4: test "t": parameter "iso_timestamp_stat" is not declared by logs.all (did you mean "iso_timestamp_start"?); it accepts: project, iso_timestamp_start',
    ]);
  });

  it('lets an undeclared parameter through when the test expects unknown_parameter for it', () => {
    expect(messages([testFile('logs.all', '{params: {project: p, nope: x}}', '{error: {code: unknown_parameter, param: nope}}')])).toEqual([]);
    expect(messages([testFile('logs.all', '{params: {project: p, nope: x}}', '{error: {code: unknown_parameter}}')])).toEqual([]);
    expect(messages([testFile('logs.all', '{params: {project: p, nope: x}}', '{error: {code: unknown_parameter, param: other}}')])).toHaveLength(1);
  });

  it('reports a missing (or empty) required parameter unless missing_parameter is expected', () => {
    expect(messages([testFile('logs.all', '{params: {}}')])).toEqual(['4: test "t": the required parameter "project" of logs.all is missing (or expect the error missing_parameter)']);
    expect(messages([testFile('logs.all', '{params: {project: ""}}')])).toHaveLength(1);
    expect(messages([testFile('logs.all', '{params: {}}', '{error: {code: missing_parameter, param: project}}')])).toEqual([]);
  });

  it('reports sql sent to an endpoint without the sandbox unless sandbox_not_enabled is expected', () => {
    expect(messages([testFile('logs.all', '{params: {project: p}, sql: select 1}')])).toEqual([
      '4: test "t": sends sql, but logs.all does not enable the sandbox (or expect the error sandbox_not_enabled)',
    ]);
    expect(messages([testFile('logs.all', '{params: {project: p}, sql: select 1}', '{error: {code: sandbox_not_enabled, param: sql}}')])).toEqual([]);
  });

  it("reports a source under events that is not the project's, at its name's line, with a close spelling", () => {
    const file = parseEndpointTestFile(
      [
        'endpoint: logs.all',
        'now: "2024-05-01T00:00:00Z"',
        'events:',
        '  shop.orders: [{order_id: o1}]',
        'tests:',
        '  - name: t',
        '    request: {params: {project: p}}',
        '    events:',
        '      shop.order: [{order_id: o1}]',
        '    expect: {rows: []}',
        '',
      ].join('\n'),
      'f.yaml',
    );
    expect(file.problems).toEqual([]);
    expect(messages([file])).toEqual([
      '9: events: "shop.order" is not a source (did you mean "shop.orders"?); sources: postgres.logs, shop.orders (a project\'s own are declared in sources/*.yaml)',
    ]);
  });

  it('says nothing more about a file that did not load', () => {
    expect(messages([parseEndpointTestFile('endpoint: [', 'f.yaml')])).toEqual([]);
  });
});

describe('findTestedEndpoint', () => {
  it('finds by name exactly and by id ignoring case', () => {
    const endpoints = [{ definition: LOGS }];
    expect(findTestedEndpoint('logs.all', endpoints)).toBe(endpoints[0]);
    expect(findTestedEndpoint(LOGS.id.toUpperCase(), endpoints)).toBe(endpoints[0]);
    expect(findTestedEndpoint('LOGS.ALL', endpoints)).toBeUndefined();
  });
});
