/**
 * Every endpoint file of a load compiled: from the compile cache where it holds the file, the
 * rest on worker threads when there are enough of them to pay for the threads' start, or here.
 * The YAML, schema and SQL-parsing modules are loaded only when some file needs compiling.
 */
import type { EndpointText } from '../../config/endpoint-text.js';
import type { CompileContext } from './compile.js';
import type { CompileCache } from './cache.js';
import type { FileCompile } from './file.js';
import { compileSettings } from './settings.js';
import { ThreadMemoryExceeded } from '../../core/thread-memory.js';
import { compileInWorkers, threadsFor, type FileText, type WorkerOptions } from './pool.js';

export interface CompileFolderOptions {
  /** Compiles kept between loads; without it every file is compiled. */
  cache?: CompileCache | undefined;
  workers?: WorkerOptions | undefined;
  /** Told when worker threads fail and the files are compiled here instead. */
  log?: ((line: string) => void) | undefined;
}

/** How a load went: files taken from the cache, files compiled, and on how many threads (0: here). */
export interface LoadStats {
  cached: number;
  compiled: number;
  threads: number;
}

/**
 * `context` may still be on its way (a start opens its database meanwhile): until it comes, the
 * cache reads what its keys are made of, and the compiler's modules load, on an otherwise idle
 * event loop.
 */
export async function compileTexts(
  texts: readonly EndpointText[],
  contextOrOpening: CompileContext | Promise<CompileContext>,
  options: CompileFolderOptions = {},
): Promise<{ results: FileCompile[]; stats: LoadStats }> {
  const { cache } = options;
  const opening = contextOrOpening instanceof Promise;
  const [context] = await Promise.all([
    contextOrOpening,
    // What an earlier load of this process still writes is read by this one.
    cache?.settled(),
    opening ? cache?.prepare() : undefined,
    opening && texts.length > 0 ? import('./file.js') : undefined,
  ]);
  const settings = compileSettings(context);
  const contextKey = cache && (await cache.contextKey(settings));
  let cached = 0;
  const results: (FileCompile | undefined)[] = await Promise.all(
    texts.map((entry) => {
      if (entry.problem) return { loaded: { file: entry.file, problems: [entry.problem], queryLine: 0, fieldLines: {} } };
      return contextKey === undefined ? undefined : cache!.read(contextKey, entry.file, entry.text).then((hit) => (hit && cached++, hit));
    }),
  );
  const missing = texts.flatMap((entry, index): (FileText & { index: number })[] => (results[index] ? [] : [{ file: entry.file, text: entry.text!, index }]));
  const threads = threadsFor(missing.length, options.workers);
  const writes: Promise<void>[] = [];
  const compiled = (index: number, result: FileCompile) => {
    const { text, index: at } = missing[index]!;
    results[at] = result;
    if (contextKey !== undefined) writes.push(cache!.write(contextKey, text, result));
  };
  let fromThreads = false;
  if (threads > 1 || (threads === 1 && options.workers?.serving)) {
    try {
      await compileInWorkers(missing, settings, threads, compiled, options.workers);
      fromThreads = true;
    } catch (error) {
      // On the event loop the same files would take the process's memory, not one thread's.
      if (error instanceof ThreadMemoryExceeded) throw error;
      options.log?.(`compiling on ${threads} threads failed (${(error as Error).message.split('\n')[0]}); compiling on the main thread`);
    }
  }
  if (!fromThreads && missing.length > 0) {
    const { compileFile } = await import('./file.js');
    for (const [index, { file, text }] of missing.entries()) compiled(index, compileFile(file, text, context));
  }
  // The entries reach the disk after the load returns: a cold start does not wait for them.
  if (contextKey !== undefined) {
    const used = texts.flatMap((entry) => (entry.text === undefined ? [] : [entry.text]));
    cache!.later(Promise.all(writes).then(() => cache!.prune(contextKey, used)));
  }
  return { results: results as FileCompile[], stats: { cached, compiled: missing.length, threads: fromThreads ? threads : 0 } };
}
