/**
 * The compile cache through loadRegistry, on real folders: a warm load compiles nothing and
 * serves exactly what a cold one does; each thing a compile depends on changes the key; a
 * damaged, unwritable or foreign folder never changes what is served.
 */
import { chmod, cp, mkdir, mkdtemp, readdir, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { BUILT_IN_SOURCES, sourceNames } from '../../../src/config/sources.js';
import type { CompileContext } from '../../../src/engine/compile/compile.js';
import { contentKey, fingerprintOf, openCompileCache, type CompileCache } from '../../../src/engine/compile/cache.js';
import { compileSettings } from '../../../src/engine/compile/settings.js';
import { loadRegistry, type Registry } from '../../../src/engine/serve/registry.js';
import { bigQueryDialect } from '../../../src/sql/dialects/bigquery/dialect.js';
import { sourceTables } from '../../../src/sql/dialects/bigquery/tables.js';
import { duckDbDialect } from '../../../src/sql/dialects/duckdb/dialect.js';
import { sourceColumns, sourceColumnsLookup } from '../../../src/sql/analyse/shapes.js';
import { endpointText } from '../../support/endpoint-text.js';
import { SHIPPED_ENDPOINTS } from '../../support/service.js';
import { THREAD_THAT_CANNOT_START } from '../../support/threads.js';

const sources = sourceNames(BUILT_IN_SOURCES);
const duckdb = (lookup = sourceColumnsLookup(BUILT_IN_SOURCES)) => duckDbDialect(sources, { sourceColumns: lookup, strictNames: true });
const bigquery = (dataset = 'd') => bigQueryDialect(sourceTables(sources, { project: 'p', dataset }));
const CONTEXT: CompileContext = { dialect: duckdb(), sources };

const made: string[] = [];
/** The caches opened: a load writes its entries after it returns, so a folder is removed only once they settle. */
const opened: CompileCache[] = [];
afterEach(async () => {
  // Removed while an entry was still being written, a folder is not empty by the time rm reaches it (ENOTEMPTY).
  await Promise.all(opened.splice(0).map((cache) => cache.settled()));
  await Promise.all(made.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

async function temporary(prefix: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}

/** A folder of the shipped endpoints and three small ones. */
async function endpointFolder(): Promise<string> {
  const dir = await temporary('cannery-cc-endpoints-');
  await cp(SHIPPED_ENDPOINTS, dir, { recursive: true });
  for (let i = 0; i < 3; i++) await writeFile(join(dir, `small-${i}.yaml`), endpointText(`cache.small${i}`, [], [`select ${i} as n, t.id from \`postgres.logs\` as t`]));
  return dir;
}

async function cacheIn(dir: string, log: string[] = []): Promise<CompileCache> {
  const cache = await openCompileCache(dir, (line) => log.push(line));
  expect(cache, log.join('\n')).toBeDefined();
  opened.push(cache!);
  return cache!;
}

/** What a registry serves, file by file: everything but the functions. */
function served(registry: Registry) {
  return { endpoints: registry.endpoints, problems: registry.problems };
}

async function entries(cacheDir: string): Promise<string[]> {
  const contexts = (await readdir(cacheDir)).filter((name) => /^[0-9a-f]{32}$/.test(name));
  return (await Promise.all(contexts.map(async (context) => (await readdir(join(cacheDir, context))).map((name) => `${context}/${name}`)))).flat();
}

describe('a warm load', () => {
  it('compiles nothing and serves what the cold load served', async () => {
    const folder = await endpointFolder();
    const cache = await cacheIn(await temporary('cannery-cc-'));
    const cold = await loadRegistry(folder, CONTEXT, undefined, { cache });
    expect(cold.stats).toEqual({ cached: 0, compiled: 5, threads: 0 });
    const warm = await loadRegistry(folder, CONTEXT, undefined, { cache });
    expect(warm.stats).toEqual({ cached: 5, compiled: 0, threads: 0 });
    expect(served(warm)).toEqual(served(cold));
    expect(served(warm)).toEqual(served(await loadRegistry(folder, CONTEXT)));
    expect(warm.find('logs.all')?.file).toBe(join(folder, 'logs.all.yaml'));
  });

  it('finds a file under another name or in another folder by its text', async () => {
    const folder = await endpointFolder();
    const cache = await cacheIn(await temporary('cannery-cc-'));
    await loadRegistry(folder, CONTEXT, undefined, { cache });
    const other = await temporary('cannery-cc-other-');
    await writeFile(join(other, 'renamed.yaml'), await readFile(join(folder, 'logs.all.yaml'), 'utf8'));
    const moved = await loadRegistry(other, CONTEXT, undefined, { cache });
    expect(moved.stats).toMatchObject({ cached: 1, compiled: 0 });
    expect(moved.endpoints[0]!.file).toBe(join(other, 'renamed.yaml'));
  });

  it('keeps no file with problems: it is compiled, and reported, each time', async () => {
    const folder = await endpointFolder();
    await writeFile(join(folder, 'bad.yaml'), endpointText('cache.bad', [], ['select 1 as n from `no.such.source`']));
    const cache = await cacheIn(await temporary('cannery-cc-'));
    const cold = await loadRegistry(folder, CONTEXT, undefined, { cache });
    const warm = await loadRegistry(folder, CONTEXT, undefined, { cache });
    expect(warm.stats).toMatchObject({ cached: 5, compiled: 1 });
    expect(warm.problems).toEqual(cold.problems);
    expect(warm.problems).toHaveLength(1);
  });

  it('still rejects a second file with an id already used, as a cold load does', async () => {
    const folder = await endpointFolder();
    const cache = await cacheIn(await temporary('cannery-cc-'));
    await loadRegistry(folder, CONTEXT, undefined, { cache });
    await writeFile(join(folder, 'zz-copy.yaml'), await readFile(join(folder, 'logs.all.yaml'), 'utf8'));
    const warm = await loadRegistry(folder, CONTEXT, undefined, { cache });
    expect(warm.stats).toMatchObject({ cached: 6, compiled: 0 });
    expect(warm.problems.map((problem) => [problem.file, problem.field])).toEqual([
      [join(folder, 'zz-copy.yaml'), 'id'],
      [join(folder, 'zz-copy.yaml'), 'name'],
    ]);
    expect(served(warm)).toEqual(served(await loadRegistry(folder, CONTEXT)));
  });
});

describe('the key', () => {
  /** Loads `folder` with `first`, then with `second`: whether the second found the first's entries. */
  async function reused(first: CompileContext, second: CompileContext): Promise<boolean> {
    const folder = await endpointFolder();
    const cache = await cacheIn(await temporary('cannery-cc-'));
    await loadRegistry(folder, first, undefined, { cache });
    const again = await loadRegistry(folder, second, undefined, { cache });
    expect(served(again)).toEqual(served(await loadRegistry(folder, second)));
    return again.stats!.cached > 0;
  }

  it('is the same for the same settings, built anew', async () => {
    expect(await reused(CONTEXT, { dialect: duckdb(), sources })).toBe(true);
  });

  it('changes with the backend', async () => {
    expect(await reused(CONTEXT, { dialect: bigquery(), sources })).toBe(false);
  });

  it("changes with BigQuery's table mapping", async () => {
    expect(await reused({ dialect: bigquery('d'), sources }, { dialect: bigquery('other_dataset'), sources })).toBe(false);
  });

  it('changes with the backends checked besides the one that serves', async () => {
    expect(await reused(CONTEXT, { ...CONTEXT, alsoCheck: [bigquery()] })).toBe(false);
  });

  it("changes with a source table's columns (an import added a field)", async () => {
    const widened = BUILT_IN_SOURCES.map((source) => (source.name === 'postgres.logs' ? { ...source, metadata: { ...source.metadata, added: 'string' as const } } : source));
    expect(sourceColumns(widened[1]!)).not.toEqual(sourceColumns(BUILT_IN_SOURCES[1]!));
    expect(await reused(CONTEXT, { dialect: duckdb(sourceColumnsLookup(widened)), sources })).toBe(false);
  });

  it('changes with the sources', async () => {
    const fewer = sources.filter((name) => name !== 'pgbouncer.logs.prod');
    expect(await reused(CONTEXT, { dialect: duckDbDialect(fewer, { sourceColumns: sourceColumnsLookup(BUILT_IN_SOURCES), strictNames: true }), sources: fewer })).toBe(false);
  });

  it("changes with the file's text", async () => {
    const folder = await endpointFolder();
    const cache = await cacheIn(await temporary('cannery-cc-'));
    await loadRegistry(folder, CONTEXT, undefined, { cache });
    await writeFile(join(folder, 'small-0.yaml'), endpointText('cache.small0', [], ['select 100 as n, t.id from `postgres.logs` as t']));
    const again = await loadRegistry(folder, CONTEXT, undefined, { cache });
    expect(again.stats).toMatchObject({ cached: 4, compiled: 1 });
    expect(again.find('cache.small0')!.sql).toContain('100');
  });

  describe("cannery's code", () => {
    const root = fileURLToPath(new URL('../../../', import.meta.url));

    /** A copy of the package's compiling code and schema, to change. */
    async function copy(): Promise<string> {
      const dir = await temporary('cannery-cc-code-');
      for (const layer of ['core', 'config', 'sql', 'engine']) await cp(join(root, 'src', layer), join(dir, 'src', layer), { recursive: true });
      await cp(join(root, 'schemas'), join(dir, 'schemas'), { recursive: true });
      await cp(join(root, 'package.json'), join(dir, 'package.json'));
      return dir;
    }

    it('a changed, added or removed file of a compiling layer, the schema or the version each change the fingerprint', async () => {
      const dir = await copy();
      const code = join(dir, 'src');
      const base = await fingerprintOf(code, dir);
      expect(await fingerprintOf(code, dir)).toBe(base);
      const seen = new Set([base]);
      const changed = async (change: () => Promise<void>) => {
        await change();
        const next = await fingerprintOf(code, dir);
        expect(seen.has(next)).toBe(false);
        seen.add(next);
      };
      await changed(() => writeFile(join(code, 'sql', 'language.ts'), '// changed\n', { flag: 'a' }));
      await changed(() => writeFile(join(code, 'sql', 'dialects', 'duckdb', 'rewrites', 'new-rule.ts'), 'export {};\n'));
      await changed(() => rm(join(code, 'sql', 'dialects', 'duckdb', 'rewrites', 'new-rule.ts')).then(() => writeFile(join(code, 'engine', 'other.ts'), '')));
      await changed(async () => writeFile(join(dir, 'schemas', 'endpoint.schema.json'), (await readFile(join(dir, 'schemas', 'endpoint.schema.json'), 'utf8')) + ' '));
      await changed(async () => writeFile(join(dir, 'package.json'), (await readFile(join(dir, 'package.json'), 'utf8')).replace(/"version": "[^"]+"/, '"version": "99.0.0"')));
    });

    it('the HTTP layer and the CLI are not part of it', async () => {
      const dir = await copy();
      const base = await fingerprintOf(join(dir, 'src'), dir);
      await mkdir(join(dir, 'src', 'http'));
      await writeFile(join(dir, 'src', 'http', 'app.ts'), 'export {};\n');
      expect(await fingerprintOf(join(dir, 'src'), dir)).toBe(base);
    });
  });
});

describe('a damaged entry', () => {
  it('is a miss, compiled and written anew; what is served does not change', async () => {
    const folder = await endpointFolder();
    const cacheDir = await temporary('cannery-cc-');
    const cache = await cacheIn(cacheDir);
    const cold = await loadRegistry(folder, CONTEXT, undefined, { cache });
    await cache.settled();
    const context = await cache.contextKey(compileSettings(CONTEXT));
    const entryOf = async (file: string) => join(cacheDir, context, `${contentKey(await readFile(join(folder, file), 'utf8'))}.json`);
    const intact = await readFile(await entryOf('logs.all.yaml'), 'utf8');
    const damage: [string, (text: string) => string][] = [
      ['logs.all.yaml', (text) => text.slice(0, text.length / 2)],
      ['usage.api-counts.yaml', () => 'null'],
      ['small-0.yaml', (text) => text.replace('"format":1', '"format":0')],
      // The definition edited by hand: no longer what its version hashes.
      ['small-1.yaml', (text) => text.replace('"max_rows":100', '"max_rows":5')],
      // Another file's entry under this file's name.
      ['small-2.yaml', () => intact],
    ];
    for (const [file, change] of damage) {
      const path = await entryOf(file);
      await writeFile(path, change(await readFile(path, 'utf8')));
    }
    const again = await loadRegistry(folder, CONTEXT, undefined, { cache });
    expect(again.stats).toMatchObject({ cached: 0, compiled: 5 });
    expect(served(again)).toEqual(served(cold));
    expect((await loadRegistry(folder, CONTEXT, undefined, { cache })).stats).toMatchObject({ cached: 5, compiled: 0 });
  });
});

describe('the folder', () => {
  it('writable by others is not used at all', async () => {
    const cacheDir = await temporary('cannery-cc-');
    await chmod(cacheDir, 0o777);
    const log: string[] = [];
    expect(await openCompileCache(cacheDir, (line) => log.push(line))).toBeUndefined();
    expect(log).toEqual([`compile cache: not using ${cacheDir}: it must belong to this user and be writable by no one else`]);
  });

  it('that cannot be made is not used, and says why', async () => {
    const parent = await temporary('cannery-cc-');
    await writeFile(join(parent, 'file'), '');
    const log: string[] = [];
    expect(await openCompileCache(join(parent, 'file', 'cache'), (line) => log.push(line))).toBeUndefined();
    expect(log).toHaveLength(1);
  });

  it('that cannot be written is read, and the load compiles the rest, saying so once', async () => {
    const folder = await endpointFolder();
    const cacheDir = await temporary('cannery-cc-');
    const log: string[] = [];
    const cache = await cacheIn(cacheDir, log);
    await loadRegistry(folder, CONTEXT, undefined, { cache });
    await writeFile(join(folder, 'small-0.yaml'), endpointText('cache.small0', [], ['select 7 as n']));
    await writeFile(join(folder, 'small-1.yaml'), endpointText('cache.small1', [], ['select 8 as n']));
    // Where the new context's entries would go, a file: no write there can succeed, even as root.
    const widened = duckDbDialect([...sources, 'extra.source'], { sourceColumns: sourceColumnsLookup(BUILT_IN_SOURCES), strictNames: true });
    const other = { dialect: widened, sources: [...sources, 'extra.source'] };
    await writeFile(join(cacheDir, await cache.contextKey(compileSettings(other))), 'not a folder');
    const first = await loadRegistry(folder, other, undefined, { cache });
    expect(first.stats).toMatchObject({ cached: 0, compiled: 5 });
    expect(served(first)).toEqual(served(await loadRegistry(folder, other)));
    expect(log).toEqual([expect.stringMatching(new RegExp(`^compile cache: cannot write to ${cacheDir} \\(\\w+\\); reading it only$`))]);
    // Reading goes on: the first context's entries still serve the files that did not change.
    expect((await loadRegistry(folder, CONTEXT, undefined, { cache })).stats).toMatchObject({ cached: 3, compiled: 2 });
    expect(log).toHaveLength(1);
  });

  it('shared by loads running at once (replicas) ends with whole entries only', async () => {
    const folder = await endpointFolder();
    const cacheDir = await temporary('cannery-cc-');
    const caches = await Promise.all([cacheIn(cacheDir), cacheIn(cacheDir), cacheIn(cacheDir)]);
    const loads = await Promise.all(caches.map((cache) => loadRegistry(folder, CONTEXT, undefined, { cache })));
    for (const load of loads) expect(served(load)).toEqual(served(loads[0]!));
    await Promise.all(caches.map((cache) => cache.settled()));
    const names = await entries(cacheDir);
    expect(names.filter((name) => name.endsWith('.tmp'))).toEqual([]);
    expect(names.filter((name) => name.endsWith('.json'))).toHaveLength(5);
    expect((await loadRegistry(folder, CONTEXT, undefined, { cache: caches[0] })).stats).toMatchObject({ cached: 5 });
  });

  it('is bounded: unused contexts age out, leftovers of interrupted writes go, and past the cap the oldest unused entries', async () => {
    const folder = await endpointFolder();
    const cacheDir = await temporary('cannery-cc-');
    const cache = await cacheIn(cacheDir);
    const context = await cache.contextKey(compileSettings(CONTEXT));
    const long = new Date(Date.now() - 40 * 24 * 60 * 60 * 1000);
    const old = join(cacheDir, 'a'.repeat(32));
    const recent = join(cacheDir, 'b'.repeat(32));
    for (const dir of [old, recent]) {
      await mkdir(dir);
      await writeFile(join(dir, '.used'), '');
    }
    await utimes(join(old, '.used'), long, long);
    await mkdir(join(cacheDir, context));
    const leftover = join(cacheDir, context, `${'c'.repeat(64)}.json.123.x.tmp`);
    await writeFile(leftover, '{');
    await utimes(leftover, long, long);
    const fresh = join(cacheDir, context, `${'d'.repeat(64)}.json.456.y.tmp`);
    await writeFile(fresh, '{');
    // 2,000 entries of files long gone, oldest first.
    for (let i = 0; i < 2000; i++) {
      const path = join(cacheDir, context, `${contentKey(String(i))}.json`);
      await writeFile(path, '{}');
      const when = new Date(long.getTime() + i * 1000);
      await utimes(path, when, when);
    }
    await loadRegistry(folder, CONTEXT, undefined, { cache });
    await cache.settled();
    const left = await readdir(join(cacheDir, context));
    expect(left.filter((name) => name.endsWith('.json'))).toHaveLength(2000);
    // The five of this load are kept; the five oldest of the others went.
    for (const text of await Promise.all((await readdir(folder)).filter((name) => name.endsWith('.yaml')).map((name) => readFile(join(folder, name), 'utf8')))) expect(left).toContain(`${contentKey(text)}.json`);
    for (let i = 0; i < 5; i++) expect(left).not.toContain(`${contentKey(String(i))}.json`);
    expect(left).toContain(`${contentKey('5')}.json`);
    expect(left).not.toContain(leftover.split('/').pop());
    expect(left).toContain(fresh.split('/').pop());
    expect(await readdir(cacheDir)).not.toContain('a'.repeat(32));
    expect(await readdir(cacheDir)).toContain('b'.repeat(32));
    expect((await stat(join(cacheDir, context, '.used'))).mtimeMs).toBeGreaterThan(Date.now() - 60_000);
  });
});

describe('with worker threads', () => {
  it('a cold load on threads serves what a load on this thread does, and fills the cache', async () => {
    const folder = await endpointFolder();
    const cache = await cacheIn(await temporary('cannery-cc-'));
    const threaded = await loadRegistry(folder, CONTEXT, undefined, { cache, workers: { max: 2, filesPerThread: 2 } });
    expect(threaded.stats).toEqual({ cached: 0, compiled: 5, threads: 2 });
    expect(served(threaded)).toEqual(served(await loadRegistry(folder, CONTEXT)));
    expect((await loadRegistry(folder, CONTEXT, undefined, { cache })).stats).toMatchObject({ cached: 5 });
  });

  it('one thread compiles a start here, and a reload (the event loop serving) on the thread', async () => {
    const folder = await endpointFolder();
    const start = await loadRegistry(folder, CONTEXT, undefined, { workers: { max: 1, filesPerThread: 2 } });
    expect(start.stats).toEqual({ cached: 0, compiled: 5, threads: 0 });
    const reload = await loadRegistry(folder, CONTEXT, start, { workers: { max: 1, filesPerThread: 2, serving: true } });
    expect(reload.stats).toEqual({ cached: 0, compiled: 5, threads: 1 });
    expect(served(reload)).toEqual(served(start));
  });

  it('threads that fail are reported once, and the files compiled on this thread', async () => {
    const folder = await endpointFolder();
    const log: string[] = [];
    const load = await loadRegistry(folder, CONTEXT, undefined, { workers: { max: 2, filesPerThread: 2, execArgv: THREAD_THAT_CANNOT_START }, log: (line) => log.push(line) });
    expect(load.stats).toEqual({ cached: 0, compiled: 5, threads: 0 });
    expect(served(load)).toEqual(served(await loadRegistry(folder, CONTEXT)));
    expect(log).toEqual([expect.stringMatching(/^compiling on 2 threads failed \(.+\); compiling on the main thread$/)]);
  });
});

describe('a context still on its way (a start opening its database)', () => {
  it('serves what a load with the context at hand serves, cold and warm, and fails as the context fails', async () => {
    const folder = await endpointFolder();
    const cache = await cacheIn(await temporary('cannery-cc-'));
    let open!: (context: CompileContext) => void;
    const opening = new Promise<CompileContext>((resolve) => (open = resolve));
    const cold = loadRegistry(folder, opening, undefined, { cache });
    // The files are read and the compiler loaded meanwhile; nothing is compiled without the context.
    await new Promise((resolve) => setTimeout(resolve, 50));
    open(CONTEXT);
    expect(served(await cold)).toEqual(served(await loadRegistry(folder, CONTEXT)));
    const warm = await loadRegistry(folder, Promise.resolve(CONTEXT), undefined, { cache });
    expect(warm.stats).toMatchObject({ cached: 5, compiled: 0 });
    await expect(loadRegistry(folder, Promise.reject(new Error('the database cannot be read')), undefined, { cache })).rejects.toThrow('the database cannot be read');
  });
});
