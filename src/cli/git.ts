/**
 * The git that `cannery diff` needs, read-only: which commit to compare with, and the endpoint
 * and source files as that commit holds them (`git show`, no checkout). Nothing is ever fetched:
 * in a shallow clone that lacks the commit, the error says what is missing and how to get it.
 */
import { execFile } from 'node:child_process';
import { realpath } from 'node:fs/promises';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { promisify } from 'node:util';
import { isYamlFileName } from '../config/endpoint-folder.js';

const run = promisify(execFile);

/** Why `cannery diff` cannot compare: no repository, no such commit, history missing. */
export class GitProblem extends Error {
  override name = 'GitProblem';
}

async function git(args: string[], cwd: string): Promise<string> {
  const { stdout } = await run('git', args, { cwd, maxBuffer: 256 * 1024 * 1024, encoding: 'utf8' });
  return stdout;
}

async function gitOrUndefined(args: string[], cwd: string): Promise<string | undefined> {
  try {
    return (await git(args, cwd)).trim();
  } catch {
    return undefined;
  }
}

export interface EndpointsInRepository {
  /** The working tree's top folder. */
  top: string;
  /** The endpoints folder from there, with / (empty for the top itself). */
  path: string;
}

export async function locateInRepository(dir: string): Promise<EndpointsInRepository> {
  const real = await realpath(dir).catch((error: Error) => {
    throw new GitProblem(`endpoint folder ${dir} cannot be read: ${error.message}`);
  });
  const top = await gitOrUndefined(['rev-parse', '--show-toplevel'], real);
  if (top === undefined) throw new GitProblem(`${dir} is not in a git repository: cannery diff compares the endpoint files with a commit`);
  const path = relative(await realpath(top), real).split(sep).join('/');
  return { top, path };
}

/**
 * Another folder of the same working tree (the sources beside the endpoints), which need not exist
 * now (its files may all be removed); undefined when it lies outside the repository.
 */
export async function folderInRepository(dir: string, top: string): Promise<EndpointsInRepository | undefined> {
  const real = await realpath(dir).catch(() => resolve(dir));
  const path = relative(await realpath(top), real).split(sep).join('/');
  return path === '..' || path.startsWith('../') || isAbsolute(path) ? undefined : { top, path };
}

export interface Base {
  /** As the user or the default named it: `origin/main`, `HEAD~1`. */
  label: string;
  commit: string;
}

/**
 * `requested`, or the merge base of HEAD with the default branch: the branch a pull request
 * targets (GITHUB_BASE_REF on GitHub Actions), else origin's HEAD (unless that is the branch
 * checked out), else main or master, on origin or here.
 */
export async function resolveBase(requested: string | undefined, top: string, env: NodeJS.ProcessEnv = process.env): Promise<Base> {
  const shallow = (await gitOrUndefined(['rev-parse', '--is-shallow-repository'], top)) === 'true';
  const shallowHint = shallow
    ? ' This is a shallow clone and cannery diff fetches nothing: fetch the history (`git fetch --unshallow`, or `fetch-depth: 0` in actions/checkout), or pass --base with a commit this clone has.'
    : '';
  if (requested !== undefined) {
    const commit = await commitOf(requested, top);
    if (commit === undefined) throw new GitProblem(`--base ${requested} is not a commit in this repository.${shallowHint}`);
    return { label: requested, commit };
  }
  const originHead = await gitOrUndefined(['symbolic-ref', '--quiet', '--short', 'refs/remotes/origin/HEAD'], top);
  const current = await gitOrUndefined(['symbolic-ref', '--quiet', '--short', 'HEAD'], top);
  // `git clone --branch X` points origin/HEAD at X itself: comparing X with X would find nothing.
  const candidates = defaultBranches(env, originHead === `origin/${current}` ? undefined : originHead);
  for (const branch of candidates) {
    const tip = await commitOf(branch, top);
    if (tip === undefined) continue;
    const base = await gitOrUndefined(['merge-base', 'HEAD', tip], top);
    if (base === undefined) {
      throw new GitProblem(`HEAD and ${branch} have no common commit here, so there is no merge base to compare with.${shallowHint}`);
    }
    return { label: `the merge base with ${branch}`, commit: base };
  }
  throw new GitProblem(`found no default branch to compare with (tried ${candidates.join(', ')}); pass --base REF.${shallowHint}`);
}

function defaultBranches(env: NodeJS.ProcessEnv, originHead: string | undefined): string[] {
  const branches = [env.GITHUB_BASE_REF ? `origin/${env.GITHUB_BASE_REF}` : undefined, originHead, 'origin/main', 'origin/master', 'main', 'master'];
  return [...new Set(branches.filter((branch): branch is string => Boolean(branch)))];
}

async function commitOf(ref: string, top: string): Promise<string | undefined> {
  // `--end-of-options`: a ref that starts with `-` is a name, never an option.
  return gitOrUndefined(['rev-parse', '--verify', '--quiet', '--end-of-options', `${ref}^{commit}`], top);
}

/** The YAML files directly in a folder (endpoints, sources) as `commit` holds them; none when it has no such folder. */
export async function yamlTextsAt(commit: string, where: EndpointsInRepository): Promise<{ path: string; text: string }[]> {
  const folder = where.path === '' ? '' : `${where.path}/`;
  const listing = await git(['ls-tree', '-z', '--full-tree', commit, '--', ...(folder ? [folder] : [])], where.top);
  const paths = listing
    .split('\0')
    .filter(Boolean)
    .map((entry) => /^\d+ (\w+) [0-9a-f]+\t(.*)$/s.exec(entry))
    .filter((match): match is RegExpExecArray => match?.[1] === 'blob' && isYamlFileName(match[2]!.slice(folder.length)))
    .map((match) => match[2]!);
  return Promise.all(paths.map(async (path) => ({ path, text: await git(['show', `${commit}:${path}`], where.top) })));
}
