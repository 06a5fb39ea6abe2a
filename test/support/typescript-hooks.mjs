/**
 * Module hooks that let a worker thread started by a test run src/'s TypeScript, as vitest does
 * in its own threads: `.ts` files are stripped of their types by esbuild, and `./x.js` imports
 * find `./x.ts`. Given to a worker with `--import` (WORKER_EXEC_ARGV in typescript-workers.ts).
 */
import { readFile } from 'node:fs/promises';
import { register } from 'node:module';

// Registering loads this file again as the hooks' module (`?hooks`), which must not register
// again. Every thread registers its own: a worker thread inherits --import, not the hooks.
if (!import.meta.url.endsWith('?hooks')) register(`${import.meta.url}?hooks`);

export async function resolve(specifier, context, next) {
  try {
    return await next(specifier, context);
  } catch (error) {
    if (error?.code !== 'ERR_MODULE_NOT_FOUND' || !specifier.startsWith('.') || !specifier.endsWith('.js')) throw error;
    return next(`${specifier.slice(0, -3)}.ts`, context);
  }
}

export async function load(url, context, next) {
  if (!url.endsWith('.ts')) return next(url, context);
  const { transform } = await import('esbuild');
  const { code } = await transform(await readFile(new URL(url), 'utf8'), { loader: 'ts', format: 'esm', target: 'node20', sourcefile: url });
  return { format: 'module', source: code, shortCircuit: true };
}
