/** `cannery new`: files that pass `check` and `test` as written, never over existing ones. */
import { readFile, readdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cannery } from '../support/cannery-cli.js';

const made: string[] = [];
afterAll(() => Promise.all(made.map((dir) => rm(dir, { recursive: true, force: true }))));
async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'cannery-new-'));
  made.push(dir);
  return dir;
}

describe('cannery new', () => {
  it('writes an endpoint with a fresh lowercase UUID and the schema line, and its tests; check and test pass', async () => {
    const dir = await tempDir();
    const run = await cannery(['new', 'edge.recent', '--endpoints', dir]);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(`wrote ${join(dir, 'edge.recent.yaml')}\nwrote ${join(dir, 'tests', 'edge.recent.yaml')}\n`);
    const endpoint = await readFile(join(dir, 'edge.recent.yaml'), 'utf8');
    // A folder outside cannery's clone and any repository: where `npm install cannery` would put the schemas.
    expect(endpoint.split('\n')[0]).toBe('# yaml-language-server: $schema=../node_modules/cannery/schemas/endpoint.schema.json');
    expect(endpoint).toMatch(/^id: [0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/m);
    expect(endpoint).toMatch(/^name: edge\.recent$/m);
    expect((await readFile(join(dir, 'tests', 'edge.recent.yaml'), 'utf8')).split('\n')[0]).toBe('# yaml-language-server: $schema=../../node_modules/cannery/schemas/endpoint-tests.schema.json');

    const check = await cannery(['check', '--endpoints', dir]);
    expect(check).toMatchObject({ code: 0, stdout: '' });
    expect(check.stderr).toContain('ok: 1 endpoint(s) and 3 test(s) in 1 test file(s)');
    const test = await cannery(['test', '--endpoints', dir]);
    expect(test.code).toBe(0);
    expect(test.stdout).toMatch(/3 passed, 0 failed/);
  });

  it('gives every new endpoint its own id', async () => {
    const dir = await tempDir();
    await cannery(['new', 'a.one', '--endpoints', dir]);
    await cannery(['new', 'a.two', '--endpoints', dir]);
    const ids = await Promise.all(['a.one', 'a.two'].map(async (name) => /^id: (.+)$/m.exec(await readFile(join(dir, `${name}.yaml`), 'utf8'))![1]));
    expect(ids[0]).not.toBe(ids[1]);
  });

  it('never overwrites: an existing endpoint or test file stops it before anything is written', async () => {
    const dir = await tempDir();
    await writeFile(join(dir, 'taken.yaml'), 'mine');
    const run = await cannery(['new', 'taken', '--endpoints', dir]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`${join(dir, 'taken.yaml')} exists already`);
    expect(await readFile(join(dir, 'taken.yaml'), 'utf8')).toBe('mine');
    expect(await readdir(dir)).toEqual(['taken.yaml']);
  });

  it('refuses a name the schema refuses, writing nothing', async () => {
    const dir = await tempDir();
    const run = await cannery(['new', 'Edge Errors', '--endpoints', dir]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('name must be lowercase letters');
    expect(await readdir(dir)).toEqual([]);
  });
});
