/**
 * `cannery test`, as CI runs it: the built CLI on the shipped endpoints and their tests, on
 * copies with a query mutated, and on small folders for the output formats.
 */
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cannery } from '../support/cannery-cli.js';
import { endpointText, lineOf } from '../support/endpoint-text.js';
import { SHIPPED_ENDPOINTS } from '../support/service.js';

const made: string[] = [];
afterAll(() => Promise.all(made.map((dir) => rm(dir, { recursive: true, force: true }))));

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'cannery-test-cli-'));
  made.push(dir);
  return dir;
}

/** A copy of the shipped endpoints and tests, with `file`'s text passed through `mutate`. */
async function shippedWith(file: string, mutate: (text: string) => string): Promise<string> {
  const dir = join(await tempDir(), 'endpoints');
  await cp(SHIPPED_ENDPOINTS, dir, { recursive: true });
  const text = await readFile(join(dir, file), 'utf8');
  const mutated = mutate(text);
  expect(mutated).not.toBe(text);
  await writeFile(join(dir, file), mutated);
  return dir;
}

/** Output lines without the time each test took, which varies. */
const lines = (stdout: string) => stdout.replace(/ \(\d+ ms\)/g, '').replace(/\(\d+\.\d s\)/, '(…)').trimEnd().split('\n');

