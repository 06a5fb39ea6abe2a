/**
 * Compiling many endpoint files on worker threads: parsing the SQL is most of a cold start's
 * work, and each file's is independent of the others'. Files go out in small batches, so a
 * thread that drew large files does not hold the others up.
 */
import { availableParallelism } from 'node:os';
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { outOfThreadMemory, THREAD_HEAP_MB, ThreadMemoryExceeded, threadLimits } from '../../core/thread-memory.js';
import type { FileCompile } from './file.js';
import type { CompileSettings } from './settings.js';

export interface FileText {
  file: string;
  text: string;
}

export interface WorkerTask {
  files: FileText[];
}

export type WorkerReply = { results: FileCompile[]; error?: undefined } | { results?: undefined; error: string };

export interface WorkerOptions {
  /** Most threads to start (default: the machine's cores less the one the event loop keeps). */
  max?: number;
  /** Fewest files worth a thread of its own: a thread's start (its modules) costs about this many files' compiles. */
  filesPerThread?: number;
  /** Node flags for the threads (tests start threads that fail, to see the files compiled here). */
  execArgv?: string[];
  /**
   * The event loop is serving meanwhile (a reload): one thread's worth of files is compiled on a
   * thread too, so requests never wait behind a compile.
   */
  serving?: boolean;
}

/** About what a thread's start costs (loading the YAML, schema and SQL parser modules), in files compiled. */
const FILES_PER_THREAD = 32;
const BATCH = 8;

/** The worker's module: beside this one, with the same extension (.js built, .ts under test). */
const WORKER = new URL(`./worker${extname(fileURLToPath(import.meta.url))}`, import.meta.url);

/**
 * How many threads `files` files are worth. One thread is no quicker than the main thread: each
 * thread loads the compiler and warms its code up on its own files (its first few hundred
 * compile at half the speed of later ones), so a start with one thread's worth compiles here.
 */
export function threadsFor(files: number, options: WorkerOptions = {}): number {
  const max = options.max ?? Math.max(1, availableParallelism() - 1);
  return Math.min(max, Math.floor(files / (options.filesPerThread ?? FILES_PER_THREAD)));
}

/**
 * Compiles `files` on `threads` worker threads, handing each result to `done` with its index in
 * `files` as it comes (the main thread, idle meanwhile, can store it). Rejects if a thread fails;
 * with ThreadMemoryExceeded, naming the batch's files, if it reached its heap limit.
 */
export async function compileInWorkers(
  files: readonly FileText[],
  settings: CompileSettings,
  threads: number,
  done: (index: number, result: FileCompile) => void,
  options: WorkerOptions = {},
): Promise<void> {
  let next = 0;
  const workers: Worker[] = [];
  const run = (worker: Worker) =>
    new Promise<void>((resolve, reject) => {
      let batchStart = 0;
      const send = () => {
        if (next >= files.length) return resolve();
        batchStart = next;
        next = Math.min(files.length, next + BATCH);
        worker.postMessage({ files: files.slice(batchStart, next) } satisfies WorkerTask);
      };
      worker.on('message', (reply: WorkerReply) => {
        if (reply.error !== undefined) return reject(new Error(`a compile thread failed: ${reply.error}`));
        for (const [index, result] of reply.results.entries()) done(batchStart + index, result);
        send();
      });
      worker.once('error', (error) =>
        reject(outOfThreadMemory(error) ? new ThreadMemoryExceeded(`a compile thread took more than its ${THREAD_HEAP_MB} MiB of memory on a batch of these files: ${files.slice(batchStart, batchStart + BATCH).map((file) => file.file).join(', ')}`) : error),
      );
      worker.once('exit', (code) => reject(new Error(`a compile thread exited (${code}) before its work was done`)));
      send();
    });
  try {
    for (let index = 0; index < threads; index++) workers.push(new Worker(WORKER, { workerData: settings, execArgv: options.execArgv, resourceLimits: threadLimits() }));
    await Promise.all(workers.map(run));
  } finally {
    await Promise.all(workers.map((worker) => worker.terminate()));
  }
}
