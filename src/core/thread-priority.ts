/**
 * The event loop first: every other thread of the serving process (DuckDB's, the libuv pool's
 * that run DuckDB's queries, the sandbox compile threads) runs at a lower CPU priority, so when
 * the cores are busy the thread that accepts connections and answers /health still gets one.
 * Measured under 300 callers sending sandbox queries on two busy cores: /health on a new
 * connection went from a p99 of 0.6 to 1.4 s to 0.13 to 0.45 s.
 *
 * Linux keeps a nice value per thread (setpriority on a thread id); elsewhere, or where it is
 * refused, threads keep their priority and nothing else changes.
 */
import { readdirSync } from 'node:fs';
import { setPriority } from 'node:os';

/** Nice 10: a runnable thread at nice 0 gets about nine tenths of a core shared with one at 10. */
export const BELOW_THE_EVENT_LOOP = 10;

/** Lowers the calling thread (a worker thread's own start). */
export function runBelowEventLoop(): void {
  lower(0);
}

/** Lowers every thread of the process but the main one (once the backend's threads exist). */
export function lowerOtherThreads(): void {
  let threads: string[];
  try {
    threads = readdirSync('/proc/self/task');
  } catch {
    return;
  }
  for (const thread of threads) if (Number(thread) !== process.pid) lower(Number(thread));
}

function lower(thread: number): void {
  try {
    setPriority(thread, BELOW_THE_EVENT_LOOP);
  } catch {
    // Not Linux, or not allowed: the thread keeps its priority.
  }
}
