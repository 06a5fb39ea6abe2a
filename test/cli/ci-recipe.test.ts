/**
 * The CI recipe, docs/ci/github-actions.yml, run step by step as GitHub Actions would run it on
 * a pull request: its own `run:` commands, through `npx`, in a checkout of a temporary
 * repository with two pull-request commits, a compatible change and then a breaking one. The
 * comment step's script runs against a stand-in for GitHub's API. Also: docs show the same file.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from '#yaml';
import { CLI } from '../support/cannery-cli.js';
import { startFakeBigQuery, type FakeBigQuery } from '../support/bigquery-server.js';
import { addGraphqlColumn, dropDailyInterval, git, repoWithShippedEndpoints, type Repo } from '../support/git-repo.js';

const RECIPE = fileURLToPath(new URL('../../docs/ci/github-actions.yml', import.meta.url));
const REVIEWING = fileURLToPath(new URL('../../docs/reviewing-changes.md', import.meta.url));

interface Step {
  name?: string;
  if?: string;
  uses?: string;
  run?: string;
  env?: Record<string, string>;
  with?: Record<string, string>;
}

interface StepResult {
  step: string;
  ran: boolean;
  code: number;
  output: string;
}

/** What the emulated pull request's repository has configured. */
const VARS = { CANNERY_BQ_PROJECT: 'test-proj', CANNERY_BQ_DATASET: 'logs' };

let origin: Repo;
let fake: FakeBigQuery;
const made: string[] = [];

beforeAll(async () => {
  // logs.all's tests load nine sources each; usage.api-counts' are the ones the changes below touch.
  origin = await repoWithShippedEndpoints(['tests/logs.all.yaml']);
  fake = await startFakeBigQuery();
  fake.answer(() => ({ dryRunBytes: 1024 }));
});
afterAll(async () => {
  await origin.remove();
  await fake.close();
  await Promise.all(made.map((dir) => rm(dir, { recursive: true, force: true })));
});

/** `${{ vars.NAME }}` and `${{ secrets.NAME }}` as the repository would fill them in. */
function expand(text: string): string {
  return text.replace(/\$\{\{\s*(vars|secrets)\.(\w+)\s*\}\}/g, (_, kind: string, name: string) => (kind === 'vars' ? (VARS as Record<string, string>)[name] ?? '' : 'secret'));
}

/** The few conditions the recipe uses, evaluated as Actions does; anything else fails the test. */
function condition(expression: string | undefined, failed: boolean, checkout: string): boolean {
  if (expression === undefined) return !failed;
  const known: Record<string, () => boolean> = {
    "vars.CANNERY_BQ_PROJECT != ''": () => !failed && VARS.CANNERY_BQ_PROJECT !== '',
    'always()': () => true,
    "always() && hashFiles('cannery-diff.md') != ''": () => existsSync(join(checkout, 'cannery-diff.md')),
  };
  const evaluate = known[expression.trim()];
  if (!evaluate) throw new Error(`the recipe has a condition this emulation does not know: ${expression}`);
  return evaluate();
}

function bash(script: string, cwd: string, env: Record<string, string>): Promise<{ code: number; stdout: string; output: string }> {
  return new Promise((resolve) => {
    // GitHub runs `run:` with `bash -e {0}`.
    execFile('bash', ['-e', '-c', script], { cwd, env }, (error, stdout, stderr) => {
      resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, output: stdout + stderr });
    });
  });
}

/** The github-script step, against a stand-in API holding `comments`; returns the calls it made. */
async function githubScript(script: string, cwd: string, comments: { id: number; body: string }[]): Promise<unknown[]> {
  const runner = join(cwd, '..', 'github-script.cjs');
  await writeFile(
    runner,
    `const calls = [];
const comments = ${JSON.stringify(comments)};
const list = async (args) => { calls.push(['list', args]); return { data: comments }; };
const github = {
  paginate: async (method, args) => (await method(args)).data,
  rest: { issues: {
    listComments: list,
    updateComment: async (args) => { calls.push(['update', args]); },
    createComment: async (args) => { calls.push(['create', args]); },
  } },
};
const context = { repo: { owner: 'acme', repo: 'endpoints' }, issue: { number: 7 } };
(async () => {\n${script}\n})().then(() => console.log(JSON.stringify(calls)), (error) => { console.error(error); process.exit(1); });
`,
  );
  const { stdout, output, code } = await bash(`node ${JSON.stringify(runner)}`, cwd, { PATH: process.env.PATH ?? '' });
  expect(code, output).toBe(0);
  return JSON.parse(stdout);
}

/** A pull-request checkout of `commit`, with cannery installed where `npx cannery` finds it. */
async function checkoutOf(commit: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'cannery-ci-'));
  made.push(dir);
  const checkout = join(dir, 'checkout');
  // actions/checkout with fetch-depth 0: every branch of origin, the pull request's commit checked out.
  await git(['clone', '--quiet', `file://${origin.dir}`, checkout], dir);
  await git(['checkout', '--quiet', '--detach', commit], checkout);
  await mkdir(join(checkout, 'node_modules', '.bin'), { recursive: true });
  const bin = join(checkout, 'node_modules', '.bin', 'cannery');
  await writeFile(bin, `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(CLI)} "$@"\n`);
  await chmod(bin, 0o755);
  return checkout;
}

