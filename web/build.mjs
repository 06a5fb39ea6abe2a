/**
 * Builds the console (web/) into dist/console/ with esbuild: one ES module and one stylesheet,
 * bundled with their libraries (nothing is fetched from a CDN at run time), minified, named by
 * content hash so the service can let browsers keep them for good, and index.html pointing at them.
 * Run by `npm run build`.
 */
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createHash } from 'node:crypto';
import { build } from 'esbuild';

const web = dirname(fileURLToPath(import.meta.url));
const out = join(web, '..', 'dist', 'console');
const assets = join(out, 'assets');

rmSync(out, { recursive: true, force: true });
const result = await build({
  entryPoints: { console: join(web, 'src', 'main.ts'), style: join(web, 'console.css') },
  bundle: true,
  format: 'esm',
  platform: 'browser',
  target: ['chrome111', 'firefox113', 'safari16.4'],
  minify: true,
  legalComments: 'eof',
  entryNames: '[name]-[hash]',
  outdir: assets,
  metafile: true,
  logLevel: 'warning',
});

const outputOf = (entry) => {
  const [path] = Object.entries(result.metafile.outputs).find(([, output]) => output.entryPoint?.endsWith(entry)) ?? [];
  if (!path) throw new Error(`esbuild wrote nothing for ${entry}`);
  return relative(out, path).split('\\').join('/');
};

const icon = readFileSync(join(web, 'icon.svg'));
const iconName = `icon-${createHash('sha256').update(icon).digest('hex').slice(0, 8)}.svg`;
mkdirSync(assets, { recursive: true });
copyFileSync(join(web, 'icon.svg'), join(assets, iconName));

// Relative to the page at `/`, so a proxy may serve the service under a path of its own.
const page = readFileSync(join(web, 'index.html'), 'utf8')
  .replace('{{script}}', `console/${outputOf('src/main.ts')}`)
  .replace('{{style}}', `console/${outputOf('console.css')}`)
  .replace('{{icon}}', `console/assets/${basename(iconName)}`);
writeFileSync(join(out, 'index.html'), page);
