/**
 * The compile cache: each endpoint file's compile, kept on disk so that a start with files it has
 * seen parses nothing. An entry is found by two keys, both hashes:
 * - the file's text (`<content>.json`), and
 * - everything else its compile depends on (the folder `<context>/`): cannery's compiling code
 *   (the files of core/, config/, sql/ and engine/, which compile.ts may import, by content,
 *   and the SQL grammar), the schemas, the versions of the YAML and schema libraries, and the
 *   settings of every dialect compiled for (BigQuery's table mapping, DuckDB's table columns)
 *   and the source names.
 * Only clean compiles are kept (a file with problems is compiled, and reported, each time).
 *
 * Entries are plain JSON, checked on reading: a file that is not an entry of these keys, or not
 * shaped as one, is a miss and is written anew. Writes go to a temporary file renamed into
 * place, so replicas sharing the folder never read half an entry, and two writing the same entry
 * write the same bytes. A folder that cannot be written (a read-only file system) is still read;
 * one owned by another user, or writable by others, is not used at all: its SQL would run.
 *
 * Bounded after each load: a context folder unused for CONTEXT_DAYS is removed (an older cannery,
 * other settings), and past MAX_ENTRIES in the current one the oldest entries this load did not
 * use go.
 */
import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { EndpointDefinition } from '../../core/types.js';
import { definitionVersion } from './compile.js';
import type { FileCompile } from './file.js';
import type { CompileSettings } from './settings.js';
import type { CompiledEndpoint } from '../compiled-endpoint.js';

const FORMAT = 1;
/** Entries kept per context, at least: well above any folder's files, so only edits' leftovers go. */
const MAX_ENTRIES = 2000;
const CONTEXT_DAYS = 30;
const DAY_MS = 24 * 60 * 60 * 1000;
/** A temporary file this old was left by a write that never finished. */
const STALE_TMP_MS = 60 * 60 * 1000;

export interface CompileCache {
  readonly dir: string;
  /** The key of everything a compile depends on besides the file's text. */
  contextKey(settings: CompileSettings): Promise<string>;
  /** Reads the code the keys are made of ahead of contextKey (a start does it while its database opens). */
  prepare(): Promise<void>;
  /** The compile of `text` kept under `context`, or undefined. */
  read(context: string, file: string, text: string): Promise<FileCompile | undefined>;
  /** Keeps a clean compile of `text` (others are not kept). */
  write(context: string, text: string, compiled: FileCompile): Promise<void>;
  /** Bounds the folder after a load that used the entries of `texts`. */
  prune(context: string, texts: readonly string[]): Promise<void>;
  /**
   * Keeps `work` (a load's writes and pruning) going after the load has returned: a cold start
   * serves without waiting for its entries to reach the disk. Never rejects.
   */
  later(work: Promise<void>): void;
  /** Resolves once every write handed to `later` has ended (the next load reads what they wrote). */
  settled(): Promise<void>;
}

/** What is stored: the endpoint without its file path (the same text may live at any path). */
interface Entry {
  format: number;
  context: string;
  content: string;
  queryLine: number;
  fieldLines: Record<string, number>;
  endpoint: Omit<CompiledEndpoint, 'file'>;
}

