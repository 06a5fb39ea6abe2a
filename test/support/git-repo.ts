/** Temporary git repositories holding a copy of the shipped endpoints, for `cannery diff` and the CI recipe. */
import { execFile } from 'node:child_process';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { SHIPPED_ENDPOINTS } from './service.js';

const run = promisify(execFile);

/** Only what git needs: no global config, hooks or signing from the machine running the tests. */
const GIT_ENV = {
  PATH: process.env.PATH ?? '',
  HOME: tmpdir(),
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_AUTHOR_NAME: 'test',
  GIT_AUTHOR_EMAIL: 'test@example.com',
  GIT_COMMITTER_NAME: 'test',
  GIT_COMMITTER_EMAIL: 'test@example.com',
};

export async function git(args: string[], cwd: string): Promise<string> {
  const { stdout } = await run('git', args, { cwd, env: GIT_ENV });
  return stdout.trim();
}

export interface Repo {
  dir: string;
  /** Rewrites a file of the work tree (path from the repository's top). */
  edit(path: string, change: (text: string) => string): Promise<void>;
  commit(message: string): Promise<string>;
  remove(): Promise<void>;
}

/** A repository whose `main` has one commit: endpoints/ as shipped, tests included but for `leaveOut` (paths in endpoints/). */
export async function repoWithShippedEndpoints(leaveOut: string[] = []): Promise<Repo> {
  const dir = await mkdtemp(join(tmpdir(), 'cannery-repo-'));
  await git(['init', '--quiet', '--initial-branch', 'main'], dir);
  await cp(SHIPPED_ENDPOINTS, join(dir, 'endpoints'), { recursive: true });
  await Promise.all(leaveOut.map((path) => rm(join(dir, 'endpoints', path))));
  const repo: Repo = {
    dir,
    async edit(path, change) {
      const file = join(dir, path);
      const text = await readFile(file, 'utf8');
      const changed = change(text);
      if (changed === text) throw new Error(`the edit changed nothing in ${path}`);
      await writeFile(file, changed);
    },
    async commit(message) {
      await git(['add', '--all'], dir);
      await git(['commit', '--quiet', '--message', message], dir);
      return git(['rev-parse', 'HEAD'], dir);
    },
    remove: () => rm(dir, { recursive: true, force: true }),
  };
  await repo.commit('endpoints as shipped');
  return repo;
}

/** A new column in usage.api-counts: compatible. */
export function addGraphqlColumn(text: string): string {
  return text.replace(
    "    coalesce(countif(path like '%/realtime%'), 0) as total_realtime_requests\n",
    "    coalesce(countif(path like '%/realtime%'), 0) as total_realtime_requests,\n    coalesce(countif(path like '%/graphql%'), 0) as total_graphql_requests\n",
  );
}

/** usage.api-counts without its daily interval: breaking. */
export function dropDailyInterval(text: string): string {
  return text.replace('enum: [minutely, hourly, daily]', 'enum: [minutely, hourly]');
}
