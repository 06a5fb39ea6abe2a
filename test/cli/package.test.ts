/**
 * cannery as a package in someone else's repository, end to end: `npm pack` on a copy of the
 * sources (its prepack builds them), the tarball installed into a fresh folder (dependencies from
 * the npm cache, else the registry), then `npx cannery init`, `check` and `test` there, and the
 * installed CLI serving its console. Slow (a build and an install, within the service tier's hook
 * timeout): one pack, shared with own-data.test.ts (support/packed-cannery.ts).
 */
import { existsSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installInFreshFolder, packedTarball, ROOT, run, serveInstalled } from '../support/packed-cannery.js';

let dir: string;
let tarball: string;
let user: string;
const npx = (args: string[]) => run('npx', ['--no', 'cannery', ...args], user);

beforeAll(async () => {
  tarball = await packedTarball();
  ({ dir, project: user } = await installInFreshFolder(tarball, 'my-logs'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('npm pack', () => {
  it('builds at pack time and ships the build, the schemas, the log source files, the console, the grammar and the CI recipe; no TypeScript sources, tests or maps', async () => {
    const listing = await run('tar', ['-tzf', tarball], dir);
    const files = listing.stdout.trim().split('\n');
    for (const file of ['dist/cli.js', 'dist/console/index.html', 'dist/sql/parse/bigquery-grammar.js', 'dist/engine/compile/worker.js', 'schemas/endpoint.schema.json', 'schemas/endpoint-tests.schema.json', 'schemas/source.schema.json', 'sources/cloudflare.logs.prod.yaml', 'docs/ci/github-actions.yml', 'README.md', 'package.json']) {
      expect(files).toContain(`package/${file}`);
    }
    expect(files.filter((file) => /^package\/(src|test|bench|grammar|web|endpoints)\/|^package\/dist\/bench\/|\.map$/.test(file))).toEqual([]);
    const manifest = JSON.parse(await readFile(join(user, 'node_modules', 'cannery', 'package.json'), 'utf8'));
    expect(manifest.private).toBeUndefined();
    expect(manifest.bin).toEqual({ cannery: 'dist/cli.js' });
  });
});

describe('in a fresh repository with cannery installed', () => {
  it('npx cannery init writes endpoints/, its tests, an example source and the workflow, with schema lines that resolve there', async () => {
    const init = await npx(['init']);
    expect(init.code, init.stderr).toBe(0);
    expect(init.stdout.trim().split('\n')).toEqual([
      'wrote endpoints/edge.recent.yaml',
      'wrote endpoints/tests/edge.recent.yaml',
      'wrote sources/example.orders.yaml',
      'wrote endpoints/example.customer-orders.yaml',
      'wrote endpoints/tests/example.customer-orders.yaml',
      'wrote .github/workflows/cannery.yml',
    ]);
    expect(init.stderr).toContain('npx cannery check');
    // cannery is in package.json's dependencies: the workflow's `npm ci` installs it, nothing to add.
    expect(init.stderr).not.toContain('add cannery to package.json');

    for (const [file, schema] of [
      ['endpoints/edge.recent.yaml', '../node_modules/cannery/schemas/endpoint.schema.json'],
      ['endpoints/tests/edge.recent.yaml', '../../node_modules/cannery/schemas/endpoint-tests.schema.json'],
      ['sources/example.orders.yaml', '../node_modules/cannery/schemas/source.schema.json'],
      ['endpoints/example.customer-orders.yaml', '../node_modules/cannery/schemas/endpoint.schema.json'],
      ['endpoints/tests/example.customer-orders.yaml', '../../node_modules/cannery/schemas/endpoint-tests.schema.json'],
    ] as const) {
      const first = (await readFile(join(user, file), 'utf8')).split('\n')[0];
      expect(first).toBe(`# yaml-language-server: $schema=${schema}`);
      expect(existsSync(join(user, dirname(file), schema))).toBe(true);
    }
    expect(await readFile(join(user, '.github/workflows/cannery.yml'), 'utf8')).toBe(await readFile(join(ROOT, 'docs/ci/github-actions.yml'), 'utf8'));
  });

  it('check and test pass there right away', async () => {
    const check = await npx(['check']);
    expect(check.code, check.stdout + check.stderr).toBe(0);
    expect(check.stderr).toContain('ok: 2 endpoint(s) and 5 test(s) in 2 test file(s) in ./endpoints');
    const test = await npx(['test']);
    expect(test.code, test.stdout).toBe(0);
    expect(test.stdout).toMatch(/5 passed, 0 failed/);
  });

  it('a second init keeps every file as it is', async () => {
    const before = await readFile(join(user, 'endpoints/edge.recent.yaml'), 'utf8');
    const init = await npx(['init']);
    expect(init.code).toBe(0);
    expect(init.stdout.trim().split('\n')).toEqual(['kept endpoints/: it holds endpoints already, so no example is written', 'kept .github/workflows/cannery.yml: it exists']);
    expect(await readFile(join(user, 'endpoints/edge.recent.yaml'), 'utf8')).toBe(before);
  });

  it('serves the endpoints and the console from the package', async () => {
    const seed = await npx(['seed', '--db', 'data/demo.duckdb', '--events', '50']);
    expect(seed.code, seed.stderr).toBe(0);
    const { url, stop } = await serveInstalled(user, ['--db', 'data/demo.duckdb'], 'package-key');
    try {
      const page = await fetch(`${url}/`);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('<script');
      const answer = await fetch(`${url}/api/endpoints/query/edge.recent?project=nobody`, { headers: { 'x-api-key': 'package-key' } });
      expect(await answer.json()).toEqual({ result: [] });
    } finally {
      stop();
    }
  });
});
