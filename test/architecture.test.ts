/**
 * The layout of src/ (DESIGN.md, docs/development.md), checked on every run:
 * - the top-level folders import one way, `core <- config <- sql <- engine <- backends`, with
 *   `stores` and `access` beside `backends` and `demo`, `http` and `cli` as shells above;
 * - inside `sql` and `engine`, each room (a subfolder, or the folder's own files) imports only the
 *   rooms before it in its order, with the few exceptions named below and why;
 * - no file imports itself back through others, type-only imports included (a cycle through
 *   types is a contract split across two files);
 * - no two files of a folder have names one letter apart (`worker.ts` / `workers.ts`).
 * A failure names the file and the import.
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
  stores: ['core', 'config', 'engine'],
  // engine for one thing: a fixed value and a caller's are compared as the endpoint reads them (engine/serve/params.ts).
  access: ['core', 'config', 'engine'],
  demo: ['core', 'config', 'sql', 'engine', 'backends'],
  http: ['core', 'config', 'sql', 'engine', 'access'],
  cli: ['core', 'config', 'sql', 'engine', 'backends', 'stores', 'access', 'demo', 'http'],
};

/**
 * The rooms of a folder in import order: a room may import itself and the rooms before it. `.`
 * is the folder's own files (`sql/language.ts`, `engine/backend.ts`).
 */
const ROOMS: Record<string, readonly string[]> = {
  sql: ['parse', 'analyse', 'functions', '.', 'generator', 'dialects', 'sandbox'],
  engine: ['.', 'compile', 'serve', 'testing', 'contracts', 'ingest'],
};

/** Imports against a room order that the design wants, each with its reason. */
const ROOM_EXCEPTIONS: readonly { from: RegExp; to: RegExp; why: string }[] = [
  { from: /^sql\/parse\/to-tree\.ts$/, to: /^sql\/language\.ts$/, why: 'the reader asks the language table which arguments are date parts' },
  {
    from: /^sql\/(language\.ts|functions\/[^/]+\.ts)$/,
    to: /^sql\/dialects\/duckdb\/(quote|semantics|json-path|time-formats|cast-formats|number-formats|host-functions|sql-macros|time-zones)\.ts$/,
    why: "each row of the language table carries its DuckDB rendering, written with the DuckDB dialect's helpers (which import only parse and analyse)",
  },
];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

function folders(dir: string): string[] {
  return [dir, ...readdirSync(dir, { withFileTypes: true }).filter((entry) => entry.isDirectory()).flatMap((entry) => folders(join(dir, entry.name)))];
}

/** Relative module specifiers of static imports (type-only ones too), re-exports and dynamic imports. */
function relativeImports(text: string): string[] {
  const found: string[] = [];
  for (const match of text.matchAll(/(?:from\s+|import\(\s*)'(\.{1,2}\/[^']+)'/g)) found.push(match[1]!);
  return found;
}

/** The file an import names: `./x.js` is `./x.ts` in src/. */
function importedFile(file: string, specifier: string): string {
  return resolve(dirname(file), specifier).replace(/\.js$/, '.ts');
}

function layerOf(file: string): string {
  const top = relative(SRC, file).split('/')[0]!;
  return top.endsWith('.ts') ? 'entry' : top;
}

/** The room of a file inside a folder with rooms: its subfolder, or `.` for the folder's own files. */
function roomOf(file: string): string {
  const parts = relative(SRC, file).split('/');
  return parts.length === 2 ? '.' : parts[1]!;
}

/** Edit distance at most one: one letter added, removed or changed. */
function oneApart(a: string, b: string): boolean {
  if (a === b || Math.abs(a.length - b.length) > 1) return false;
  let i = 0;
  while (i < a.length && a[i] === b[i]) i++;
  const tail = (x: string, skip: number) => x.slice(i + skip);
  return tail(a, 1) === tail(b, 1) || tail(a, 1) === tail(b, 0) || tail(a, 0) === tail(b, 1);
}

/** Strongly connected groups of more than one file (Tarjan): each is an import cycle. */
function cycles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, next);
    low.set(node, next);
    next++;
    stack.push(node);
    onStack.add(node);
    for (const to of graph.get(node) ?? []) {
      if (!index.has(to)) {
        visit(to);
        low.set(node, Math.min(low.get(node)!, low.get(to)!));
      } else if (onStack.has(to)) {
        low.set(node, Math.min(low.get(node)!, index.get(to)!));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const group: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      group.push(member);
    } while (member !== node);
    if (group.length > 1) found.push(group);
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return found;
}

