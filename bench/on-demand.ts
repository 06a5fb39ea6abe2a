/**
 * Packages only a benchmark needs (chDB is about half a gigabyte), installed the first time a
 * benchmark asks for them into a cache folder, never by `npm install` of the project:
 * `$CANNERY_BENCH_CACHE` or `~/.cache/cannery-bench` (with its own package.json), by npm's ordinary client.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { join } from 'node:path';

export const BENCH_CACHE = process.env.CANNERY_BENCH_CACHE ?? join(homedir(), '.cache', 'cannery-bench');

/** `name` as `require` loads it from the cache folder, installed at `version` first when it is not there. */
export function requireOnDemand<T>(name: string, version: string): T {
  const folder = join(BENCH_CACHE, 'node_modules', name);
  if (!existsSync(join(folder, 'package.json'))) {
    mkdirSync(BENCH_CACHE, { recursive: true });
    console.error(`bench: installing ${name}@${version} into ${BENCH_CACHE} (once)`);
    const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
    execFileSync(npm, ['install', '--prefix', BENCH_CACHE, '--no-audit', '--no-fund', '--loglevel', 'error', `${name}@${version}`], { stdio: ['ignore', 'ignore', 'inherit'] });
  }
  return createRequire(join(BENCH_CACHE, 'node_modules', '.package-lock.json'))(name) as T;
}
