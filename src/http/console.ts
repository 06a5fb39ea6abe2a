/**
 * The console's files: the page at `/`, everything it loads under CONSOLE_PREFIX. They are built
 * from web/ into dist/console/ by `npm run build` (web/build.mjs) and read into memory once, at
 * start-up: a few hundred kilobytes, and a request can only ever get one of the files found
 * then, never a path of its choosing.
 */
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

export const CONSOLE_PREFIX = '/console/';

/** dist/console/ beside dist/http/; from src/http/ (tests run the sources) the same folder. */
export const BUILT_CONSOLE_DIR = fileURLToPath(new URL('../../dist/console/', import.meta.url));

/** Where the page's built HTML takes the nonce of its response (web/index.html). */
export const NONCE_PLACEHOLDER = '{{nonce}}';

/**
 * Scripts, styles and fetches from this origin only, and no inline script at all: an injected
 * one would not run. The one exception is the style elements the SQL editor (CodeMirror) writes
 * at run time, allowed by a nonce made afresh for each page load and handed to the page in a
 * meta tag. No frames, no plugins, no forms posting away.
 */
export function consoleCsp(nonce: string): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    `style-src 'self' 'nonce-${nonce}'`,
    "img-src 'self' data:",
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
};

/** X-Content-Type-Options is the app's, on every answer (app.ts). */
const SECURITY_HEADERS = {
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
};

interface ConsoleFile {
  body: Uint8Array;
  type: string;
}

export interface ConsoleAssets {
  /** The page's HTML, split where each response's nonce goes. */
  page: string[];
  /** By URL path, CONSOLE_PREFIX included. */
  files: ReadonlyMap<string, ConsoleFile>;
}

/** The built console in `dir`, or undefined when it has not been built there (no index.html). */
export function loadConsoleAssets(dir: string = BUILT_CONSOLE_DIR): ConsoleAssets | undefined {
  let page: string[];
  try {
    page = readFileSync(join(dir, 'index.html'), 'utf8').split(NONCE_PLACEHOLDER);
  } catch {
    return undefined;
  }
  const files = new Map<string, ConsoleFile>();
  for (const path of filesUnder(dir)) {
    const type = TYPES[extname(path)];
    const name = relative(dir, path).split(sep).join('/');
    if (type === undefined || name === 'index.html') continue;
    files.set(CONSOLE_PREFIX + name, { body: readFileSync(path), type });
  }
  return { page, files };
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

/** The page, with a nonce of its own; never kept by the browser, since the nonce must be new each time. */
export function consolePage(assets: ConsoleAssets): Response {
  const nonce = randomBytes(18).toString('base64');
  return fileResponse({ body: new TextEncoder().encode(assets.page.join(nonce)), type: TYPES['.html']! }, 'no-store', nonce);
}

/**
 * A file under CONSOLE_PREFIX, or undefined. Their names carry a hash of their content
 * (web/build.mjs), so a browser may keep them for good.
 */
export function consoleFile(assets: ConsoleAssets, pathname: string): Response | undefined {
  const file = assets.files.get(pathname);
  return file && fileResponse(file, 'public, max-age=31536000, immutable');
}

function fileResponse(file: ConsoleFile, cacheControl: string, nonce?: string): Response {
  const headers: Record<string, string> = { 'content-type': file.type, 'content-length': String(file.body.byteLength), 'cache-control': cacheControl, ...SECURITY_HEADERS };
  if (nonce !== undefined) headers['content-security-policy'] = consoleCsp(nonce);
  return new Response(file.body, { status: 200, headers });
}
