/**
 * The console through the built CLI: `serve` prints its URL and serves the page built into
 * dist/console/, and CANNERY_CONSOLE=false turns both off.
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { MAIN_DEMO_PROJECT } from '../../src/demo/seed.js';
import { CLI } from '../support/cannery-cli.js';
import { startServe, type ServeProcess } from '../support/serve-process.js';
import { SHIPPED_ENDPOINTS as ENDPOINTS } from '../support/shipped-endpoints.js';


let dir: string;
let db: string;
const started: ServeProcess[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cannery-serve-console-'));
  db = join(dir, 'db.duckdb');
  execFileSync(process.execPath, [CLI, 'seed', '--db', db, '--events', '200'], { stdio: 'ignore' });
});
afterAll(async () => {
  for (const serve of started) await serve.stop();
  await rm(dir, { recursive: true, force: true });
});

const serve = async (env: Record<string, string>) => {
  const one = await startServe(['--demo', '--db', db, '--endpoints', ENDPOINTS], { CANNERY_API_KEYS: 'console-key', ...env });
  started.push(one);
  return one;
};

describe('serve and the console', () => {
  it('prints the console URL among its start-up lines and serves the page there', async () => {
    const one = await serve({});
    const line = await vi.waitFor(() => {
      const found = one.stdout().split('\n').find((text) => text.startsWith('cannery: console: '));
      if (!found) throw new Error(`no console line yet: ${one.stdout()}`);
      return found;
    });
    expect(line).toBe(`cannery: console: ${one.url}/#?project=${MAIN_DEMO_PROJECT} (CANNERY_CONSOLE=false turns it off)`);
    const page = await fetch(`${one.url}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await page.text()).toContain('<title>cannery console</title>');
    // Each test's serve has the database to itself.
    await one.stop();
  });

  it('with CANNERY_CONSOLE=false, prints no console line and / is an ordinary 404', async () => {
    const one = await serve({ CANNERY_CONSOLE: 'false' });
    const page = await fetch(`${one.url}/`);
    expect(page.status).toBe(404);
    expect(((await page.json()) as any).error.code).toBe('not_found');
    expect((await fetch(`${one.url}/console/`)).status).toBe(404);
    expect(one.stdout()).not.toContain('cannery: console:');
    expect(one.stderr()).not.toContain('not built');
  });
});
