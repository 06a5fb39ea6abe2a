/**
 * The memory of the worker threads that parse SQL (endpoint files at load, callers' sandbox SQL
 * while serving). Without a bound, a parse that builds something huge (a regular expression's
 * literals once took one to 2.7 GB) grows the whole process, and V8 keeps the heap it grew; with
 * one, node ends that thread alone (ERR_WORKER_OUT_OF_MEMORY) and the pool starts another.
 */
import type { ResourceLimits } from 'node:worker_threads';

/** The most a thread's JavaScript heap may hold, in MiB: compiles measured take tens (2,000 UNION ALLs: 25). */
export const THREAD_HEAP_MB = 256;

/** Worker options for a thread holding at most `heapMb` of heap. */
export function threadLimits(heapMb = THREAD_HEAP_MB): ResourceLimits {
  return { maxOldGenerationSizeMb: heapMb };
}

/** Whether a worker's error is its end at its heap limit. */
export function outOfThreadMemory(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === 'ERR_WORKER_OUT_OF_MEMORY';
}

/** A compile thread that reached its heap limit: not retried where the limit does not hold (the event loop). */
export class ThreadMemoryExceeded extends Error {}
