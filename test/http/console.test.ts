/**
 * The console's files over a real socket: the page at `/` with its security headers, the built
 * files under /console/ and nothing else, and no console at all unless the app is given one.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUILT_CONSOLE_DIR, consoleCsp, loadConsoleAssets } from '../../src/http/console.js';
import { parsePrometheusText } from '../support/prometheus-text.js';
import { startTestService, TEST_KEY, type TestService } from '../support/service.js';

const PAGE = '<!doctype html><meta name="csp-nonce" content="{{nonce}}"><title>t</title><script type="module" src="console/assets/main-AB12CD34.js"></script>';
const SCRIPT = 'console.log("hi")';

let dir: string;
let svc: TestService;
let bare: TestService;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cannery-console-'));
  await mkdir(join(dir, 'assets'));
  await writeFile(join(dir, 'index.html'), PAGE);
  await writeFile(join(dir, 'assets', 'main-AB12CD34.js'), SCRIPT);
  await writeFile(join(dir, 'assets', 'main-AB12CD34.css'), 'body{}');
  await writeFile(join(dir, 'notes.txt'), 'not a console file');
  svc = await startTestService({ console: loadConsoleAssets(dir) });
  bare = await startTestService();
});
afterAll(async () => {
  await svc.close();
  await bare.close();
  await rm(dir, { recursive: true, force: true });
});

describe('the console files', () => {
  it('serves the page at / without a key, with a strict CSP whose style nonce is new on every load', async () => {
    const nonces: string[] = [];
    for (let load = 0; load < 2; load++) {
      const response = await svc.get('/');
      expect(response.status).toBe(200);
      const text = await response.text();
      const nonce = /content="([^"]+)"/.exec(text)![1]!;
      expect(text).toBe(PAGE.replace('{{nonce}}', nonce));
      expect(nonce).toMatch(/^[A-Za-z0-9+/]{24}$/);
      expect(Object.fromEntries(response.headers)).toMatchObject({
        'content-type': 'text/html; charset=utf-8',
        'content-length': String(Buffer.byteLength(text)),
        'cache-control': 'no-store',
        'content-security-policy': consoleCsp(nonce),
        'x-content-type-options': 'nosniff',
        'referrer-policy': 'no-referrer',
        'cross-origin-opener-policy': 'same-origin',
      });
      nonces.push(nonce);
    }
    expect(nonces[0]).not.toBe(nonces[1]);
    const csp = consoleCsp('n');
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self';");
    expect(csp).toContain("style-src 'self' 'nonce-n';");
    expect(csp).toContain("connect-src 'self';");
    expect(csp).not.toContain('unsafe');
    const head = await fetch(`${svc.url}/`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
  });

  it('serves the built files under /console/ by type, kept for good since their names carry a hash', async () => {
    const script = await svc.get('/console/assets/main-AB12CD34.js');
    expect(script.status).toBe(200);
    expect(await script.text()).toBe(SCRIPT);
    expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(script.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect((await svc.get('/console/assets/main-AB12CD34.css')).headers.get('content-type')).toBe('text/css; charset=utf-8');
  });

  it.each([
    '/console/assets/other.js',
    '/console/notes.txt',
    '/console/index.html',
    '/console/',
    '/console/assets/../../index.html',
    '/console/%2e%2e/%2e%2e/package.json',
    '/console/..%2f..%2fpackage.json',
    '/index.html',
  ])('answers %s with a JSON 404: only the files found at start-up are served', async (path) => {
    const response = await svc.get(path);
    expect(response.status).toBe(404);
    expect(((await response.json()) as any).error.code).toBe('not_found');
  });

  it('has no console, and / is an ordinary 404, when the app is given none', async () => {
    const response = await bare.get('/');
    expect(response.status).toBe(404);
    expect(((await response.json()) as any).error.code).toBe('not_found');
  });

  it('counts its requests in the metrics under route="console"', async () => {
    await (await svc.get('/')).arrayBuffer();
    await (await svc.get('/console/assets/main-AB12CD34.js')).arrayBuffer();
    const samples = parsePrometheusText(await (await svc.get('/metrics', { 'x-api-key': TEST_KEY })).text());
    expect(samples.value('cannery_http_requests_total', { route: 'console', endpoint: '', status: '200' })).toBeGreaterThanOrEqual(2);
  });

  it('finds no console in a folder without an index.html', () => {
    expect(loadConsoleAssets(join(dir, 'assets'))).toBeUndefined();
    expect(loadConsoleAssets(join(dir, 'missing'))).toBeUndefined();
  });
});

describe('the built console (npm run build)', () => {
  it('has a page that loads only files of its own, by relative URL, and nothing inline', async () => {
    const assets = loadConsoleAssets(BUILT_CONSOLE_DIR);
    expect(assets, `no console built in ${BUILT_CONSOLE_DIR}: run npm run build`).toBeDefined();
    const page = await readFile(join(BUILT_CONSOLE_DIR, 'index.html'), 'utf8');
    const scripts = [...page.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)];
    expect(scripts.length).toBeGreaterThan(0);
    for (const [, attributes, body] of scripts) {
      expect(attributes).toMatch(/\bsrc="console\//);
      expect(body).toBe('');
    }
    expect(page).not.toMatch(/<style\b|\sstyle=|\son[a-z]+=/i);
    for (const [, reference] of page.matchAll(/(?:src|href)="([^"]+)"/g)) {
      expect(assets!.files.has(`/${reference}`), reference).toBe(true);
    }
  });
});
