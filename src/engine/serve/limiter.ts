/**
 * A bound on work at once, with a bounded queue. Past both, work is refused at once
 * (too_many_requests) instead of waiting without end: an overloaded service then answers quickly,
 * and clients and load balancers can back off or go elsewhere. Queued work starts in arrival order.
 */
import { CanneryError } from '../../core/errors.js';

export interface LimiterOptions {
  /** Work that may run at once (at least 1). */
  maxRunning: number;
  /** Work that may wait for a slot (0: none waits). */
  maxQueued: number;
  /** Told after every change, for gauges. */
  onChange?: (running: number, queued: number) => void;
}

export interface Limiter {
  /** Runs `task` in a free slot, after waiting in the queue if need be; refuses it when the queue is full. */
  run<T>(task: () => Promise<T>): Promise<T>;
}

export function createLimiter(options: LimiterOptions): Limiter {
  const { maxRunning, maxQueued } = options;
  let running = 0;
  const queue: (() => void)[] = [];
  const changed = () => options.onChange?.(running, queue.length);

  const acquire = async (): Promise<void> => {
    if (running < maxRunning) {
      running += 1;
      changed();
      return;
    }
    if (queue.length >= maxQueued) {
      throw new CanneryError(
        'too_many_requests',
        `the service is running its limit of ${maxRunning} backend queries with ${maxQueued} more waiting; retry shortly`,
      );
    }
    const turn = new Promise<void>((resolve) => queue.push(resolve));
    changed();
    await turn;
  };

  const release = () => {
    const next = queue.shift();
    // A waiting task takes the slot over, so `running` stays as it is.
    if (next) next();
    else running -= 1;
    changed();
  };

  return {
    async run(task) {
      await acquire();
      try {
        return await task();
      } finally {
        release();
      }
    },
  };
}
