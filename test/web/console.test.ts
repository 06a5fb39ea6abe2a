/**
 * The console in a real browser (Debian's headless Chromium, driven by playwright-core) against
 * the built CLI's `serve --demo`: the key, both endpoints run from their forms, the service's 400
 * beside its field, sandbox SQL with completion and its refusals marked where they apply, the
 * chart, the downloads, redaction, and copy as curl, whose command, run in a shell, gives the
 * rows the page shows. What the page shows is checked against the service's own answers to the
 * same requests. Screenshots of each view go to test-artifacts/ (not committed);
 * CANNERY_DOCS_SCREENSHOT=<path> also writes the README's (npm run docs:screenshot).
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Page, Request, Response } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { MAIN_DEMO_PROJECT } from '../../src/demo/seed.js';
import { formatTimestamp } from '../../web/src/values.js';
import { CHROMIUM, HAS_CHROMIUM, openBrowser, screenshot, watchForProblems, type Browser } from '../support/browser.js';
import { startServe, type ServeProcess } from '../support/serve-process.js';
import { SHIPPED_ENDPOINTS as ENDPOINTS } from '../support/shipped-endpoints.js';

const KEY = 'console-browser-key';
const QUERY = '/api/endpoints/query/';

if (!HAS_CHROMIUM) console.warn(`console browser tests skipped: no Chromium at ${CHROMIUM} (apt-get install chromium, or set CANNERY_CHROMIUM)`);

describe.skipIf(!HAS_CHROMIUM)('the console in Chromium', () => {
  let dir: string;
  let serve: ServeProcess;
  let browser: Browser;
  let page: Page;
  let problems: string[];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'cannery-console-browser-'));
    // Without live events: the tests compare what the page shows with the service's own answer to the same request.
    serve = await startServe(['--demo', '--db', join(dir, 'demo.duckdb'), '--endpoints', ENDPOINTS], { CANNERY_API_KEYS: KEY, CANNERY_DEMO_LIVE: 'false' });
    browser = await openBrowser({ downloads: dir });
  });
  afterAll(async () => {
    await browser?.close();
    await serve?.stop();
    await rm(dir, { recursive: true, force: true });
  });
  afterEach(async () => {
    await page?.close();
    expect(problems, 'script errors or CSP violations on the page').toEqual([]);
  });

  /** A new tab (so a new sessionStorage) on the console, connected with the key. */
  const connect = async (hash = '') => {
    page = await browser.context.newPage();
    problems = await watchForProblems(page);
    await page.goto(`${serve.url}/${hash}`);
    await page.fill('#api-key', KEY);
    await page.click('form.key-form button[type=submit]');
    await page.waitForSelector('.endpoint h2');
  };

  const openEndpoint = async (name: string) => {
    await page.click(`[data-endpoint="${name}"]`);
    await page.waitForSelector(`.endpoint h2:text-is("${name}")`);
  };

  /** Clicks Run; the request the page sent and the service's response to it, once the page shows it. */
  const run = async (): Promise<{ request: Request; response: Response }> => {
    const [response] = await Promise.all([page.waitForResponse((one) => one.url().includes(QUERY)), page.click('button.run')]);
    await page.waitForSelector('.result .summary, .result .error');
    return { request: response.request(), response };
  };

  /** The service's own answer to a request, asked directly. */
  const direct = async (path: string, headers: Record<string, string> = {}) => {
    const response = await fetch(`${serve.url}${path}`, { headers: { 'x-api-key': KEY, ...headers } });
    return { status: response.status, text: await response.text(), headers: response.headers };
  };

  /** Replaces the SQL editor's text. */
  const setSql = async (sql: string) => {
    await page.click('.sql-editor .cm-content');
    await page.keyboard.press('Control+A');
    await page.keyboard.press('Delete');
    await page.locator('.sql-editor .cm-content').fill(sql);
  };

  const download = async (format: string) => {
    const [file] = await Promise.all([page.waitForEvent('download'), page.click(`.downloads button[data-format=${format}]`)]);
    return { name: file.suggestedFilename(), text: await readFile((await file.path())!, 'utf8') };
  };

  it('asks for the key, says clearly when it is wrong, and keeps it in this tab only', async () => {
    page = await browser.context.newPage();
    problems = await watchForProblems(page);
    await page.goto(`${serve.url}/`);
    await screenshot(page, 'console-1-key');
    await page.fill('#api-key', 'clé secrète');
    await page.click('form.key-form button[type=submit]');
    expect(await page.textContent('.key-error')).toBe('An API key is letters, digits and ASCII punctuation only, without spaces.');
    await page.fill('#api-key', 'not-the-key');
    await page.click('form.key-form button[type=submit]');
    await page.waitForSelector('.key-error:not(:empty)');
    expect(await page.textContent('.key-error')).toBe(
      'The service refused this key (invalid API key). Use one of CANNERY_API_KEYS, or the key `cannery serve` printed at start-up.',
    );
    // The refused key's 401 is expected; nothing else may go wrong.
    await page.fill('#api-key', KEY);
    await page.click('form.key-form button[type=submit]');
    await page.waitForSelector('.endpoint h2');
    expect(await page.locator('nav.endpoints [data-endpoint]').evaluateAll((items) => items.map((item: any) => item.dataset.endpoint))).toEqual([
      'logs.all',
      'usage.api-counts',
    ]);
    const storage = await page.evaluate(() => {
      const window = globalThis as any;
      return { session: { ...window.sessionStorage }, local: window.localStorage.length, cookie: window.document.cookie };
    });
    expect(storage).toEqual({ session: { 'cannery.apiKey': KEY }, local: 0, cookie: '' });
    expect(page.url()).not.toContain(KEY);
    await page.reload();
    await page.waitForSelector('.endpoint h2');
    expect(await page.textContent('.endpoint h2')).toBe('logs.all');
  });

  /** Nothing wider than the window: the page never scrolls sideways. */
  const expectNoHorizontalOverflow = async () => {
    const [scrollWidth, innerWidth] = await page.evaluate(() => [(globalThis as any).document.documentElement.scrollWidth, (globalThis as any).innerWidth]);
    expect(scrollWidth).toBeLessThanOrEqual(innerWidth);
  };

  /** The chart's x-axis labels (data-x-labels: [left, right] from its left edge): apart from each other, and inside it. */
  const expectLabelsApart = async () => {
    const chart = page.locator('.chart');
    await chart.locator('canvas').waitFor();
    const boxes = JSON.parse((await chart.getAttribute('data-x-labels'))!) as [number, number][];
    expect(boxes.length).toBeGreaterThan(1);
    const width = (await chart.boundingBox())!.width;
    for (const [index, [left, right]] of boxes.entries()) {
      expect(left).toBeGreaterThanOrEqual(0);
      expect(right).toBeLessThanOrEqual(width);
      if (index > 0) expect(left).toBeGreaterThan(boxes[index - 1]![1]);
    }
  };

  it.each([1280, 390])('at %i px: no sideways scrolling, a compact key form, x-axis labels apart, and rows with the query\'s own LIMIT', async (width) => {
    page = await browser.context.newPage();
    problems = await watchForProblems(page);
    await page.setViewportSize({ width, height: 900 });
    await page.goto(`${serve.url}/`);
    // An input and a button of their own height, not stretched to fill the page.
    for (const height of await page.locator('.key-form input, .key-form button').evaluateAll((items) => items.map((item: any) => item.getBoundingClientRect().height))) {
      expect(height).toBeGreaterThan(20);
      expect(height).toBeLessThan(48);
    }
    await expectNoHorizontalOverflow();
    await screenshot(page, `console-layout-${width}-key`);
    await page.fill('#api-key', KEY);
    await page.click('form.key-form button[type=submit]');
    await page.waitForSelector('.endpoint h2');

    await openEndpoint('logs.all');
    expect(await page.locator('.settings div', { hasText: 'rows' }).textContent()).toBe('rowsat most 100 (its query’s LIMIT); your own sql: at most 1,000');
    await page.fill('#param-project', MAIN_DEMO_PROJECT);
    // A line longer than any phone is wide scrolls inside the editor.
    await setSql(`select id, timestamp, event_message, metadata from edge_logs where event_message like '%${'x'.repeat(120)}%' or true order by timestamp desc`);
    await run();
    await expectNoHorizontalOverflow();
    await screenshot(page, `console-layout-${width}-logs`);

    await openEndpoint('usage.api-counts');
    expect(await page.locator('.settings div', { hasText: 'rows' }).textContent()).toBe('rowsat most 1,000');
    await page.fill('#param-project', MAIN_DEMO_PROJECT);
    // Daily ticks carry the date, the widest labels; minutely the most ticks.
    for (const interval of ['daily', 'minutely']) {
      await page.selectOption('#param-interval', interval);
      await run();
      await expectLabelsApart();
      await expectNoHorizontalOverflow();
      await screenshot(page, `console-layout-${width}-${interval}`);
    }
  });

  it('runs logs.all from its form: the rows the service answers, TIMESTAMPs in UTC with the raw value on hover, metadata expandable', async () => {
    await connect();
    await openEndpoint('logs.all');
    await page.fill('#param-project', MAIN_DEMO_PROJECT);
    await page.fill('#param-iso_timestamp_start', '2000-01-01T00:00:00');
    await page.selectOption('#param-iso_timestamp_start-zone', 'Z');
    const { request } = await run();
    const sent = new URL(request.url());
    expect(sent.pathname).toBe(`${QUERY}logs.all`);
    expect([...sent.searchParams]).toEqual([
      ['project', MAIN_DEMO_PROJECT],
      ['iso_timestamp_start', '2000-01-01T00:00:00Z'],
    ]);
    expect(request.headers()['x-api-key']).toBe(KEY);

    const expected = JSON.parse((await direct(sent.pathname + sent.search)).text).result;
    expect(expected.length).toBe(100);
    expect(await page.textContent('.result .summary .rows')).toBe('100 rows');
    expect(await page.locator('table.rows tbody tr').count()).toBe(100);
    expect(await page.locator('table.rows th').allTextContents()).toEqual(['id', 'timestamp', 'event_message', 'metadata']);
    const first = page.locator('table.rows tbody tr').first();
    expect(await first.locator('td').first().textContent()).toBe(expected[0].id);
    const time = first.locator('time');
    expect(await time.textContent()).toBe(formatTimestamp(expected[0].timestamp));
    expect(await time.textContent()).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(\.\d{1,6})? UTC$/);
    expect(await time.getAttribute('title')).toBe(`${expected[0].timestamp} (Unix microseconds)`);
    const nested = first.locator('details.nested');
    expect(await nested.locator('pre').isVisible()).toBe(false);
    await nested.locator('summary').click();
    expect(JSON.parse((await nested.locator('pre').textContent())!)).toEqual(expected[0].metadata);
    // logs.all is not cached, so there is no X-Cache to show.
    expect(await page.locator('.result .summary .cache').count()).toBe(0);
    expect(await page.textContent('.result .summary .time')).toMatch(/^\d[\d,]* ms$/);
    await screenshot(page, 'console-2-logs-all');

    const json = await download('json');
    expect(json.name).toBe('logs.all.json');
    expect(JSON.parse(json.text).result).toEqual(expected);
  });

  it('runs usage.api-counts, charts it with one point per row, stacked or not, and zooms where the mouse drags', async () => {
    await connect(`#usage.api-counts?project=${MAIN_DEMO_PROJECT}`);
    expect(await page.textContent('.endpoint h2')).toBe('usage.api-counts');
    expect(await page.inputValue('#param-project')).toBe(MAIN_DEMO_PROJECT);
    await page.selectOption('#param-interval', 'minutely');
    const { request, response } = await run();
    expect(response.status()).toBe(200);
    const answer = await direct(new URL(request.url()).pathname + new URL(request.url()).search);
    const rows = JSON.parse(answer.text).result;
    expect(rows.length).toBeGreaterThan(30);
    expect(await page.textContent('.result .summary .rows')).toBe(`${rows.length} rows`);
    expect(await page.textContent('.result .summary .cache')).toMatch(/^X-Cache: (MISS|HIT)$/);
    expect(await page.textContent('.result .summary .age')).toMatch(/^Age: \d+ s$/);

    const chart = page.locator('.chart');
    await chart.locator('canvas').waitFor();
    expect(await chart.getAttribute('data-points')).toBe(String(rows.length));
    expect(await chart.getAttribute('data-series')).toBe('4');
    const lines = await seriesPixels(page);
    expect(lines).toBeGreaterThan(rows.length);
    await screenshot(page, 'console-3-chart');

    await page.check('#chart-stacked');
    await chart.locator('canvas').waitFor();
    expect(await chart.getAttribute('data-points')).toBe(String(rows.length));
    expect(await seriesPixels(page)).toBeGreaterThan(rows.length);
    await screenshot(page, 'console-4-chart-stacked');
    const docs = process.env.CANNERY_DOCS_SCREENSHOT;
    if (docs) {
      // The README's picture: the form, the stacked chart and its legend, the table's first rows.
      await page.setViewportSize({ width: 1360, height: 1180 });
      await page.screenshot({ path: docs });
    }

    const area = (await chart.locator('.u-over').boundingBox())!;
    const y = area.y + area.height / 2;
    await page.mouse.move(area.x + area.width * 0.25, y);
    await page.mouse.down();
    await page.mouse.move(area.x + area.width * 0.5, y, { steps: 5 });
    await page.mouse.up();
    const [min, max] = (await chart.getAttribute('data-x-range'))!.split(',').map(Number) as [number, number];
    const first = Date.parse(`${rows[0].timestamp}Z`) / 1000;
    const last = Date.parse(`${rows.at(-1).timestamp}Z`) / 1000;
    expect(min).toBeGreaterThan(first);
    expect(max).toBeLessThan(last);
    expect(max - min).toBeLessThan((last - first) / 2);

    // The same rows as the service writes them, in each format.
    expect(JSON.parse((await download('json')).text).result).toEqual(rows);
    const viaService = async (accept: string) => (await direct(new URL(request.url()).pathname + new URL(request.url()).search, { accept })).text;
    expect((await download('ndjson')).text).toBe(await viaService('application/x-ndjson'));
    expect((await download('csv')).text).toBe(await viaService('text/csv'));
  });

  it('checks a regex as it is typed, and shows the service\'s 400 beside the field it names', async () => {
    await connect();
    await openEndpoint('usage.api-counts');
    await page.fill('#param-project', 'ab(c');
    const message = page.locator('.field[data-param=project] .field-error');
    expect(await message.textContent()).toMatch(/^parameter "project" must be a valid RE2 regular expression: /);
    expect(await page.getAttribute('#param-project', 'aria-invalid')).toBe('true');
    await page.fill('#param-project', 'ab(c)');
    expect(await message.textContent()).toBe('');

    await openEndpoint('logs.all');
    await page.fill('#param-project', '');
    const { response } = await run();
    expect(response.status()).toBe(400);
    const error = ((await response.json()) as any).error;
    expect(error).toMatchObject({ code: 'missing_parameter', param: 'project' });
    expect(await page.textContent('.field[data-param=project] .field-error')).toBe(error.message);
    expect(await page.getAttribute('#param-project', 'aria-invalid')).toBe('true');
    expect(await page.textContent('.result .error')).toBe('400 missing_parameter: see the message beside project');
    await screenshot(page, 'console-5-400-beside-field');
  });

  it('completes CTE names and nested fields in sandbox SQL, and marks a refusal where it applies', async () => {
    await connect(`#logs.all?project=${MAIN_DEMO_PROJECT}`);
    await setSql('select  from postgres_logs cross join unnest(metadata) as m cross join unnest(m.parsed) as p');
    await page.click('.sql-editor .cm-content');
    await page.keyboard.press('Control+Home');
    for (let step = 0; step < 'select '.length; step++) await page.keyboard.press('ArrowRight');
    await page.keyboard.type('p.');
    const options = page.locator('.cm-tooltip-autocomplete li');
    await options.first().waitFor();
    expect(await options.allTextContents()).toEqual(
      expect.arrayContaining([expect.stringContaining('error_severity'), expect.stringContaining('user_name'), expect.stringContaining('query')]),
    );
    await screenshot(page, 'console-6-completion');
    await page.keyboard.press('Escape');

    await setSql('select count(*) as n from pgbo');
    await page.click('.sql-editor .cm-content');
    await page.keyboard.press('Control+End');
    await page.keyboard.press('Control+Space');
    await options.first().waitFor();
    expect(await options.allTextContents()).toEqual([expect.stringContaining('pgbouncer_logs')]);
    // CodeMirror ignores Enter for its first 75 ms (interactionDelay), so a key already down does not pick.
    await page.waitForTimeout(150);
    await page.keyboard.press('Enter');
    expect(await page.textContent('.sql-editor .cm-content')).toBe('select count(*) as n from pgbouncer_logs');

    await setSql('select id, timestamp\nfrom `postgres.logs`\nlimit 5');
    let { response } = await run();
    let error = ((await response.json()) as any).error;
    expect(error).toMatchObject({ code: 'sandbox_violation', param: 'sql' });
    expect(await page.textContent('.cm-lintRange-error')).toBe('`postgres.logs`');
    expect(await page.textContent('.sql-field .field-error')).toBe(`${error.message} (at line 2, column 6)`);
    await screenshot(page, 'console-7-sandbox-violation');

    await setSql('select id\nfrom edge_logs\nwhere timestamp > > 3');
    ({ response } = await run());
    error = ((await response.json()) as any).error;
    expect(error.message).toMatch(/SQL syntax error at line 3, column 19: found ">", expected an expression$/);
    expect(await page.textContent('.cm-lintRange-error')).toBe('>');
    expect(await page.textContent('.sql-field .field-error')).toBe(error.message);
  });

  it('runs a sandbox template, and charts a timestamp_trunc ... group by', async () => {
    await connect(`#logs.all?project=${MAIN_DEMO_PROJECT}`);
    await page.selectOption('#sql-template', { label: 'Requests per hour by status class (chart)' });
    expect(await page.textContent('.sql-editor .cm-content')).toContain('timestamp_trunc(timestamp, hour) as hour');
    const { request } = await run();
    const sent = new URL(request.url());
    expect(sent.searchParams.get('sql')).toContain('from edge_logs');
    const rows = JSON.parse((await direct(sent.pathname + sent.search)).text).result;
    expect(rows.length).toBeGreaterThan(100);
    expect(Object.keys(rows[0])).toEqual(['hour', 'ok', 'client_errors', 'server_errors']);
    expect(await page.textContent('.result .summary .rows')).toBe(`${rows.length} rows`);
    const chart = page.locator('.chart');
    await chart.locator('canvas').waitFor();
    expect(await chart.getAttribute('data-points')).toBe(String(rows.length));
    expect(await chart.getAttribute('data-series')).toBe('3');
    expect(await seriesPixels(page)).toBeGreaterThan(100);
    expect(await page.textContent('table.rows tbody tr:first-child time')).toBe(formatTimestamp(rows[0].hour));
    await screenshot(page, 'console-8-sandbox-chart');
  });

  it('sends the redaction header when asked, and the copied curl command does too', async () => {
    await connect(`#logs.all?project=${MAIN_DEMO_PROJECT}`);
    await page.check('#redact');
    const { request } = await run();
    expect(request.headers()['svc-endpoint-redact-pii']).toBe('true');
    const sent = new URL(request.url());
    const redacted = JSON.parse((await direct(sent.pathname + sent.search, { 'svc-endpoint-redact-pii': 'true' })).text).result;
    expect(JSON.stringify(redacted)).toContain('REDACTED');
    expect(JSON.parse((await download('json')).text).result).toEqual(redacted);
    await page.click('button.copy-curl');
    await page.waitForSelector('.curl-command');
    expect(await page.textContent('.curl-command')).toContain("-H 'SVC-ENDPOINT-REDACT-PII: true'");
    expect(JSON.parse(await shell((await page.textContent('.curl-command'))!)).result).toEqual(redacted);
  });

  it('copies as curl exactly the request it sent, GET or (for long SQL) POST, which run in a shell gives the same rows', async () => {
    await connect(`#usage.api-counts?project=${MAIN_DEMO_PROJECT}&interval=hourly`);
    expect(await page.isDisabled('button.copy-curl')).toBe(true);
    const get = await run();
    expect(get.request.method()).toBe('GET');
    await page.click('button.copy-curl');
    await page.waitForSelector('.curl-command');
    const command = await page.evaluate(() => (globalThis as any).navigator.clipboard.readText());
    expect(await page.textContent('.curl-command')).toBe(command);
    expect(command).toBe(`curl -H 'X-API-KEY: ${KEY}' '${get.request.url()}'`);
    const shown = JSON.parse((await download('json')).text).result;
    expect(JSON.parse(await shell(command)).result).toEqual(shown);
    await screenshot(page, 'console-9-curl');

    // Past the service's URL limit, the page POSTs the same parameters as JSON, and the command follows.
    await openEndpoint('logs.all');
    const sql = `select id, event_message from auth_logs -- ${'x'.repeat(9000)}\nwhere event_message like '%\\'%' or true order by id limit 7`;
    await setSql(sql);
    const post = await run();
    expect(post.request.method()).toBe('POST');
    expect(JSON.parse(post.request.postData()!)).toEqual({ project: MAIN_DEMO_PROJECT, sql });
    await page.click('button.copy-curl');
    const posted = await page.evaluate(() => (globalThis as any).navigator.clipboard.readText());
    expect(posted).toContain("-H 'content-type: application/json' --data-raw '");
    const rows = JSON.parse((await download('json')).text).result;
    expect(rows.length).toBe(7);
    expect(JSON.parse(await shell(posted)).result).toEqual(rows);
  });
});

/** Pixels of the first series' colour (#2f6fdf) on the chart's canvas: zero when no line was drawn. */
function seriesPixels(page: Page): Promise<number> {
  return page.locator('.chart canvas').evaluate((canvas: any) => {
    const { data } = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height);
    let count = 0;
    for (let at = 0; at < data.length; at += 4) {
      if (Math.abs(data[at] - 0x2f) < 24 && Math.abs(data[at + 1] - 0x6f) < 24 && Math.abs(data[at + 2] - 0xdf) < 24 && data[at + 3] > 200) count++;
    }
    return count;
  });
}

/** Runs `command` in bash, as a person pasting it would, and gives its output. */
async function shell(command: string): Promise<string> {
  const { stdout } = await promisify(execFile)('bash', ['-c', command], { maxBuffer: 16 * 1024 * 1024 });
  return stdout;
}
