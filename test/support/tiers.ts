/**
 * The two test tiers (docs/development.md). A test file is in the service tier when it starts what
 * the unit tier never does: a server on a socket, the CLI or another process, Chromium, Redis, the
 * local BigQuery server, or a DuckDB database file; its folder says so (test/cli, test/backends,
 * test/stores, test/demo, test/robustness, test/docs: the docs' shell blocks) or its imports do.
 * Everything else is the unit tier, which runs in well under a minute. Read by vitest.config.ts, so a new test lands in its tier
 * without a list to keep.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const SERVICE_FOLDERS = ['test/cli/', 'test/backends/', 'test/stores/', 'test/demo/', 'test/robustness/', 'test/docs/'];

/** What a file that starts a server, a process, a browser or a store imports or calls. */
const STARTS_SOMETHING =
  /support\/(service|serve-process|cannery-cli|browser|ops-service|bigquery-server|git-repo|doc-runner)\.js|robustness\/(cli|raw-http|fault-proxy)\.js|redis-server|\blisten\(|\bspawn\(|\bexecFile(Sync)?\(|\bexecSync\(|createServer\(/;

export function isServiceTier(root: string, file: string): boolean {
  const path = relative(root, file);
  return SERVICE_FOLDERS.some((folder) => path.startsWith(folder)) || STARTS_SOMETHING.test(readFileSync(file, 'utf8'));
}

/** Every test file of a tier, relative to `root`. */
export function testFiles(root: string, tier: 'unit' | 'service'): string[] {
  return readdirSync(join(root, 'test'), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.test.ts'))
    .map((entry) => join(entry.parentPath, entry.name))
    .filter((file) => isServiceTier(root, file) === (tier === 'service'))
    .map((file) => relative(root, file))
    .sort();
}
