/**
 * cannery as `npm pack` ships it, installed into a fresh folder as a user would: what
 * test/cli/package.test.ts and test/cli/own-data.test.ts run. A pack builds the whole project
 * (prepack), minutes on a loaded machine, so it is made once per content of what a build reads
 * and kept in the system's temporary folder under that content's digest: the files that use it,
 * run at once in other workers, wait for one pack (a lock folder) rather than make two.
 */
import { execFile, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readdir, rename, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** What a build reads: copied, so the pack builds its own dist/ and never the one the other tests run. */
const BUILD_INPUTS = ['package.json', 'tsconfig.json', 'tsconfig.build.json', 'build-stamp.mjs', 'README.md', 'src', 'grammar', 'vendor', 'web', 'schemas', 'sources', 'docs/ci'];
/** What else the pack's content follows from: the dependencies the build bundles (vendor/build.mjs). */
const DIGESTED = [...BUILD_INPUTS, 'package-lock.json'];

/** npm as a user runs it: the machine's npm cache, none of the npm_* settings of the `npm test` running this. */
export const NPM_ENV = {
  PATH: process.env.PATH ?? '',
  HOME: process.env.HOME ?? tmpdir(),
  ...(process.env.npm_config_cache ? { npm_config_cache: process.env.npm_config_cache } : {}),
};

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

export function run(command: string, args: string[], cwd: string, env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve) => {
    execFile(command, args, { cwd, env: { ...NPM_ENV, ...env }, maxBuffer: 16 << 20 }, (error, stdout, stderr) => {
      resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

/** The digest of every file a pack reads, by path and content. */
function inputsDigest(): string {
  const hash = createHash('sha256');
  const add = (path: string): void => {
    if (statSync(path).isDirectory()) {
      for (const entry of readdirSync(path).sort()) add(join(path, entry));
      return;
    }
    hash.update(`${relative(ROOT, path)}\0`);
    hash.update(readFileSync(path));
    hash.update('\0');
  };
  for (const input of DIGESTED) add(join(ROOT, input));
  return hash.digest('hex').slice(0, 16);
}

/** A lock older than this was left by a run that died: a pack takes minutes, not this. */
const STALE_LOCK_MS = 20 * 60_000;
/** Packs of other contents kept this long, for the runs (other checkouts) that may still be installing them. */
const KEEP_OLD_PACKS_MS = 24 * 60 * 60_000;
const PREFIX = 'cannery-packed-';

/** The path of the tarball `npm pack` makes of the sources as they are now. */
export async function packedTarball(): Promise<string> {
  const base = join(tmpdir(), `${PREFIX}${inputsDigest()}`);
  const lock = `${base}.lock`;
  for (;;) {
    const made = tarballIn(base);
    if (made !== undefined) return made;
    try {
      await mkdir(lock);
    } catch {
      // Another file packs these sources: wait for its tarball, or take over a lock it left behind.
      const age = await stat(lock).then((info) => Date.now() - info.mtimeMs, () => 0);
      if (age > STALE_LOCK_MS) await rm(lock, { recursive: true, force: true });
      await new Promise((resolve) => setTimeout(resolve, 1000));
      continue;
    }
    try {
      if (tarballIn(base) === undefined) await pack(base);
    } finally {
      await rm(lock, { recursive: true, force: true });
    }
    await removeOldPacks(base);
  }
}

function tarballIn(dir: string): string | undefined {
  if (!existsSync(dir)) return undefined;
  const name = readdirSync(dir).find((entry) => entry.endsWith('.tgz'));
  return name === undefined ? undefined : join(dir, name);
}

/** `npm pack` on a copy of the sources; the tarball lands in `base` whole (a rename), or not at all. */
async function pack(base: string): Promise<void> {
  const work = await mkdtemp(`${base}.work-`);
  try {
    const source = join(work, 'source');
    for (const input of BUILD_INPUTS) await cp(join(ROOT, input), join(source, input), { recursive: true });
    await symlink(join(ROOT, 'node_modules'), join(source, 'node_modules'));
    const out = join(work, 'out');
    await mkdir(out);
    const packed = await run('npm', ['pack', '--pack-destination', out], source);
    if (packed.code !== 0) throw new Error(`npm pack failed (${packed.code}):\n${packed.stderr}`);
    await rename(out, base);
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

async function removeOldPacks(keep: string): Promise<void> {
  for (const entry of await readdir(tmpdir())) {
    const path = join(tmpdir(), entry);
    if (!entry.startsWith(PREFIX) || path === keep) continue;
    const info = await stat(path).catch(() => undefined);
    if (info !== undefined && Date.now() - info.mtimeMs > KEEP_OLD_PACKS_MS) await rm(path, { recursive: true, force: true });
  }
}

/** A fresh folder holding only a package.json, with the tarball installed as `npm install` does (dependencies from the npm cache, else the registry). */
export async function installInFreshFolder(tarball: string, name: string): Promise<{ dir: string; project: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'cannery-package-'));
  const project = join(dir, name);
  await mkdir(project);
  await writeFile(join(project, 'package.json'), JSON.stringify({ name, private: true }, null, 2));
  const install = await run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', tarball], project);
  if (install.code !== 0) throw new Error(`npm install failed (${install.code}):\n${install.stderr}`);
  return { dir, project };
}

/**
 * `cannery serve` of the package installed in `project`, on a free port, until `stop`: its URL once
 * it listens. The key `key` is the one caller; no compile cache outside the folder.
 */
export async function serveInstalled(project: string, args: string[], key: string): Promise<{ url: string; stop: () => void }> {
  const child = spawn(process.execPath, [join(project, 'node_modules', '.bin', 'cannery'), 'serve', '--port', '0', ...args], {
    cwd: project,
    env: { PATH: NPM_ENV.PATH, CANNERY_API_KEYS: key, CANNERY_COMPILE_CACHE: 'off' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const stop = () => child.kill('SIGKILL');
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
        out += chunk;
        const match = / on (http:\/\/\S+) /.exec(out);
        if (match) resolve(match[1]!);
      });
      child.on('exit', (code) => reject(new Error(`serve exited (${code}) before listening: ${out}`)));
    });
    return { url, stop };
  } catch (error) {
    stop();
    throw error;
  }
}
