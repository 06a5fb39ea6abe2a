/**
 * Two versions of an endpoints folder compared on a real scratch DuckDB: how endpoints pair up,
 * the endpoint-level kinds of change, and the rows each version answers to the tests' requests.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { duckDbScratchEngine } from '../../../src/backends/duckdb/scratch.js';
import { loadOfflineRegistry } from '../../../src/cli/offline-registry.js';
import { parseEndpointTestFile } from '../../../src/config/endpoint-tests-file.js';
import { createContractBook } from '../../../src/engine/contracts/contract.js';
import { diffEndpoints } from '../../../src/engine/contracts/endpoint-diff.js';
import { endpointText } from '../../support/endpoint-text.js';
import { writeEndpoints } from '../../support/service.js';

const made: string[] = [];
afterAll(() => Promise.all(made.map((dir) => rm(dir, { recursive: true, force: true }))));

async function registryOf(files: Record<string, string>) {
  const dir = await mkdtemp(join(tmpdir(), 'cannery-diff-'));
  made.push(dir);
  return loadOfflineRegistry(await writeEndpoints(dir, files));
}

const engine = duckDbScratchEngine();

async function diff(before: Record<string, string>, after: Record<string, string>, tests: string[] = []) {
  const testFiles = tests.map((text, index) => parseEndpointTestFile(text, `tests/${index}.yaml`));
  return diffEndpoints(await registryOf(before), await registryOf(after), testFiles, engine, createContractBook(engine));
}

const withId = (text: string, id: string) => text.replace(/^id: .+$/m, `id: ${id}`);
const ID = randomUUID();
const recent = (name = 'diff.recent', query = ['select t.id, t.event_message from `cloudflare.logs.prod` as t where t.project = @project order by t.id']) =>
  withId(endpointText(name, ['project: {type: string, required: true}'], query), ID);

const summary = (diffs: Awaited<ReturnType<typeof diff>>) => diffs.map((entry) => ({ name: entry.name, status: entry.status, kinds: entry.changes.map((change) => `${change.kind}:${change.compatibility}`) }));

describe('diffEndpoints', () => {
  it('leaves out an endpoint whose definition did not change', async () => {
    expect(await diff({ 'a.yaml': recent() }, { 'renamed-file.yaml': recent() })).toEqual([]);
  });

  it('an added endpoint is compatible, a removed one breaking', async () => {
    const other = endpointText('diff.other', [], ['select 1 as n']);
    expect(summary(await diff({ 'a.yaml': recent() }, { 'b.yaml': other }))).toEqual([
      { name: 'diff.other', status: 'added', kinds: ['endpoint_added:compatible'] },
      { name: 'diff.recent', status: 'removed', kinds: ['endpoint_removed:breaking'] },
    ]);
  });

  it('pairs a renamed endpoint by its id: breaking, for callers using the name', async () => {
    const [renamed] = await diff({ 'a.yaml': recent() }, { 'a.yaml': recent('diff.latest') });
    expect(renamed).toMatchObject({ name: 'diff.latest', status: 'changed' });
    expect(renamed!.changes.map((change) => [change.kind, change.compatibility, change.message])).toEqual([
      ['endpoint_renamed', 'breaking', 'renamed from diff.recent: callers using the name diff.recent get endpoint_not_found'],
    ]);
  });

  it('pairs an endpoint whose id changed by its name: breaking, for callers using the id', async () => {
    const newId = randomUUID();
    const [changed] = await diff({ 'a.yaml': recent() }, { 'a.yaml': withId(recent(), newId) });
    expect(changed!.changes.map((change) => [change.kind, change.compatibility, change.message])).toEqual([
      ['id_changed', 'breaking', `id changed from ${ID} to ${newId}: callers using the id get endpoint_not_found`],
    ]);
  });

  it('reports a changed query and a changed description, both compatible', async () => {
    const after = recent('diff.recent', ['select t.id, t.event_message from `cloudflare.logs.prod` as t where t.project = @project order by t.id desc']).replace('description: A test endpoint.', 'description: Newest first.');
    expect(summary(await diff({ 'a.yaml': recent() }, { 'a.yaml': after }))).toEqual([
      { name: 'diff.recent', status: 'changed', kinds: ['query_changed:compatible', 'description_changed:compatible'] },
    ]);
  });

  it('does not call a new max_rows a query change', async () => {
    expect(summary(await diff({ 'a.yaml': recent() }, { 'a.yaml': recent().replace('max_rows: 100', 'max_rows: 50') }))).toEqual([
      { name: 'diff.recent', status: 'changed', kinds: ['max_rows_changed:compatible'] },
    ]);
  });

  it('finds column changes by describing both queries, and lists the breaking ones first', async () => {
    const after = recent('diff.recent', ['select t.id, t.timestamp from `cloudflare.logs.prod` as t where t.project = @project order by t.id']);
    const [changed] = await diff({ 'a.yaml': recent() }, { 'a.yaml': after.replace('max_rows: 100', 'max_rows: 50') });
    expect(changed!.changes.map((change) => [change.kind, change.compatibility, change.message])).toEqual([
      ['column_removed', 'breaking', 'column "event_message" removed'],
      ['column_added', 'compatible', 'new column "timestamp" (TIMESTAMP)'],
      ['max_rows_changed', 'compatible', 'max_rows 100 -> 50'],
      ['query_changed', 'compatible', 'the query changed'],
    ]);
  });

  it('calls a new query that cannot be described breaking, with the reason', async () => {
    // A column of a subquery whose columns the static check cannot list (a star with EXCEPT), so
    // only DuckDB finds it missing.
    const after = recent('diff.recent', ['select x.id, x.no_such_column from (select * except (event_message) from `cloudflare.logs.prod` as t where t.project = @project) as x']);
    const [changed] = await diff({ 'a.yaml': recent() }, { 'a.yaml': after });
    expect(changed!.changes[0]).toMatchObject({ kind: 'columns_unknown', compatibility: 'breaking', message: expect.stringContaining('no_such_column') });
  });

  describe("rows on the tests' inputs", () => {
    const tests = [
      'endpoint: diff.recent',
      'now: "2024-05-01T12:00:00Z"',
      'events:',
      '  cloudflare.logs.prod:',
      '    - {id: a, timestamp: "2024-05-01T10:00:00Z", event_message: first, project: p}',
      '    - {id: b, timestamp: "2024-05-01T11:00:00Z", event_message: second, project: p}',
      '    - {id: c, timestamp: "2024-05-01T11:30:00Z", event_message: other, project: q}',
      'tests:',
      '  - name: p',
      '    request: {params: {project: p}}',
      '    expect: {rows: []}',
      '  - name: q',
      '    request: {params: {project: q}}',
      '    expect: {rows: []}',
      '  - name: missing',
      '    expect: {error: {code: missing_parameter}}',
      '',
    ].join('\n');

    it('shows the rows the old (-) and the new (+) query answer, test by test, on the columns both return', async () => {
      const after = recent('diff.recent', [
        "select t.id, upper(t.event_message) as event_message, t.timestamp from `cloudflare.logs.prod` as t where t.project = @project and t.event_message != 'first' order by t.id",
      ]);
      const [changed] = await diff({ 'a.yaml': recent() }, { 'a.yaml': after }, [tests]);
      expect(changed!.rows).toEqual([
        // The tests expect no rows: as written, they fail on either version.
        { test: 'p', file: 'tests/0.yaml', line: 9, before: '2 row(s)', after: '1 row(s)', differs: true, fails: true, lines: ['- {id: "a", event_message: "first"}', '- {id: "b", event_message: "second"}', '+ {id: "b", event_message: "SECOND"}'] },
        { test: 'q', file: 'tests/0.yaml', line: 12, before: '1 row(s)', after: '1 row(s)', differs: true, fails: true, lines: ['- {id: "c", event_message: "other"}', '+ {id: "c", event_message: "OTHER"}'] },
        { test: 'missing', file: 'tests/0.yaml', line: 15, before: 'error missing_parameter (param project)', after: 'error missing_parameter (param project)', differs: false, fails: false, lines: [] },
      ]);
    });

    it("shows an error where the new version refuses a test's request", async () => {
      const after = recent().replace('project: {type: string, required: true}', 'project: {type: string, required: true, enum: [q]}');
      const [changed] = await diff({ 'a.yaml': recent() }, { 'a.yaml': after }, [tests]);
      expect(changed!.rows[0]).toEqual({
        test: 'p',
        file: 'tests/0.yaml',
        line: 9,
        before: '2 row(s)',
        after: 'error invalid_parameter (param project)',
        differs: true,
        fails: true,
        lines: ['- {id: "a", event_message: "first"}', '- {id: "b", event_message: "second"}', '+ error invalid_parameter (param project): parameter "project" must be one of: q (got "p")'],
      });
    });

    it('counts a renamed column as an answer that differs, as `cannery test` sees it, and says what became of it', async () => {
      const after = recent('diff.recent', ['select t.id, t.event_message as message from `cloudflare.logs.prod` as t where t.project = @project order by t.id']);
      const written = tests.replace('    request: {params: {project: q}}\n    expect: {rows: []}', '    request: {params: {project: q}}\n    expect: {rows: [{id: c, event_message: other}]}');
      const [changed] = await diff({ 'a.yaml': recent() }, { 'a.yaml': after }, [written]);
      expect(changed!.changes.map((change) => [change.kind, change.compatibility, change.message])).toEqual([
        ['column_renamed', 'breaking', 'column "event_message" renamed to "message" (STRING): callers reading "event_message" find no such column'],
        ['query_changed', 'compatible', 'the query changed'],
      ]);
      expect(changed!.rows.map(({ test, differs, fails, lines }) => ({ test, differs, fails, lines }))).toEqual([
        { test: 'p', differs: true, fails: true, lines: ['the same values, but in every row "event_message" is now "message"'] },
        { test: 'q', differs: true, fails: true, lines: ['the same values, but in every row "event_message" is now "message"'] },
        { test: 'missing', differs: false, fails: false, lines: [] },
      ]);
    });

    it('counts a new column as no difference: a test that expected the old rows still passes', async () => {
      const after = recent('diff.recent', ['select t.id, t.event_message, t.timestamp from `cloudflare.logs.prod` as t where t.project = @project order by t.id']);
      const [changed] = await diff({ 'a.yaml': recent() }, { 'a.yaml': after }, [tests]);
      expect(changed!.rows.map((row) => row.differs)).toEqual([false, false, false]);
    });

    it('runs only the tests of the endpoint that changed', async () => {
      const other = tests.replace('endpoint: diff.recent', 'endpoint: diff.other');
      const [changed] = await diff({ 'a.yaml': recent() }, { 'a.yaml': recent().replace('max_rows: 100', 'max_rows: 1') }, [other]);
      expect(changed!.rows).toEqual([]);
    });
  });
});
