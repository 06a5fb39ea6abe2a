/**
 * The layers of src/ (DESIGN.md): data flows one way, `core <- config <- sql <- engine <- backends`,
 * with `demo`, `http` and `cli` as shells above. A module may import its own folder and the folders
 * its layer lists; anything else is a cycle waiting to happen, and fails here with the file named.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = fileURLToPath(new URL('../src/', import.meta.url));

/** Each top-level folder and what it may import besides itself. */
const MAY_IMPORT: Record<string, readonly string[]> = {
  core: [],
  config: ['core'],
  sql: ['core', 'config'],
  engine: ['core', 'config', 'sql'],
  backends: ['core', 'config', 'sql', 'engine'],
  demo: ['core', 'config', 'sql', 'engine', 'backends'],
  http: ['core', 'config', 'sql', 'engine'],
  cli: ['core', 'config', 'sql', 'engine', 'backends', 'demo', 'http'],
};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** Relative module specifiers of static imports, re-exports and dynamic imports. */
function relativeImports(text: string): string[] {
  const found: string[] = [];
  for (const match of text.matchAll(/(?:from\s+|import\(\s*)'(\.{1,2}\/[^']+)'/g)) found.push(match[1]!);
  return found;
}

function layerOf(file: string): string {
  const top = relative(SRC, file).split('/')[0]!;
  return top.endsWith('.ts') ? 'entry' : top;
}

describe('architecture', () => {
  const files = sourceFiles(SRC);

  it('every top-level folder of src/ has a place in the layers', () => {
    const folders = readdirSync(SRC, { withFileTypes: true }).filter((entry) => entry.isDirectory()).map((entry) => entry.name);
    expect(folders.sort()).toEqual(Object.keys(MAY_IMPORT).sort());
  });

  it('no module imports a layer above its own', () => {
    const violations: string[] = [];
    for (const file of files) {
      const from = layerOf(file);
      if (from === 'entry') continue;
      for (const specifier of relativeImports(readFileSync(file, 'utf8'))) {
        const to = layerOf(resolve(dirname(file), specifier));
        if (to !== from && !MAY_IMPORT[from]!.includes(to)) violations.push(`${relative(SRC, file)} imports ${specifier} (${from} -> ${to})`);
      }
    }
    expect(violations).toEqual([]);
  });

  it('finds the imports it checks (the reader is not blind)', () => {
    const engine = files.filter((file) => layerOf(file) === 'engine').flatMap((file) => relativeImports(readFileSync(file, 'utf8')));
    expect(engine.some((specifier) => specifier.includes('../core/'))).toBe(true);
    expect(relativeImports(`import a from '../x.js';\nexport { b } from './y.js';\nawait import('../z.js');`)).toEqual(['../x.js', './y.js', '../z.js']);
  });
});