async function runRecipe(commit: string, comments: { id: number; body: string }[]): Promise<{ results: StepResult[]; calls: unknown[]; summary: string; checkout: string }> {
  const steps = (parse(await readFile(RECIPE, 'utf8')) as { jobs: { review: { steps: Step[] } } }).jobs.review.steps;
  const checkout = await checkoutOf(commit);
  const summary = join(checkout, '..', 'step-summary.md');
  await writeFile(summary, '');
  const results: StepResult[] = [];
  let calls: unknown[] = [];
  let failed = false;
  for (const step of steps) {
    const label = step.name ?? step.uses ?? step.run ?? '?';
    // What the emulation provides itself: the checkout, node, the installed package, and credentials.
    const provided = ['actions/checkout@', 'actions/setup-node@', 'google-github-actions/auth@'].some((action) => step.uses?.startsWith(action)) || step.run === 'npm ci';
    if (!condition(step.if, failed, checkout)) {
      results.push({ step: label, ran: false, code: 0, output: '' });
      continue;
    }
    if (provided) {
      results.push({ step: label, ran: true, code: 0, output: '' });
      continue;
    }
    if (step.uses?.startsWith('actions/github-script@')) {
      calls = await githubScript(step.with!.script!, checkout, comments);
      results.push({ step: label, ran: true, code: 0, output: '' });
      continue;
    }
    if (!step.run) throw new Error(`the recipe has a step this emulation does not know: ${label}`);
    const env: Record<string, string> = {
      PATH: process.env.PATH ?? '',
      HOME: tmpdir(),
      GITHUB_ACTIONS: 'true',
      GITHUB_BASE_REF: 'main',
      GITHUB_STEP_SUMMARY: summary,
      // The emulation's BigQuery, and no npm update checks over the network.
      CANNERY_BQ_API_ENDPOINT: fake.url,
      npm_config_update_notifier: 'false',
      ...Object.fromEntries(Object.entries(step.env ?? {}).map(([name, value]) => [name, expand(value)])),
    };
    const { code, output } = await bash(step.run, checkout, env);
    results.push({ step: label, ran: true, code, output });
    if (code !== 0) failed = true;
  }
  return { results, calls, summary: await readFile(summary, 'utf8'), checkout };
}

const outcome = (results: StepResult[]) => results.map(({ step, ran, code }) => `${ran ? code : 'skipped'} ${step}`);

describe('the CI recipe on a pull request', () => {
  let compatible: string;
  let breaking: string;

  beforeAll(async () => {
    await git(['checkout', '--quiet', '-b', 'change'], origin.dir);
    await origin.edit('endpoints/usage.api-counts.yaml', addGraphqlColumn);
    compatible = await origin.commit('usage.api-counts: count GraphQL requests too');
    await origin.edit('endpoints/usage.api-counts.yaml', dropDailyInterval);
    // The author keeps the tests passing: the daily tests go with the daily interval.
    await origin.edit('endpoints/tests/usage.api-counts.yaml', (text) =>
      text
        .split('\n\n')
        .filter((block) => !block.trimStart().startsWith('- name: daily'))
        .join('\n\n'),
    );
    breaking = await origin.commit('usage.api-counts: no daily interval');
    await git(['checkout', '--quiet', 'main'], origin.dir);
  });

  // Each run is a whole CI job: check, a BigQuery dry run, the tests, and a diff that runs them twice.
  const JOB_MS = 240_000;

  it('passes a compatible change: every step runs, and the diff is posted as a new comment', { timeout: JOB_MS }, async () => {
    const { results, calls, summary } = await runRecipe(compatible, []);
    expect(outcome(results)).toEqual([
      '0 actions/checkout@v4',
      '0 actions/setup-node@v4',
      '0 npm ci',
      '0 Check the endpoint files and their tests',
      '0 Authenticate to Google Cloud',
      '0 Check on BigQuery',
      '0 Run the endpoint tests',
      '0 Diff the endpoints against the base branch',
      '0 Post the diff on the pull request',
    ]);
    const bigquery = results.find((result) => result.step === 'Check on BigQuery')!;
    expect(bigquery.output).toMatch(/usage\.api-counts would scan 1\.0 KiB/);
    expect(results.find((result) => result.step === 'Run the endpoint tests')!.output).toMatch(/15 passed, 0 failed/);
    expect(summary).toMatch(/^<!-- cannery diff -->\n### cannery diff: no breaking change\n/);
    expect(summary).toContain('| compatible | new column "total_graphql_requests" (INT64) |');
    expect(calls).toEqual([
      ['list', { owner: 'acme', repo: 'endpoints', issue_number: 7 }],
      ['create', { owner: 'acme', repo: 'endpoints', issue_number: 7, body: summary }],
    ]);
  });

  it('fails a breaking change at the diff step, and still updates the comment', { timeout: JOB_MS }, async () => {
    const earlier = [{ id: 1, body: 'LGTM' }, { id: 42, body: '<!-- cannery diff -->\n### cannery diff: no breaking change\n' }];
    const { results, calls, summary } = await runRecipe(breaking, earlier);
    expect(outcome(results).slice(3)).toEqual([
      '0 Check the endpoint files and their tests',
      '0 Authenticate to Google Cloud',
      '0 Check on BigQuery',
      '0 Run the endpoint tests',
      '1 Diff the endpoints against the base branch',
      '0 Post the diff on the pull request',
    ]);
    expect(summary).toMatch(/^<!-- cannery diff -->\n### cannery diff: ⚠️ 1 breaking change\(s\)\n/);
    expect(summary).toContain('| **breaking** | parameter "interval" no longer accepts daily |');
    expect(calls).toEqual([
      ['list', { owner: 'acme', repo: 'endpoints', issue_number: 7 }],
      ['update', { owner: 'acme', repo: 'endpoints', comment_id: 42, body: summary }],
    ]);
  });

  it('is shown in docs/reviewing-changes.md exactly as in the file', async () => {
    const page = await readFile(REVIEWING, 'utf8');
    const recipe = await readFile(RECIPE, 'utf8');
    expect(page).toContain(`\`\`\`yaml\n${recipe}\`\`\``);
  });
});
