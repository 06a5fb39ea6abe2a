/**
 * vitest's global setup: the tests run the built code (dist/, see vitest.config.ts), so it must be
 * the code in src/. When any source of the build (src/, the grammar, the console, the schemas' validators, the
 * package and TypeScript settings) is newer than
 * what it built, this builds once before any test file starts, and says so; `npm test` has built
 * already (pretest), and finds nothing to do.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

function filesUnder(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(ROOT, join(entry.parentPath, entry.name)));
}

function modified(file: string): number {
  try {
    return statSync(join(ROOT, file)).mtimeMs;
  } catch {
    return -1;
  }
}

/** The first source newer than what the build made of it, if any. */
export function staleSource(): string | undefined {
  for (const source of filesUnder('src')) {
    if (!source.endsWith('.ts') || source.endsWith('.d.ts')) continue;
    if (modified(source) > modified(source.replace(/^src\//, 'dist/').replace(/\.ts$/, '.js'))) return source;
  }
  const grammar = modified('dist/sql/parse/bigquery-grammar.js');
  const console = modified('dist/console/index.html');
  for (const source of filesUnder('grammar')) if (modified(source) > grammar) return source;
  for (const source of filesUnder('web')) if (modified(source) > console) return source;
  for (const source of filesUnder('schemas')) {
    if (source.endsWith('.schema.json') && modified(source) > modified(`dist/config/validators/${basename(source, '.json')}.cjs`)) return source;
  }
  // The build's settings, which build-stamp.mjs hashes too: `npm start` (run by the docs tier)
  // would otherwise build again first, and say so.
  for (const file of ['package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json', 'transpile.mjs']) {
    if (modified(file) > modified('dist/.build-stamp')) return file;
  }
  return undefined;
}

export default function setup(): void {
  const stale = staleSource();
  if (stale === undefined) return;
  console.error(`tests run the built code: ${stale} changed since the last build, so building first (npm run build)`);
  const build = spawnSync('npm', ['run', 'build', '--silent'], { cwd: ROOT, stdio: 'inherit' });
  if (build.status !== 0) throw new Error('npm run build failed; the tests run the built code, so they cannot run');
}
