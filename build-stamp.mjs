/**
 * The build's stamp: a hash of everything the build reads (src/, grammar/, vendor/, web/, the
 * package and TypeScript settings), kept in dist/.build-stamp. `npm start` builds only when the stamp is
 * missing or differs, so a second start with nothing changed serves in seconds, not after a
 * rebuild. Contents, not modification times: a fresh clone or a checkout sets every file's time,
 * and an unchanged file must not count as a change.
 *
 *   node build-stamp.mjs write    the last step of `npm run build` and `npm run build:start`
 *   node build-stamp.mjs ensure   builds (npm run build:start: without type checks, transpile.mjs)
 *                                 unless the stamp matches the sources
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = dirname(fileURLToPath(import.meta.url));
const STAMP = join(ROOT, 'dist', '.build-stamp');
const FOLDERS = ['src', 'grammar', 'vendor', 'web', 'schemas'];
const FILES = ['package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json', 'transpile.mjs'];

function inputs() {
  const files = FILES.filter((file) => existsSync(join(ROOT, file)));
  for (const folder of FOLDERS) {
    if (!existsSync(join(ROOT, folder))) continue;
    for (const entry of readdirSync(join(ROOT, folder), { withFileTypes: true, recursive: true })) {
      if (entry.isFile()) files.push(relative(ROOT, join(entry.parentPath, entry.name)).split('\\').join('/'));
    }
  }
  return files.sort();
}

function sourceHash() {
  const hash = createHash('sha256');
  for (const file of inputs()) hash.update(`${file}\0`).update(readFileSync(join(ROOT, file))).update('\0');
  return hash.digest('hex');
}

const command = process.argv[2];
if (command === 'write') {
  mkdirSync(dirname(STAMP), { recursive: true });
  writeFileSync(STAMP, `${sourceHash()}\n`);
} else if (command === 'ensure') {
  const stamp = existsSync(STAMP) ? readFileSync(STAMP, 'utf8').trim() : undefined;
  if (stamp !== sourceHash()) {
    console.log(stamp === undefined ? 'cannery: building (npm run build:start) ...' : 'cannery: the sources changed since the last build; building (npm run build:start) ...');
    const build = spawnSync('npm', ['run', 'build:start', '--silent'], { cwd: ROOT, stdio: 'inherit' });
    process.exit(build.status ?? 1);
  }
} else {
  console.error('usage: node build-stamp.mjs write|ensure');
  process.exit(2);
}
