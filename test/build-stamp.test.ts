/**
 * build-stamp.mjs, the real script in a folder of its own: `ensure` (what `npm start` runs first)
 * builds when there is no stamp or a source's content changed, and not otherwise, however the
 * files' times move (a fresh clone sets them all).
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const SCRIPT = fileURLToPath(new URL('../build-stamp.mjs', import.meta.url));

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cannery-build-stamp-'));
  copyFileSync(SCRIPT, join(dir, 'build-stamp.mjs'));
  // A build that counts its runs, and ends as the real one does.
  const build = `node -e "const fs=require('fs');fs.appendFileSync('builds.txt','x')" && node build-stamp.mjs write`;
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'stamp-probe', private: true, scripts: { 'build:start': build } }));
  for (const folder of ['src', 'grammar', 'web/src']) mkdirSync(join(dir, folder), { recursive: true });
  writeFileSync(join(dir, 'src', 'cli.ts'), 'export {};\n');
  writeFileSync(join(dir, 'web', 'src', 'main.ts'), 'export {};\n');
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const ensure = () => execFileSync(process.execPath, ['build-stamp.mjs', 'ensure'], { cwd: dir, encoding: 'utf8', env: { PATH: process.env.PATH ?? '' } });
const builds = () => readFileSync(join(dir, 'builds.txt'), 'utf8').length;

describe('build-stamp.mjs ensure', () => {
  it('builds without a stamp, then not again until a source changes', () => {
    expect(ensure()).toContain('cannery: building (npm run build:start) ...');
    expect(builds()).toBe(1);
    expect(ensure()).toBe('');
    expect(builds()).toBe(1);

    // Newer times, same contents: still current.
    const later = new Date(Date.now() + 60_000);
    utimesSync(join(dir, 'src', 'cli.ts'), later, later);
    expect(ensure()).toBe('');
    expect(builds()).toBe(1);

    writeFileSync(join(dir, 'web', 'src', 'main.ts'), 'export const changed = true;\n');
    expect(ensure()).toContain('cannery: the sources changed since the last build; building (npm run build:start) ...');
    expect(builds()).toBe(2);
    expect(ensure()).toBe('');

    writeFileSync(join(dir, 'src', 'new-module.ts'), 'export {};\n');
    expect(ensure()).toContain('the sources changed');
    expect(builds()).toBe(3);
  });
});
