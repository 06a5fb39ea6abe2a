/**
 * `cannery check`, the GitOps gate, as CI runs it: the built CLI in a child process.
 * `npm test` builds dist/ first (pretest).
 */
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cannery, CLI, type Run } from '../support/cannery-cli.js';
import { endpointText, lineOf } from '../support/endpoint-text.js';
import { SHIPPED_ENDPOINTS as SHIPPED } from '../support/shipped-endpoints.js';

const made: string[] = [];
async function folder(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'cannery-check-'));
  made.push(dir);
  for (const [name, text] of Object.entries(files)) await writeFile(join(dir, name), text);
  return dir;
}
afterAll(() => Promise.all(made.map((dir) => rm(dir, { recursive: true, force: true }))));

const PROBLEM_LINE = /^(.+\.ya?ml):(\d+): (.+)$/;

describe('cannery check', () => {
  beforeAll(() => {
    if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run npm run build first`);
  });

  it('exits 0 on the shipped endpoints/, printing no problems', async () => {
    const run = await cannery(['check', '--endpoints', SHIPPED]);
    expect(run).toMatchObject({ code: 0, stdout: '' });
    expect(run.stderr).toContain('ok: 2 endpoint(s)');
  });

  it('reads CANNERY_ENDPOINTS when no flag is given', async () => {
    const run = await cannery(['check'], { env: { CANNERY_ENDPOINTS: SHIPPED } });
    expect(run.code).toBe(0);
  });

  it('needs no database: nothing is written', async () => {
    const cwd = await folder({});
    const run = await cannery(['check', '--endpoints', SHIPPED], { cwd });
    expect(run.code).toBe(0);
    expect(await readdir(cwd)).toEqual([]);
  });

  describe('the compile cache', () => {
    it('is written by one check and read by the next, which reports the same', async () => {
      const cache = join(await folder({}), 'compiled');
      const env = { CANNERY_COMPILE_CACHE: cache };
      const dir = await folder({
        'good.yaml': endpointText('cached.good', [], ['select t.id from `cloudflare.logs.prod` as t']),
        'bad.yaml': endpointText('cached.bad', [], ['select t.id from `cloudflare.logs.prd` as t']),
      });
      const first = await cannery(['check', '--endpoints', dir, '--format', 'json'], { env });
      const [context] = await readdir(cache);
      // The good file's compile is kept; the bad one is checked again each time.
      expect((await readdir(join(cache, context!))).filter((name) => name.endsWith('.json'))).toHaveLength(1);
      const second = await cannery(['check', '--endpoints', dir, '--format', 'json'], { env });
      expect(second).toEqual(first);
      expect(second.code).toBe(1);
    });

    it('is in the user cache folder by default, and off with CANNERY_COMPILE_CACHE=off', async () => {
      const home = await folder({});
      expect((await cannery(['check', '--endpoints', SHIPPED], { env: { HOME: home, CANNERY_COMPILE_CACHE: 'off' } })).code).toBe(0);
      expect(await readdir(home)).toEqual([]);
      expect((await cannery(['check', '--endpoints', SHIPPED], { env: { HOME: home } })).code).toBe(0);
      expect(await readdir(join(home, '.cache', 'cannery', 'compiled'))).toHaveLength(1);
    });
  });

  describe('on a broken folder', () => {
    const files: Record<string, string> = {
      'good.yaml': endpointText('check.good', [], ['select t.id from `cloudflare.logs.prod` as t']),
      'table.yaml': endpointText('check.table', [], ['select t.id', 'from `cloudflare.logs.prd` as t']),
      'params.yaml': endpointText('check.params', ['project: { type: string, required: true }'], ['select t.id', 'from `cloudflare.logs.prod` as t', 'where t.project = @projct']),
      'statements.yaml': endpointText('check.statements', [], ['select 1 as a;', 'delete from `cloudflare.logs.prod` where true']),
      'write.yaml': endpointText('check.write', [], ['delete from `cloudflare.logs.prod` where true']),
      'syntax.yaml': endpointText('check.syntax', [], ['select t.id', 'from `cloudflare.logs.prod` as t', 'where t.id = = 1']),
      'function.yaml': endpointText('check.function', [], ['select', '  st_geogpoint(1, 2) as a', 'from `cloudflare.logs.prod` as t']),
      'schema.yaml': endpointText('check.schema', [], ['select 1 as a']).replace('max_rows: 100', 'max_rows: lots'),
      'yaml.yaml': 'id: [unclosed\nname: check.yaml\n',
    };
    const expected: [file: string, needle: string, fragment: string][] = [
      ['table.yaml', 'cloudflare.logs.prd', 'did you mean "cloudflare.logs.prod"?'],
      ['params.yaml', '@projct', '@projct is used in the query but not declared in params (did you mean "project"?)'],
      ['params.yaml', 'project: {', 'param "project" is declared but the query never uses @project'],
      ['statements.yaml', 'select 1 as a;', 'expected exactly one SELECT statement, found 2'],
      ['write.yaml', 'delete from', 'only a read-only SELECT is allowed, found DELETE'],
      ['syntax.yaml', '= = 1', 'SQL syntax error'],
      ['function.yaml', 'st_geogpoint', 'unsupported SQL: ST_GEOGPOINT (cannery has no GEOGRAPHY type)'],
      ['schema.yaml', 'max_rows', 'max_rows'],
    ];
    let dir: string;
    let run: Run;
    beforeAll(async () => {
      dir = await folder(files);
      run = await cannery(['check', '--endpoints', dir]);
    });

    it('exits 1', () => {
      expect(run.code).toBe(1);
    });

    it('prints only file:line: message lines on stdout', () => {
      const lines = run.stdout.trimEnd().split('\n');
      for (const line of lines) expect(line).toMatch(PROBLEM_LINE);
    });

    it('prints one line per problem, at the file line of the problem', () => {
      const lines = run.stdout.trimEnd().split('\n');
      for (const [file, needle, fragment] of expected) {
        const prefix = `${join(dir, file)}:${lineOf(files[file]!, needle)}: `;
        expect(lines.filter((line) => line.startsWith(prefix) && line.includes(fragment)), `${prefix}...${fragment}`).toHaveLength(1);
      }
    });

    it('reports the YAML syntax error with its file', () => {
      expect(run.stdout.split('\n').filter((line) => line.startsWith(`${join(dir, 'yaml.yaml')}:`)).length).toBeGreaterThanOrEqual(1);
    });

    it('names no problem for the good file, and no other lines', () => {
      const lines = run.stdout.trimEnd().split('\n');
      expect(lines.some((line) => line.startsWith(join(dir, 'good.yaml')))).toBe(false);
      const yamlLines = lines.filter((line) => line.startsWith(`${join(dir, 'yaml.yaml')}:`)).length;
      expect(lines).toHaveLength(expected.length + yamlLines);
    });

    it('summarises on stderr', () => {
      const problems = run.stdout.trimEnd().split('\n').length;
      expect(run.stderr).toContain(`${problems} problem(s) in 8 file(s); 1 endpoint(s) ok`);
    });
  });

  describe('machine-readable output', () => {
    const files = {
      'good.yaml': endpointText('format.good', [], ['select t.id from `cloudflare.logs.prod` as t']),
      'bad.yaml': endpointText('format.bad', [], ['select t.id', 'from `cloudflare.logs.prd` as t']),
    };
    let dir: string;
    beforeAll(async () => {
      dir = await folder(files);
    });

    it('--format json prints one document with the endpoints and the problems', async () => {
      const run = await cannery(['check', '--endpoints', dir, '--format', 'json']);
      expect(run.code).toBe(1);
      const report = JSON.parse(run.stdout);
      expect(report.ok).toBe(false);
      expect(report.endpoints.map((endpoint: { name: string }) => endpoint.name)).toEqual(['format.good']);
      expect(report.problems).toEqual([
        { file: join(dir, 'bad.yaml'), line: lineOf(files['bad.yaml'], 'cloudflare.logs.prd'), field: 'query', message: expect.stringContaining('cloudflare.logs.prd') },
      ]);
    });

    it('--format github prints annotations GitHub shows next to the line, escaped', async () => {
      const run = await cannery(['check', '--endpoints', dir, '--format', 'github']);
      expect(run.code).toBe(1);
      const line = lineOf(files['bad.yaml'], 'cloudflare.logs.prd');
      expect(run.stdout.trimEnd().split('\n')).toEqual([
        expect.stringMatching(new RegExp(`^::error file=${join(dir, 'bad.yaml')},line=${line},title=cannery check%3A query::table \\\`cloudflare\\.logs\\.prd\\\``)),
      ]);
    });

    it('on GitHub Actions, text lines come with annotations', async () => {
      const run = await cannery(['check', '--endpoints', dir], { env: { GITHUB_ACTIONS: 'true' } });
      const lines = run.stdout.trimEnd().split('\n');
      expect(lines).toHaveLength(2);
      expect(lines[0]).toMatch(/bad\.yaml:\d+: table/);
      expect(lines[1]).toMatch(/^::error file=/);
    });

    it('refuses an unknown format', async () => {
      const run = await cannery(['check', '--endpoints', dir, '--format', 'xml']);
      expect(run.code).toBe(1);
      expect(run.stderr).toContain('--format must be text, json or github');
    });
  });

  describe('every backend', () => {
    // BigQuery's SAFE_CAST to a STRUCT type is NULL for the whole value when one field does not
    // convert, DuckDB's TRY_CAST only that field, so the DuckDB dialect refuses it: this file can
    // serve on BigQuery alone.
    const bigQueryOnly = endpointText('check.bigquery_only', [], [
      'select safe_cast(struct(t.id as a) as struct<a int64>) as u',
      'from `cloudflare.logs.prod` as t',
    ]);
    let dir: string;
    beforeAll(async () => {
      dir = await folder({ 'user.yaml': bigQueryOnly });
    });

    it('by default fails a construct one backend cannot run, naming that backend and the line', async () => {
      const run = await cannery(['check', '--endpoints', dir]);
      expect(run.code).toBe(1);
      const line = lineOf(bigQueryOnly, 'safe_cast');
      expect(run.stdout.trimEnd().split('\n')).toEqual([
        `${join(dir, 'user.yaml')}:${line}: unsupported SQL: SAFE_CAST to a type holding a STRUCT (the duckdb backend cannot run it) (query)`,
      ]);
    });

    it('--backend bigquery passes it, --backend duckdb fails it', async () => {
      expect((await cannery(['check', '--endpoints', dir, '--backend', 'bigquery'])).code).toBe(0);
      const duckdb = await cannery(['check', '--endpoints', dir, '--backend', 'duckdb']);
      expect(duckdb.code).toBe(1);
      expect(duckdb.stdout).toContain('(the duckdb backend cannot run it)');
    });

    it('a construct neither backend runs is one problem naming both', async () => {
      const both = await folder({ 'both.yaml': endpointText('check.both', [], ['select st_geogpoint(1, 2) as a', 'from `cloudflare.logs.prod` as t']) });
      const run = await cannery(['check', '--endpoints', both]);
      expect(run.stdout.trimEnd().split('\n')).toEqual([expect.stringMatching(/both\.yaml:\d+: unsupported SQL: ST_GEOGPOINT \(cannery has no GEOGRAPHY type\) \(the duckdb and bigquery backends cannot run it\)$/)]);
    });

    it('refuses an unknown backend', async () => {
      const run = await cannery(['check', '--endpoints', dir, '--backend', 'postgres']);
      expect(run.code).toBe(1);
      expect(run.stderr).toContain('--backend must be all, duckdb, bigquery');
    });
  });

  it('exits 1 with a message when the folder does not exist', async () => {
    const run = await cannery(['check', '--endpoints', join(tmpdir(), `cannery-missing-${randomUUID()}`)]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/does not exist/);
  });

  it('exits 1 on an unknown flag', async () => {
    const run = await cannery(['check', '--bogus']);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/bogus/);
  });

  it('an empty folder is ok', async () => {
    const run = await cannery(['check', '--endpoints', await folder({})]);
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('ok: 0 endpoint(s)');
  });
});