describe('cannery test on the shipped endpoints', () => {
  // Every shipped test, each on a fresh DuckDB, in a child process: on a loaded two-core machine
  // that passes 30 s (the service tier's timeout allows for it).
  it('passes every shipped test, listing them by file', async () => {
    const run = await cannery(['test', '--endpoints', SHIPPED_ENDPOINTS]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const output = lines(run.stdout);
    expect(output).toContain(`${join(SHIPPED_ENDPOINTS, 'tests', 'logs.all.yaml')} (logs.all)`);
    expect(output).toContain(`${join(SHIPPED_ENDPOINTS, 'tests', 'usage.api-counts.yaml')} (usage.api-counts)`);
    expect(output).toContain('  ✓ at most 100 rows, the newest 100');
    expect(output).toContain('  ✓ a path containing both /rest and /auth counts in both columns');
    expect(output.at(-1)).toMatch(/^31 passed, 0 failed \(…\)$/);
  });

  it('fails with a row diff when usage.api-counts stops counting a path in two columns', async () => {
    // A mutation a refactor could make: /auth only at a segment's start.
    const dir = await shippedWith('usage.api-counts.yaml', (text) => text.replace("countif(path like '%/auth%')", "countif(path like '%/auth/%')"));
    const run = await cannery(['test', '--endpoints', dir, '--filter', 'usage.api-counts']);
    expect(run.code).toBe(1);
    const file = join(dir, 'tests', 'usage.api-counts.yaml');
    const testText = await readFile(file, 'utf8');
    const output = lines(run.stdout);
    const at = output.indexOf('  ✗ hourly sums every minute of the hour into one row');
    expect(output.slice(at, at + 6)).toEqual([
      '  ✗ hourly sums every minute of the hour into one row',
      '      1 row(s), as expected, but they differ',
      '      (- expected, + actual)',
      '      - {timestamp: "2024-05-01T12:00:00", total_rest_requests: 4, total_storage_requests: 1, total_auth_requests: 1, total_realtime_requests: 1}',
      '      + {timestamp: "2024-05-01T12:00:00", total_rest_requests: 4, total_storage_requests: 1, total_auth_requests: 0, total_realtime_requests: 1}',
      `      at ${file}:${lineOf(testText, 'hourly sums every minute')}`,
    ]);
    const includes = output.indexOf('  ✗ a path containing both /rest and /auth counts in both columns');
    expect(output.slice(includes + 1, includes + 4)).toEqual([
      '      1 of 1 expected row(s) not in the result (8 row(s))',
      '      not in the result:',
      '      - {timestamp: "2024-05-01T12:02:00", total_rest_requests: 1, total_storage_requests: 0, total_auth_requests: 1, total_realtime_requests: 0}',
    ]);
    expect(output.at(-1)).toMatch(/^12 passed, 3 failed \(…\)$/);
  });

  it('fails with a row diff when logs.all makes its lower bound inclusive', async () => {
    const dir = await shippedWith('logs.all.yaml', (text) => text.replace(/t\.timestamp > cast\(@iso_timestamp_start/g, 't.timestamp >= cast(@iso_timestamp_start'));
    const run = await cannery(['test', '--endpoints', dir, '--filter', 'exclusive']);
    expect(run.code).toBe(1);
    const output = lines(run.stdout);
    expect(output.slice(1, 10)).toEqual([
      '  ✗ iso_timestamp_start is exclusive, to the microsecond',
      '      expected 5 row(s), got 6',
      '      (- expected, + actual)',
      '        … 2 more matching rows',
      '        {id: "b-before-end"}',
      '        {id: "b-middle"}',
      '        {id: "b-after-start"}',
      '      + {id: "b-at-start"}',
      expect.stringMatching(/^ {6}at .+logs\.all\.yaml:\d+$/),
    ]);
  });
});

describe('cannery test, outputs and problems', () => {
  /** One endpoint and one test file with a passing and a failing test. */
  async function small(): Promise<{ dir: string; tests: string }> {
    const dir = join(await tempDir(), 'endpoints');
    await mkdir(join(dir, 'tests'), { recursive: true });
    await writeFile(join(dir, 'one.yaml'), endpointText('cli.one', [], ['select 1 as n']));
    const tests = [
      'endpoint: cli.one',
      'now: "2024-05-01T00:00:00Z"',
      'tests:',
      '  - name: one',
      '    expect: {rows: [{n: 1}]}',
      '  - name: two, <wrongly>',
      '    expect: {rows: [{n: 2}]}',
      '',
    ].join('\n');
    await writeFile(join(dir, 'tests', 'one.yaml'), tests);
    return { dir, tests };
  }

  it('--format github adds an annotation per failure at the test, with the diff', async () => {
    const { dir, tests } = await small();
    const run = await cannery(['test', '--endpoints', dir, '--format', 'github']);
    expect(run.code).toBe(1);
    const file = join(dir, 'tests', 'one.yaml');
    expect(run.stdout.split('\n').filter((line) => line.startsWith('::'))).toEqual([
      `::error file=${file},line=${lineOf(tests, 'name: two')},title=cannery test%3A cli.one%3A two%2C <wrongly>::1 row(s), as expected, but they differ%0A(- expected, + actual)%0A- {n: 2}%0A+ {n: 1}`,
    ]);
  });

  it('annotates on GitHub Actions without being asked', async () => {
    const { dir } = await small();
    const run = await cannery(['test', '--endpoints', dir], { env: { GITHUB_ACTIONS: 'true' } });
    expect(run.stdout).toContain('::error file=');
  });

  it('--junit writes a JUnit report with a testcase per test and the failure', async () => {
    const { dir, tests } = await small();
    const report = join(dir, '..', 'junit.xml');
    const run = await cannery(['test', '--endpoints', dir, '--junit', report]);
    expect(run.code).toBe(1);
    const xml = await readFile(report, 'utf8');
    const file = join(dir, 'tests', 'one.yaml');
    expect(xml).toMatch(/^<\?xml version="1.0" encoding="UTF-8"\?>\n<testsuites name="cannery test" tests="2" failures="1" errors="0" time="[\d.]+">/);
    expect(xml).toContain(`<testsuite name="cli.one" file="${file}" tests="2" failures="1" errors="0"`);
    expect(xml).toMatch(new RegExp(`<testcase name="one" classname="cli.one" file="${file}" line="4" time="[\\d.]+"/>`));
    expect(xml).toContain(`<testcase name="two, &lt;wrongly&gt;" classname="cli.one" file="${file}" line="${lineOf(tests, 'name: two')}"`);
    expect(xml).toContain('<failure message="1 row(s), as expected, but they differ">1 row(s), as expected, but they differ&#10;(- expected, + actual)&#10;- {n: 2}&#10;+ {n: 1}</failure>');
  });

  it('--filter runs the matching tests only, and a filter matching none fails', async () => {
    const { dir } = await small();
    const one = await cannery(['test', '--endpoints', dir, '--filter', 'ONE ONE']);
    expect(one.code).toBe(0);
    expect(lines(one.stdout).at(-1)).toBe('1 passed, 0 failed (…)');
    const none = await cannery(['test', '--endpoints', dir, '--filter', 'nothing like it']);
    expect(none.code).toBe(1);
    expect(none.stderr).toContain('no endpoint tests ran');
  });

  it('reports a problem in a test file and runs no test of that file', async () => {
    const { dir } = await small();
    await writeFile(join(dir, 'tests', 'broken.yaml'), ['endpoint: cli.onr', 'now: "2024-05-01T00:00:00Z"', 'tests:', '  - name: x', '    expect: {rows: []}', ''].join('\n'));
    const run = await cannery(['test', '--endpoints', dir, '--filter', 'one one']);
    expect(run.code).toBe(1);
    expect(lines(run.stdout)[0]).toBe(`${join(dir, 'tests', 'broken.yaml')}:1: endpoint "cli.onr" is not defined (did you mean "cli.one"?); endpoints: cli.one`);
    expect(lines(run.stdout).at(-1)).toBe('1 passed, 0 failed, 1 problem(s) in test files (…)');
  });

  it("reports an event the importer refuses at the event's line", async () => {
    const { dir } = await small();
    const tests = [
      'endpoint: cli.one',
      'now: "2024-05-01T00:00:00Z"',
      'events:',
      '  cloudflare.logs.prod:',
      '    - {id: a, timestamp: "2024-05-01T00:00:00Z", event_message: m}',
      '    - {id: b, timestamp: "yesterday", event_message: m}',
      'tests:',
      '  - name: bad event',
      '    expect: {rows: [{n: 1}]}',
      '',
    ].join('\n');
    await writeFile(join(dir, 'tests', 'one.yaml'), tests);
    const run = await cannery(['test', '--endpoints', dir]);
    expect(run.code).toBe(1);
    expect(lines(run.stdout).slice(1, 4)).toEqual([
      '  ✗ bad event',
      '      events.cloudflare.logs.prod[1]: timestamp must be an ISO 8601 string with Z or an offset, or integer Unix microseconds; got "yesterday"',
      `      at ${join(dir, 'tests', 'one.yaml')}:${lineOf(tests, 'yesterday')}`,
    ]);
  });

  it('--update rewrites a failing test and leaves one that could not run, saying why', async () => {
    const { dir, tests } = await small();
    const file = join(dir, 'tests', 'one.yaml');
    const written = `${tests}  - name: bad event\n    events:\n      cloudflare.logs.prod:\n        - {id: b, timestamp: "yesterday", event_message: m}\n    expect: {rows: []}\n`;
    await writeFile(file, written);
    const run = await cannery(['test', '--endpoints', dir, '--update']);
    expect(run.code).toBe(1);
    expect(lines(run.stdout).slice(-4)).toEqual([
      file,
      // At the line of the event the importer refused: where to look.
      `  not updated: bad event (line ${lineOf(written, 'yesterday')}): it did not run (events.cloudflare.logs.prod[0]: timestamp must be an ISO 8601 string with Z or an offset, or integer Unix microseconds; got "yesterday")`,
      '  updated: two, <wrongly> (line 6): rows: 1 changed (1 row(s) -> 1 row(s))',
      '1 test(s) updated in 1 file(s); 1 failing test(s) left as they are: `git diff` shows the new expectations',
    ]);
    expect(await readFile(file, 'utf8')).toBe(written.replace('    expect: {rows: [{n: 2}]}', '    expect: {rows: [{n: 1}]}'));
  });

  it('a folder without tests has nothing to fail', async () => {
    const dir = await tempDir();
    await writeFile(join(dir, 'one.yaml'), endpointText('cli.one', [], ['select 1 as n']));
    const run = await cannery(['test', '--endpoints', dir]);
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('no endpoint tests ran');
  });
});

describe('cannery test --update', () => {
  it("rewrites the rows a renamed column fails, keeping every other line and comment, and leaves an includes test to the user", async () => {
    const dir = await shippedWith('usage.api-counts.yaml', (text) => text.replace('as total_auth_requests,', 'as total_auth,'));
    const file = join(dir, 'tests', 'usage.api-counts.yaml');
    const before = await readFile(file, 'utf8');
    const run = await cannery(['test', '--endpoints', dir, '--filter', 'usage.api-counts', '--update']);
    // The includes test is left failing, so the run still fails.
    expect(run.code).toBe(1);
    const output = lines(run.stdout);
    expect(output).toContain(file);
    expect(output).toContain(`  updated: hourly sums every minute of the hour into one row (line ${lineOf(before, '- name: hourly sums')}): rows: 1 changed (1 row(s) -> 1 row(s))`);
    expect(output).toContain(
      `  not updated: a path containing both /rest and /auth counts in both columns (line ${lineOf(before, '- name: a path containing both')}): it lists rows the answer must include, in any order: which to list is yours to choose`,
    );
    expect(output.at(-1)).toBe('8 test(s) updated in 1 file(s); 1 failing test(s) left as they are: `git diff` shows the new expectations');

    // Line for line the same file, but for the rows rewritten: comments, layout, events, the includes test.
    const after = await readFile(file, 'utf8');
    const [old, now] = [before.split('\n'), after.split('\n')];
    expect(now).toHaveLength(old.length);
    const includes = lineOf(before, '      includes:');
    // This test checks three columns, one of them gone: its rows are written whole.
    const anchored = lineOf(before, '- name: project can be anchored');
    now.forEach((line, index) => {
      if (line === old[index]) return;
      expect(index + 1).not.toBe(includes + 1);
      if (index + 1 > anchored && index + 1 <= anchored + 5) expect(line).toMatch(/^ {8}- \{timestamp: "[^"]+", total_rest_requests: \d, total_storage_requests: \d, total_auth: \d, total_realtime_requests: \d\}$/);
      else expect(line).toBe(old[index]!.replace('total_auth_requests:', 'total_auth:'));
    });
    expect(now.filter((line, index) => line !== old[index])).toHaveLength(25);

    const again = await cannery(['test', '--endpoints', dir, '--filter', 'usage.api-counts']);
    expect(lines(again.stdout).at(-1)).toMatch(/^14 passed, 1 failed/);
  });

  it("writes a new test's rows whole, timestamps as ISO text, swaps rows and errors both ways, and then passes", async () => {
    const dir = join(await tempDir(), 'endpoints');
    expect((await cannery(['new', 'cli.recent', '--endpoints', dir])).code).toBe(0);
    await writeFile(join(dir, 'cli.recent.yaml'), (await readFile(join(dir, 'cli.recent.yaml'), 'utf8')).replace('sandbox: false', 'sandbox: true'));
    const file = join(dir, 'tests', 'cli.recent.yaml');
    const template = await readFile(file, 'utf8');
    const written = template
      .replace(/    expect:\n      rows:\n        - \{id: a-2, event_message: second\}\n        - \{id: a-1, timestamp: "2024-05-01T11:00:00Z"\}/, '    expect: {rows: []}  # to fill in')
      .concat(
        [
          '',
          '  - name: a bad cast is refused',
          `    request: {params: {project: a}, sql: "select cast('x' as int64) as n"}`,
          '    expect: {rows: [{n: 1}]}',
          '',
          '  - name: was an error',
          '    request: {params: {project: b}}',
          '    expect:',
          '      error: {code: invalid_parameter}',
          '',
        ].join('\n'),
      );
    expect(written).toContain('expect: {rows: []}');
    await writeFile(file, written);

    const run = await cannery(['test', '--endpoints', dir, '--update']);
    expect(run.code).toBe(0);
    const output = lines(run.stdout);
    expect(output).toContain(`  updated: returns the project's records, newest first (line ${lineOf(written, "- name: returns the project's")}): rows: 2 added (0 row(s) -> 2 row(s))`);
    expect(output).toContain(`  updated: a bad cast is refused (line ${lineOf(written, '- name: a bad cast')}): 1 row(s) -> error invalid_parameter (param sql)`);
    expect(output).toContain(`  updated: was an error (line ${lineOf(written, '- name: was an error')}): error invalid_parameter -> 1 row(s)`);

    const after = await readFile(file, 'utf8');
    expect(after).toContain(
      [
        "  - name: returns the project's records, newest first",
        '    request: {params: {project: a}}',
        '    expect:',
        '      rows:',
        '        - {id: a-2, timestamp: "2024-05-01T11:30:00Z", event_message: second}',
        '        - {id: a-1, timestamp: "2024-05-01T11:00:00Z", event_message: first}  # to fill in',
      ].join('\n'),
    );
    expect(after).toContain(`    request: {params: {project: a}, sql: "select cast('x' as int64) as n"}\n    expect: {error: {code: invalid_parameter, param: sql}}\n`);
    expect(after).toContain('    expect:\n      rows:\n        - {id: b-1, timestamp: "2024-05-01T11:45:00Z", event_message: another project}\n');
    // The file's head, its events and its other tests are as they were.
    expect(after.slice(0, template.indexOf('tests:'))).toBe(template.slice(0, template.indexOf('tests:')));

    const again = await cannery(['test', '--endpoints', dir]);
    expect(again.code).toBe(0);
  });
});
