/**
 * Cache warming: re-runs each requested key in the background, every `everyMs`, for as long as
 * someone asked for it within `activeForMs`; then it stops and the entry is left to expire. At
 * most `concurrency` refreshes run at once, so a burst of due keys queues instead of flooding the
 * backend. Nothing here is awaited by a request.
 */

/**
 * Timers, injectable so tests drive warming without waiting. A callback returns the promise of
 * the work it started, which a test scheduler may await; real timers ignore it.
 */
export interface Timers {
  setTimeout(callback: () => unknown, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const realTimers: Timers = {
  // Unref'd: a pending refresh must not keep a finished process (e.g. `cannery run`) alive.
  setTimeout: (callback, ms) => setTimeout(callback, ms).unref(),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

export interface WarmJob {
  everyMs: number;
  activeForMs: number;
  /** The refresh; failures are the job's to report. */
  run(): Promise<void>;
}

export interface WarmerOptions {
  /** Milliseconds since the epoch. */
  now: () => number;
  timers: Timers;
  concurrency: number;
  /** A job that rejected anyway. */
  onError: (key: string, error: unknown) => void;
}

export interface Warmer {
  /** `key` was requested: starts warming it with `job`, or keeps it warm. */
  requested(key: string, job: WarmJob): void;
  /** Stops warming `key` (its entry is gone). */
  forget(key: string): void;
  /** Stops every timer, drops queued refreshes and waits for running ones. */
  close(): Promise<void>;
}

interface Tracked {
  key: string;
  job: WarmJob;
  lastRequestedAt: number;
  timer: unknown;
}

interface Queued {
  tracked: Tracked;
  done: () => void;
}

export function createWarmer(options: WarmerOptions): Warmer {
  const { now, timers } = options;
  const tracked = new Map<string, Tracked>();
  const queue: Queued[] = [];
  const running = new Set<Promise<void>>();
  let closed = false;

  const isTracked = (item: Tracked) => !closed && tracked.get(item.key) === item;

  const schedule = (item: Tracked) => {
    item.timer = timers.setTimeout(() => due(item), item.job.everyMs);
  };

  const due = (item: Tracked): Promise<void> => {
    item.timer = undefined;
    if (!isTracked(item)) return Promise.resolve();
    if (now() - item.lastRequestedAt >= item.job.activeForMs) {
      tracked.delete(item.key);
      return Promise.resolve();
    }
    return new Promise((done) => {
      queue.push({ tracked: item, done });
      pump();
    });
  };

  const pump = () => {
    while (running.size < options.concurrency && queue.length > 0) {
      const { tracked: item, done } = queue.shift()!;
      if (!isTracked(item)) {
        done();
        continue;
      }
      const refresh: Promise<void> = item.job
        .run()
        .catch((error: unknown) => options.onError(item.key, error))
        .finally(() => {
          running.delete(refresh);
          // The next refresh is counted from the end of this one, so two never overlap.
          if (isTracked(item)) schedule(item);
          done();
          pump();
        });
      running.add(refresh);
    }
  };

  /** `key` was requested: keeps it warm if it is warmed, and says whether it is. */
  const touch = (key: string): boolean => {
    const item = tracked.get(key);
    if (item) item.lastRequestedAt = now();
    return item !== undefined;
  };

  return {
    requested(key, job) {
      if (closed || touch(key)) return;
      const added: Tracked = { key, job, lastRequestedAt: now(), timer: undefined };
      tracked.set(key, added);
      schedule(added);
    },
    forget(key) {
      const item = tracked.get(key);
      if (!item) return;
      tracked.delete(key);
      if (item.timer !== undefined) timers.clearTimeout(item.timer);
    },
    async close() {
      closed = true;
      for (const item of tracked.values()) if (item.timer !== undefined) timers.clearTimeout(item.timer);
      tracked.clear();
      for (const { done } of queue.splice(0)) done();
      await Promise.all(running);
    },
  };
}