export function contentKey(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/**
 * The cache in `dir` (created if missing). `log` gets one line when the folder cannot be used or
 * written, and when entries had to be replaced.
 */
export async function openCompileCache(dir: string, log: (line: string) => void): Promise<CompileCache | undefined> {
  try {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const folder = await stat(dir);
    const uid = process.getuid?.();
    if (uid !== undefined && (folder.uid !== uid || (folder.mode & 0o022) !== 0)) {
      log(`compile cache: not using ${dir}: it must belong to this user and be writable by no one else`);
      return undefined;
    }
  } catch (error) {
    log(`compile cache: not using ${dir}: ${(error as Error).message}`);
    return undefined;
  }
  let writable = true;
  const pathOf = (context: string, content: string) => join(dir, context, `${content}.json`);
  // One mkdir per context folder, not one per entry.
  const folders = new Map<string, Promise<unknown>>();
  const folderOf = (context: string) => {
    let made = folders.get(context);
    if (!made) folders.set(context, (made = mkdir(join(dir, context), { recursive: true, mode: 0o700 })));
    return made;
  };
  const pending = new Set<Promise<void>>();
  return {
    dir,
    async prepare() {
      await codeFingerprint();
    },
    async contextKey(settings) {
      const hash = createHash('sha256');
      hash.update(JSON.stringify({ format: FORMAT, code: await codeFingerprint(), settings }));
      return hash.digest('hex').slice(0, 32);
    },
    async read(context, file, text) {
      const content = contentKey(text);
      let data: string;
      try {
        data = await readFile(pathOf(context, content), 'utf8');
      } catch {
        return undefined;
      }
      try {
        return fromEntry(JSON.parse(data) as unknown, context, content, file);
      } catch {
        return undefined;
      }
    },
    async write(context, text, compiled) {
      const endpoint = compiled.outcome?.endpoint;
      if (!writable || endpoint === undefined || compiled.outcome!.problems.length > 0) return;
      const content = contentKey(text);
      const { file: _file, ...kept } = endpoint;
      const entry: Entry = { format: FORMAT, context, content, queryLine: compiled.loaded.queryLine, fieldLines: compiled.loaded.fieldLines, endpoint: kept };
      const path = pathOf(context, content);
      const temporary = `${path}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
      try {
        await folderOf(context);
        await writeFile(temporary, JSON.stringify(entry), { mode: 0o600 });
        await rename(temporary, path);
      } catch (error) {
        if (!writable) return;
        writable = false;
        log(`compile cache: cannot write to ${dir} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}); reading it only`);
        await rm(temporary, { force: true }).catch(() => undefined);
      }
    },
    later(work) {
      const tracked: Promise<void> = work
        .catch((error: unknown) => log(`compile cache: ${(error as Error).message}`))
        .finally(() => pending.delete(tracked));
      pending.add(tracked);
    },
    async settled() {
      while (pending.size > 0) await Promise.all(pending);
    },
    async prune(context, texts) {
      // The next load makes the folder again (someone may have emptied the cache in between).
      folders.delete(context);
      if (!writable) return;
      try {
        await pruneFolder(dir, context, new Set(texts.map((text) => `${contentKey(text)}.json`)));
      } catch (error) {
        log(`compile cache: cleaning ${dir} failed: ${(error as Error).message}`);
      }
    },
  };
}

/** The entry as a compile of `file`, if it is one, whole, of these keys. */
function fromEntry(value: unknown, context: string, content: string, file: string): FileCompile | undefined {
  if (!isObject(value) || value.format !== FORMAT || value.context !== context || value.content !== content) return undefined;
  const { queryLine, fieldLines, endpoint } = value;
  if (typeof queryLine !== 'number' || !isObject(fieldLines) || !isObject(endpoint)) return undefined;
  const { definition, analysis, statement, sql, sqlParameters, version } = endpoint;
  if (!isObject(definition) || !isObject(analysis) || !isObject(statement) || statement.kind !== 'query') return undefined;
  if (typeof sql !== 'string' || !isStrings(sqlParameters) || typeof version !== 'string') return undefined;
  if (!isStrings(analysis.params) || !isStrings(analysis.ctes) || !isStrings(analysis.sources)) return undefined;
  // The version is the definition's hash: an entry edited by hand, or damaged, no longer matches it.
  if (definitionVersion(definition as unknown as EndpointDefinition) !== version) return undefined;
  const served = { ...(endpoint as unknown as Omit<CompiledEndpoint, 'file'>), file };
  return {
    loaded: { file, definition: served.definition, problems: [], queryLine, fieldLines: fieldLines as Record<string, number> },
    outcome: { endpoint: served, problems: [] },
  };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isStrings(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}

async function pruneFolder(dir: string, context: string, used: ReadonlySet<string>): Promise<void> {
  const now = Date.now();
  const stamp = join(dir, context, '.used');
  const stamped = await stat(stamp).catch(() => undefined);
  if (!stamped || now - stamped.mtimeMs > DAY_MS) {
    await mkdir(join(dir, context), { recursive: true, mode: 0o700 });
    await writeFile(stamp, '');
    await utimes(stamp, now / 1000, now / 1000);
  }
  for (const other of await readdir(dir, { withFileTypes: true })) {
    if (!other.isDirectory() || other.name === context || !/^[0-9a-f]{32}$/.test(other.name)) continue;
    const last = await stat(join(dir, other.name, '.used')).catch(() => stat(join(dir, other.name)));
    if (now - last.mtimeMs > CONTEXT_DAYS * DAY_MS) await rm(join(dir, other.name), { recursive: true, force: true });
  }
  const names = await readdir(join(dir, context));
  for (const name of names.filter((name) => name.endsWith('.tmp'))) {
    const temporary = join(dir, context, name);
    const made = await stat(temporary).catch(() => undefined);
    if (made && now - made.mtimeMs > STALE_TMP_MS) await rm(temporary, { force: true });
  }
  const unused = names.filter((name) => name.endsWith('.json') && !used.has(name));
  const excess = names.filter((name) => name.endsWith('.json')).length - MAX_ENTRIES;
  if (excess <= 0) return;
  const aged = await Promise.all(unused.map(async (name) => ({ name, made: (await stat(join(dir, context, name)).catch(() => undefined))?.mtimeMs ?? 0 })));
  aged.sort((a, b) => a.made - b.made);
  for (const { name } of aged.slice(0, excess)) await rm(join(dir, context, name), { force: true });
}

let fingerprint: Promise<string> | undefined;

/** This process's code fingerprint, taken once: the code does not change under a running process. */
function codeFingerprint(): Promise<string> {
  fingerprint ??= fingerprintOf(fileURLToPath(new URL('../../', import.meta.url)), fileURLToPath(new URL('../../../', import.meta.url)));
  return fingerprint;
}

/**
 * A hash of what compiling runs: the files of the layers compile.ts may import (core <- config
 * <- sql <- engine, under `code`; in a build, the SQL grammar compiled from grammar/ is among
 * them), and under `root` the package's package.json (its version), its schemas and the grammar's
 * source; and the versions of the libraries that read YAML and check the schema.
 */
export async function fingerprintOf(code: string, root: string): Promise<string> {
  const files = (await Promise.all(['core', 'config', 'sql', 'engine'].map((layer) => filesUnder(join(code, layer))))).flat();
  files.push(join(root, 'package.json'), ...(await filesUnder(join(root, 'schemas'))), ...(await filesUnder(join(root, 'grammar'))));
  files.sort();
  const hash = createHash('sha256');
  const require = createRequire(import.meta.url);
  for (const library of ['yaml', 'ajv']) hash.update(`${library} ${libraryVersion(require, library)}\n`);
  const texts = await Promise.all(files.map((file) => readFile(file)));
  for (const [index, file] of files.entries()) hash.update(`${relative(root, file)}\n`).update(texts[index]!);
  return hash.digest('hex');
}

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true }).catch(() => []);
  return entries.filter((entry) => entry.isFile() && !entry.name.endsWith('.map')).map((entry) => join(entry.parentPath, entry.name));
}

/** The installed version of `library`, from the package.json above its entry point. */
function libraryVersion(require: NodeJS.Require, library: string): string {
  let dir = dirname(require.resolve(library));
  for (;;) {
    try {
      const manifest = require(join(dir, 'package.json')) as { name?: string; version?: string };
      if (manifest.name === library) return manifest.version ?? 'unknown';
    } catch {
      // No package.json here: look further up.
    }
    const parent = dirname(dir);
    if (parent === dir) return 'unknown';
    dir = parent;
  }
}