describe('architecture', () => {
  const files = sourceFiles(SRC);
  const imports = new Map(files.map((file) => [file, relativeImports(readFileSync(file, 'utf8'))]));

  it('every top-level folder of src/ has a place in the layers', () => {
    const top = readdirSync(SRC, { withFileTypes: true }).filter((entry) => entry.isDirectory()).map((entry) => entry.name);
    expect(top.sort()).toEqual(Object.keys(MAY_IMPORT).sort());
  });

  it('no module imports a layer above its own', () => {
    const violations: string[] = [];
    for (const file of files) {
      const from = layerOf(file);
      if (from === 'entry') continue;
      for (const specifier of imports.get(file)!) {
        const to = layerOf(importedFile(file, specifier));
        if (to !== from && !MAY_IMPORT[from]!.includes(to)) violations.push(`${relative(SRC, file)} imports ${specifier} (${from} -> ${to})`);
      }
    }
    expect(violations).toEqual([]);
  });

  it('every room of sql/ and engine/ is in its order', () => {
    for (const [folder, rooms] of Object.entries(ROOMS)) {
      const present = readdirSync(join(SRC, folder), { withFileTypes: true }).filter((entry) => entry.isDirectory()).map((entry) => entry.name);
      expect(present.sort(), folder).toEqual(rooms.filter((room) => room !== '.').sort());
    }
  });

  it('inside sql/ and engine/, no room imports a room after it', () => {
    const violations: string[] = [];
    for (const file of files) {
      const layer = layerOf(file);
      const rooms = ROOMS[layer];
      if (!rooms) continue;
      for (const specifier of imports.get(file)!) {
        const target = importedFile(file, specifier);
        if (layerOf(target) !== layer) continue;
        const [from, to] = [roomOf(file), roomOf(target)];
        if (rooms.indexOf(to) <= rooms.indexOf(from)) continue;
        const [fromPath, toPath] = [relative(SRC, file), relative(SRC, target)];
        if (ROOM_EXCEPTIONS.some((exception) => exception.from.test(fromPath) && exception.to.test(toPath))) continue;
        violations.push(`${fromPath} imports ${specifier} (${layer}/${from} -> ${layer}/${to})`);
      }
    }
    expect(violations).toEqual([]);
  });

  it('no import cycle between files, type-only imports included', () => {
    const graph = new Map(files.map((file) => [file, imports.get(file)!.map((specifier) => importedFile(file, specifier))]));
    expect(cycles(graph).map((group) => group.map((file) => relative(SRC, file)).sort().join(' -> '))).toEqual([]);
  });

  it('no two files of a folder have names one letter apart', () => {
    const twins: string[] = [];
    for (const root of ['../src/', '../test/', '../bench/']) {
      for (const folder of folders(fileURLToPath(new URL(root, import.meta.url)))) {
        const names = readdirSync(folder).filter((name) => /\.(ts|mjs)$/.test(name)).map((name) => name.replace(/(\.test)?\.(ts|mjs)$/, ''));
        for (const [i, a] of names.entries()) for (const b of names.slice(i + 1)) if (oneApart(a, b)) twins.push(`${relative(SRC, folder)}: ${a} / ${b}`);
      }
    }
    expect(twins).toEqual([]);
  });

  it('its readers are not blind', () => {
    const engine = files.filter((file) => layerOf(file) === 'engine').flatMap((file) => imports.get(file)!);
    expect(engine.some((specifier) => specifier.includes('../core/'))).toBe(true);
    expect(relativeImports(`import a from '../x.js';\nimport type { T } from './t.js';\nexport { b } from './y.js';\nawait import('../z.js');`)).toEqual(['../x.js', './t.js', './y.js', '../z.js']);
    expect(cycles(new Map([['a', ['b']], ['b', ['c']], ['c', ['a']], ['d', ['a']]])).map((group) => group.sort())).toEqual([['a', 'b', 'c']]);
    expect([oneApart('worker', 'workers'), oneApart('key', 'keys'), oneApart('file', 'fine'), oneApart('parse', 'print')]).toEqual([true, true, true, false]);
  });
});
