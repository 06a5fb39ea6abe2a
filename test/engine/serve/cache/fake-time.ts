/**
 * A clock and timers that move only when a test says so. Timers due at the same instant fire
 * together, and `advance` waits for the work they started (what a warming callback returns).
 */
import type { Timers } from '../../../../src/engine/serve/cache/warming.js';

export interface FakeTime {
  clock: () => Date;
  timers: Timers;
  /** Timers not yet fired. */
  pending(): number;
  /** Moves time forward by `ms`, firing due timers in order and awaiting what they started. */
  advance(ms: number): Promise<void>;
}

export function fakeTime(start = '2024-05-01T12:00:00Z'): FakeTime {
  let now = Date.parse(start);
  let nextId = 0;
  const pending = new Map<number, { at: number; callback: () => unknown }>();
  return {
    clock: () => new Date(now),
    timers: {
      setTimeout(callback, ms) {
        nextId += 1;
        pending.set(nextId, { at: now + ms, callback });
        return nextId;
      },
      clearTimeout(handle) {
        pending.delete(handle as number);
      },
    },
    pending: () => pending.size,
    async advance(ms) {
      const until = now + ms;
      for (;;) {
        const due = [...pending].filter(([, timer]) => timer.at <= until);
        if (due.length === 0) break;
        const at = Math.min(...due.map(([, timer]) => timer.at));
        const batch = due.filter(([, timer]) => timer.at === at);
        now = at;
        for (const [id] of batch) pending.delete(id);
        await Promise.all(batch.map(([, timer]) => timer.callback()));
      }
      now = until;
    },
  };
}