describe('cannery check on endpoint tests', () => {
  it('counts the shipped tests', async () => {
    const run = await cannery(['check', '--endpoints', SHIPPED]);
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('ok: 2 endpoint(s) and 31 test(s) in 2 test file(s)');
  });

  it('reports a test file that breaks its schema, names no endpoint, or sends what the endpoint does not declare', async () => {
    const dir = await folder({ 'one.yaml': endpointText('check.one', ['project: {type: string, required: true}'], ['select @project as p']) });
    await mkdir(join(dir, 'tests'));
    const schema = ['endpoint: check.one', 'now: "2024-05-01T00:00:00Z"', 'tests:', '  - name: t', '    expect: {rows: []}', '    extra: 1', ''].join('\n');
    const unknown = ['endpoint: check.none', 'now: "2024-05-01T00:00:00Z"', 'tests:', '  - name: t', '    expect: {rows: []}', ''].join('\n');
    const params = ['endpoint: check.one', 'now: "2024-05-01T00:00:00Z"', 'tests:', '  - name: t', '    request: {params: {projekt: a}}', '    expect: {rows: []}', ''].join('\n');
    await writeFile(join(dir, 'tests', 'a.yaml'), schema);
    await writeFile(join(dir, 'tests', 'b.yaml'), unknown);
    await writeFile(join(dir, 'tests', 'c.yaml'), params);
    const run = await cannery(['check', '--endpoints', dir, '--format', 'json']);
    expect(run.code).toBe(1);
    const report = JSON.parse(run.stdout);
    expect(report.tests).toEqual([
      { file: join(dir, 'tests', 'a.yaml'), endpoint: null, tests: 0 },
      { file: join(dir, 'tests', 'b.yaml'), endpoint: 'check.none', tests: 1 },
      { file: join(dir, 'tests', 'c.yaml'), endpoint: 'check.one', tests: 1 },
    ]);
    expect(report.problems).toEqual([
      { file: join(dir, 'tests', 'a.yaml'), line: 6, field: 'tests[0].extra', message: expect.stringContaining('unknown field "tests[0].extra"') },
      { file: join(dir, 'tests', 'b.yaml'), line: 1, field: 'endpoint', message: 'endpoint "check.none" is not defined (did you mean "check.one"?); endpoints: check.one' },
      { file: join(dir, 'tests', 'c.yaml'), line: 4, message: 'test "t": parameter "projekt" is not declared by check.one (did you mean "project"?); it accepts: project' },
      { file: join(dir, 'tests', 'c.yaml'), line: 4, message: 'test "t": the required parameter "project" of check.one is missing (or expect the error missing_parameter)' },
    ]);
  });

  it('finds the endpoint of a test file even when that endpoint fails its SQL checks', async () => {
    const dir = await folder({ 'one.yaml': endpointText('check.one', [], ['select 1 as n from `no.such.source`']) });
    await mkdir(join(dir, 'tests'));
    await writeFile(join(dir, 'tests', 'one.yaml'), ['endpoint: check.one', 'now: "2024-05-01T00:00:00Z"', 'tests:', '  - name: t', '    expect: {rows: []}', ''].join('\n'));
    const run = await cannery(['check', '--endpoints', dir]);
    expect(run.code).toBe(1);
    expect(run.stdout.trimEnd().split('\n')).toEqual([expect.stringMatching(/one\.yaml:\d+: .*no\.such\.source/)]);
  });
});
