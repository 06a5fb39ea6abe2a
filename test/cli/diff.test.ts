/**
 * `cannery diff` in real git repositories: the base it finds, what it reports for compatible
 * and breaking changes, the rows a changed query answers, and what it says when history is missing.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cannery } from '../support/cannery-cli.js';
import { addGraphqlColumn, dropDailyInterval, git, repoWithShippedEndpoints, type Repo } from '../support/git-repo.js';

let repo: Repo;
let base: string;
const made: string[] = [];

beforeAll(async () => {
  repo = await repoWithShippedEndpoints();
  base = await git(['rev-parse', 'HEAD'], repo.dir);
  await git(['checkout', '--quiet', '-b', 'change'], repo.dir);
});
afterAll(async () => {
  await repo.remove();
  await Promise.all(made.map((dir) => rm(dir, { recursive: true, force: true })));
});

const diff = (args: string[], cwd = repo.dir, env: Record<string, string> = {}) => cannery(['diff', ...args], { cwd, env });

// Each runs the built CLI, which runs every endpoint test twice (old and new): slow on a loaded
// machine, which the service tier's timeout allows for.
describe('cannery diff', () => {
  it('finds nothing changed against the merge base with main', async () => {
    const run = await diff(['--fail-on', 'breaking']);
    expect(run.code).toBe(0);
    expect(run.stdout.trimEnd().split('\n')).toEqual([`cannery diff: endpoints against the merge base with main (${base.slice(0, 7)})`, '', 'no endpoint changed']);
  });

  it('reports a compatible change in the working tree, and passes --fail-on breaking', async () => {
    await repo.edit('endpoints/usage.api-counts.yaml', addGraphqlColumn);
    const run = await diff(['--fail-on', 'breaking']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('usage.api-counts: changed (endpoints/usage.api-counts.yaml)\n  compatible new column "total_graphql_requests" (INT64)\n  compatible the query changed\n');
    // Compared on the columns both versions return, every test answers the same.
    expect(run.stdout).toContain("  rows on the tests' inputs: 0 of 15 test(s) answer differently; `cannery test` fails 0\n");
    expect(run.stdout.trimEnd().split('\n').at(-1)).toBe('1 endpoint(s) changed: 0 breaking change(s), 2 compatible');
  });

  it('reports a breaking change committed on the branch, and fails --fail-on breaking', async () => {
    await repo.edit('endpoints/usage.api-counts.yaml', dropDailyInterval);
    await repo.commit('usage.api-counts: a new column, and no daily interval');
    const run = await diff(['--fail-on', 'breaking']);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('  breaking   parameter "interval" no longer accepts daily\n');
    expect(run.stdout).toContain(
      [
        '    daily buckets by the UTC day, not the day of the offset an event was written with (endpoints/tests/usage.api-counts.yaml:91): 2 row(s) before, error invalid_parameter (param interval) now (fails as written)',
        '      - {timestamp: "2024-04-30T00:00:00", total_rest_requests: 1, total_storage_requests: 0, total_auth_requests: 0, total_realtime_requests: 0}',
        '      - {timestamp: "2024-05-01T00:00:00", total_rest_requests: 2, total_storage_requests: 1, total_auth_requests: 1, total_realtime_requests: 1}',
        '      + error invalid_parameter (param interval): parameter "interval" must be one of: minutely, hourly (got "daily")',
      ].join('\n'),
    );
  });

  it('prints the rows that differ for a changed query, as Markdown for a pull request', async () => {
    await repo.edit('endpoints/usage.api-counts.yaml', (text) => text.replace("countif(path like '%/auth%')", "countif(path like '%/auth/%')"));
    const run = await diff(['--base', 'HEAD', '--format', 'markdown']);
    expect(run.code).toBe(0);
    const markdown = run.stdout;
    expect(markdown.split('\n').slice(0, 2)).toEqual(['<!-- cannery diff -->', '### cannery diff: no breaking change']);
    expect(markdown).toContain('| compatible | the query changed |');
    const hourly = markdown.split('\n**').find((section) => section.startsWith('hourly sums every minute'));
    expect(hourly?.split('\n').slice(0, 6)).toEqual([
      'hourly sums every minute of the hour into one row** (`endpoints/tests/usage.api-counts.yaml:75`): 1 row(s) before, 1 row(s) now (fails as written)',
      '',
      '```diff',
      expect.stringMatching(/^- \{timestamp: "2024-05-01T12:00:00", total_rest_requests: 4, total_storage_requests: 1, total_auth_requests: 1, total_realtime_requests: 1[,}]/),
      expect.stringMatching(/^\+ \{timestamp: "2024-05-01T12:00:00", total_rest_requests: 4, total_storage_requests: 1, total_auth_requests: 0, total_realtime_requests: 1[,}]/),
      '```',
    ]);
    await git(['checkout', '--quiet', '--', '.'], repo.dir);
  });

  it('reports a renamed column as a rename, breaking and listed first, and counts the tests that answer differently as `cannery test` does', async () => {
    await repo.edit('endpoints/usage.api-counts.yaml', (text) => text.replace('as total_auth_requests,', 'as total_auth,').replace('max_rows: 1000', 'max_rows: 999'));
    const run = await diff(['--base', 'HEAD']);
    expect(run.stdout).toContain(
      [
        'usage.api-counts: changed (endpoints/usage.api-counts.yaml)',
        '  breaking   column "total_auth_requests" renamed to "total_auth" (INT64): callers reading "total_auth_requests" find no such column',
        '  compatible max_rows 1000 -> 999',
        '  compatible the query changed',
      ].join('\n'),
    );
    const counted = /rows on the tests' inputs: (\d+) of 15 test\(s\) answer differently; `cannery test` fails (\d+)\n/.exec(run.stdout);
    expect(counted).not.toBeNull();
    expect(run.stdout).toContain('      the same values, but in every row "total_auth_requests" is now "total_auth"');
    // The tests as written, run by `cannery test` on the same tree: as many fail as diff says.
    const test = await cannery(['test', '--filter', 'usage.api-counts'], { cwd: repo.dir });
    expect(test.stdout).toContain(`${15 - Number(counted![2])} passed, ${counted![2]} failed`);
    // Every test of rows with that column answers differently (the same values under another name).
    expect(Number(counted![1])).toBeGreaterThan(0);
    await git(['checkout', '--quiet', '--', '.'], repo.dir);
    // A diff and a test run: twice what one diff takes.
  }, 480_000);

  it('reads the base through git show: files removed since are reported, the work tree is untouched', async () => {
    await git(['rm', '--quiet', 'endpoints/logs.all.yaml', 'endpoints/tests/logs.all.yaml'], repo.dir);
    const run = await diff(['--base', base]);
    // Breaking, but without --fail-on the exit code is 0.
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`logs.all: removed (${base.slice(0, 7)}:endpoints/logs.all.yaml)\n  breaking   endpoint removed: callers get endpoint_not_found\n`);
    expect((await git(['status', '--porcelain'], repo.dir)).split('\n').filter((line) => line.includes('logs.all'))).toEqual(['D  endpoints/logs.all.yaml', 'D  endpoints/tests/logs.all.yaml']);
    await git(['reset', '--quiet', '--hard'], repo.dir);
  });

  it('prefers the branch a pull request targets, from GITHUB_BASE_REF', async () => {
    const clone = await mkdtemp(join(tmpdir(), 'cannery-clone-'));
    made.push(clone);
    await git(['clone', '--quiet', '--branch', 'change', repo.dir, clone], tmpdir());
    const run = await diff([], clone, { GITHUB_BASE_REF: 'main' });
    expect(run.stdout.split('\n')[0]).toBe(`cannery diff: endpoints against the merge base with origin/main (${base.slice(0, 7)})`);
  });

  it('says what is missing in a shallow clone, and fetches nothing', async () => {
    // A branch one commit ahead of main, cloned one commit deep: its parent, the merge base, is cut off.
    await git(['checkout', '--quiet', '-b', 'shallow-case', 'main'], repo.dir);
    await repo.edit('endpoints/usage.api-counts.yaml', addGraphqlColumn);
    await repo.commit('one commit ahead');
    // Back on main, which the clone's origin/HEAD will name as the default branch.
    await git(['checkout', '--quiet', 'main'], repo.dir);
    const shallow = await mkdtemp(join(tmpdir(), 'cannery-shallow-'));
    made.push(shallow);
    await git(['clone', '--quiet', '--depth', '1', '--no-single-branch', '--branch', 'shallow-case', `file://${repo.dir}`, shallow], tmpdir());
    await git(['checkout', '--quiet', 'change'], repo.dir);
    const before = await git(['rev-list', '--all', '--count'], shallow);
    const run = await diff([], shallow);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain('cannery diff: HEAD and origin/main have no common commit here, so there is no merge base to compare with.');
    expect(run.stderr).toContain('This is a shallow clone and cannery diff fetches nothing: fetch the history (`git fetch --unshallow`, or `fetch-depth: 0` in actions/checkout), or pass --base with a commit this clone has.');
    // The parent of HEAD is exactly what a depth of 1 leaves out.
    const missing = await diff(['--base', 'HEAD~1'], shallow);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('--base HEAD~1 is not a commit in this repository. This is a shallow clone');
    expect(await git(['rev-list', '--all', '--count'], shallow)).toBe(before);
  });

  it('exits 2 outside a git repository', async () => {
    const plain = await mkdtemp(join(tmpdir(), 'cannery-plain-'));
    made.push(plain);
    const run = await cannery(['diff', '--endpoints', plain], { cwd: plain });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('is not in a git repository');
  });
});
