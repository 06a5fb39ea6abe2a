/**
 * Headless Chromium from Debian's packages (`apt-get install chromium`; .ci/run installs it),
 * driven by playwright-core, which never downloads a browser of its own. Started with a fresh
 * profile and with every flag that keeps it off the network (this machine's network is closed,
 * and Chromium would otherwise keep trying Google's hosts).
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

export const CHROMIUM = process.env.CANNERY_CHROMIUM || '/usr/bin/chromium';
export const HAS_CHROMIUM = existsSync(CHROMIUM);

const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Screenshots of each view, for a person (or CI's artefacts) to look at; not committed. */
export const ARTIFACTS = fileURLToPath(new URL('../../test-artifacts/', import.meta.url));

export interface Browser {
  context: BrowserContext;
  close(): Promise<void>;
}

export async function openBrowser(options: { downloads: string }): Promise<Browser> {
  const profile = await mkdtemp(join(tmpdir(), 'cannery-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: FLAGS,
    viewport: { width: 1360, height: 900 },
    acceptDownloads: true,
    downloadsPath: options.downloads,
    permissions: ['clipboard-read', 'clipboard-write'],
    timezoneId: 'UTC',
    locale: 'en-US',
  });
  return {
    context,
    async close() {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}

/**
 * Everything a page reports that should never happen: script errors, and anything the
 * Content-Security-Policy blocked (an inline style, a foreign origin).
 */
export async function watchForProblems(page: Page): Promise<string[]> {
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  await page.exposeFunction('reportCspViolation', (text: string) => problems.push(`CSP: ${text}`));
  // Text, not a function: this file is compiled without the DOM's types.
  await page.addInitScript({
    content: `document.addEventListener('securitypolicyviolation', (event) =>
      window.reportCspViolation(event.violatedDirective + ' blocked ' + event.blockedURI + ' (' + event.sourceFile + ':' + event.lineNumber + ')'));`,
  });
  return problems;
}

export async function screenshot(page: Page, name: string): Promise<void> {
  await mkdir(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });
}
