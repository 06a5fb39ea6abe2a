/**
 * The console in Chromium with a scoped token (issue 26), as a tenant's browser gets one from its
 * app's backend: it lists only the endpoints the token may run, shows the fixed project filled in
 * and locked (an address asking for another project does not change it), shows a parameter the
 * token allows two values for as a choice of those, and runs with the fixed value.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signToken } from '../../src/access/tokens.js';
import { HAS_CHROMIUM, openBrowser, screenshot, watchForProblems, type Browser } from '../support/browser.js';
import { loadFixtures, SHIPPED_ENDPOINTS } from '../support/service.js';
import { startServe, type ServeProcess } from '../support/serve-process.js';
import { projectOfId, rowsOf, tenantFixtures } from '../http/tenant-fixtures.js';

const SECRET = 'the-console-test-secret-0123456789abcdef';

describe.skipIf(!HAS_CHROMIUM)('the console with a scoped token', () => {
  let dir: string;
  let serve: ServeProcess;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'cannery-console-access-'));
    const db = join(dir, 'db.duckdb');
    await loadFixtures(db, tenantFixtures());
    serve = await startServe(['--db', db, '--endpoints', SHIPPED_ENDPOINTS], { CANNERY_JWT_SECRET: SECRET, CANNERY_API_KEYS: '', CANNERY_COMPILE_CACHE: 'off' });
    browser = await openBrowser({ downloads: dir });
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await serve?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  const connect = async (token: string, hash: string) => {
    page = await browser.context.newPage();
    const problems = await watchForProblems(page);
    await page.goto(`${serve.url}/${hash}`);
    await page.fill('#api-key', token);
    await page.click('form.key-form button[type=submit]');
    await page.waitForSelector('.endpoint h2');
    return problems;
  };

  it('shows the fixed project filled in and locked, and runs with it', async () => {
    const token = await signToken(SECRET, { scopes: [{ endpoint: 'logs.all', params: { project: 'abc' } }], ttlSeconds: 600, name: 'browser-abc' });
    const problems = await connect(token, '#logs.all?project=xyz');
    expect(await page.locator('nav.endpoints [data-endpoint]').evaluateAll((items) => items.map((item: any) => item.dataset.endpoint))).toEqual(['logs.all']);
    const field = page.locator('#param-project');
    expect(await field.inputValue()).toBe('abc');
    expect(await field.evaluate((input: any) => input.readOnly)).toBe(true);
    expect(await page.textContent('.field.fixed[data-param=project] .help')).toBe('Fixed by your key or token: the service answers for no other value.');
    await field.focus();
    await page.keyboard.type('xyz');
    await page.keyboard.press('Backspace');
    expect(await field.inputValue()).toBe('abc');
    await screenshot(page, 'console-access-fixed');
    const [response] = await Promise.all([page.waitForResponse((one) => one.url().includes('/api/endpoints/query/')), page.click('button.run')]);
    expect(new URL(response.url()).searchParams.get('project')).toBe('abc');
    expect(response.status()).toBe(200);
    const body = (await response.json()) as { result: { id: string }[] };
    expect(body.result.map((row) => projectOfId(row.id))).toEqual(Array(rowsOf('abc')).fill('abc'));
    await page.waitForSelector('.result .summary');
    expect(problems).toEqual([]);
    await page.close();
  });

  it('shows a parameter the token allows two values for as a choice of those two', async () => {
    const token = await signToken(SECRET, {
      scopes: [
        { endpoint: 'usage.api-counts', params: { project: 'abc' } },
        { endpoint: 'usage.api-counts', params: { project: 'xyz' } },
      ],
      ttlSeconds: 600,
    });
    const problems = await connect(token, '');
    expect(await page.locator('#param-project option').evaluateAll((options) => options.map((option: any) => option.value))).toEqual(['abc', 'xyz']);
    await page.selectOption('#param-project', 'xyz');
    await page.selectOption('#param-interval', 'daily');
    const [response] = await Promise.all([page.waitForResponse((one) => one.url().includes('/api/endpoints/query/')), page.click('button.run')]);
    expect(response.status()).toBe(200);
    expect(new URL(response.url()).searchParams.get('project')).toBe('xyz');
    expect(problems).toEqual([]);
    await page.close();
  });
});
