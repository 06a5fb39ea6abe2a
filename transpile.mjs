/**
 * src/ to dist/ as JavaScript, file by file, without type checks: the build `npm start` runs
 * (`npm run build:start`). esbuild does it in about a second; tsc, which `npm run build` runs,
 * takes 10 s of CPU, most of a first start. `npm run typecheck` and `npm test` (which builds with
 * tsc first) check the types.
 */
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = dirname(fileURLToPath(import.meta.url));
const src = join(root, 'src');
const entryPoints = readdirSync(src, { recursive: true, withFileTypes: true })
  .filter((entry) => entry.isFile() && entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts'))
  .map((entry) => join(entry.parentPath, entry.name));

await build({
  entryPoints,
  outdir: join(root, 'dist'),
  outbase: src,
  format: 'esm',
  platform: 'node',
  // As tsconfig.json's target, so classes and their fields behave as tsc's output does.
  target: 'es2022',
  sourcemap: true,
  logLevel: 'warning',
});
