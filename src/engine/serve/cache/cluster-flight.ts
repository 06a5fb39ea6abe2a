/**
 * Single flight across replicas: for a key without a fresh entry in the shared store, one
 * replica takes the key's fill lock and runs the query; the others wait for its notification and
 * read the result it stored. A wait is bounded: if the holder fails, or its lock vanishes (it died:
 * the lock expires), or the bound passes, the waiter stops waiting (it claims again, or runs the
 * query itself), so a replica never waits on another one for ever.
 *
 * Any store failure is thrown as StoreUnavailable, and the read-through layer answers without
 * the shared tier.
 */
import type { FillLock, Settlement, StoredResult } from './shared-store.js';
import type { SharedTier } from './shared-tier.js';

/** What the replica does about a key. */
export type ClusterOutcome =
  /** A fresh stored result: a shared hit. */
  | { kind: 'fresh'; result: StoredResult }
  /** Another replica ran the query; this one waited for its result. */
  | { kind: 'peer'; result: StoredResult }
  /**
   * Run the query here: with the fill lock (store the result under it), or without (a fallback).
   * `peerFailed`: the replica that held the lock failed to run it, so `previous`, if it is still
   * within its stale window, is the answer rather than another try.
   */
  | { kind: 'run'; lock: FillLock | undefined; previous: StoredResult | undefined; peerFailed: boolean };

export interface ClusterFlightOptions {
  tier: SharedTier;
  /** The longest a replica waits for another one's query before running it itself. */
  peerWaitMs: number;
  /** How often a waiting replica checks that the holder's lock is still there (a dead holder's expires). */
  pollMs: number;
}

export interface ClusterFlight {
  /** At `now`: a fresh result, a peer's result, or the go-ahead to run the query (`force`: even over a fresh entry). */
  resolve(name: string, now: () => number, force: boolean): Promise<ClusterOutcome>;
  /** Wakes the waiters of a settled key (the store's notifications). */
  settled(settlement: Settlement): void;
}

type Woken = 'filled' | 'failed' | 'vanished' | 'timeout';

export function createClusterFlight(options: ClusterFlightOptions): ClusterFlight {
  const { tier } = options;
  const waiters = new Map<string, Set<(woken: Woken) => void>>();

  /** Calls `wake` with the key's next settlement; returns a function that stops listening. */
  const listen = (name: string, wake: (woken: Woken) => void): (() => void) => {
    let set = waiters.get(name);
    if (!set) waiters.set(name, (set = new Set()));
    set.add(wake);
    return () => {
      set.delete(wake);
      if (set.size === 0 && waiters.get(name) === set) waiters.delete(name);
    };
  };

  /**
   * Claims the key. A claim that outlives the tier's timeout may still take the lock: it is
   * given back at once, and the waiters on other replicas move on.
   */
  const claim = async (name: string, now: number, force: boolean) => {
    let abandoned = false;
    try {
      return await tier.call('claim', (store) => {
        const claiming = store.claim(name, now, force);
        claiming.then(
          (found) => {
            if (abandoned && found.kind === 'locked') found.lock.fail().catch(() => {});
          },
          () => {},
        );
        return claiming;
      });
    } catch (error) {
      abandoned = true;
      throw error;
    }
  };

  /** Waits for the key's settlement, a vanished lock or the deadline, whichever comes first. */
  const waitForPeer = (name: string, deadline: number, notified: Promise<Woken>): Promise<Woken> =>
    new Promise<Woken>((resolve, reject) => {
      let done = false;
      let poll: NodeJS.Timeout | undefined;
      const finish = (woken: Woken) => {
        if (done) return;
        done = true;
        clearTimeout(poll);
        clearTimeout(expiry);
        resolve(woken);
      };
      const expiry = setTimeout(() => finish('timeout'), Math.max(0, deadline - Date.now()));
      const check = () => {
        poll = setTimeout(() => {
          tier.call('locked', (store) => store.locked(name)).then(
            (locked) => (locked ? check() : finish('vanished')),
            (error: unknown) => {
              if (done) return;
              done = true;
              clearTimeout(expiry);
              reject(error);
            },
          );
        }, options.pollMs);
      };
      void notified.then(finish);
      check();
    });

  return {
    async resolve(name, now, force) {
      const deadline = Date.now() + options.peerWaitMs;
      for (;;) {
        // Listening before claiming: a peer's notification may arrive before the claim's answer.
        let stop = () => {};
        const notified = new Promise<Woken>((resolve) => (stop = listen(name, resolve)));
        try {
          const found = await claim(name, now(), force);
          if (found.kind === 'fresh') return { kind: 'fresh', result: found.result };
          if (found.kind === 'locked') return { kind: 'run', lock: found.lock, previous: found.previous, peerFailed: false };
          if (Date.now() >= deadline) return { kind: 'run', lock: undefined, previous: found.previous, peerFailed: false };
          const woken = await waitForPeer(name, deadline, notified);
          if (woken === 'timeout' || woken === 'failed') return { kind: 'run', lock: undefined, previous: found.previous, peerFailed: woken === 'failed' };
          if (woken === 'filled') {
            const result = await tier.call('get', (store) => store.get(name));
            if (result && now() < result.computedAt + result.ttlMs) return { kind: 'peer', result };
          }
          // The lock vanished (its holder died, or its notification was missed), or the result
          // was gone already: claim again.
        } finally {
          stop();
        }
      }
    },
    settled(settlement) {
      const set = waiters.get(settlement.name);
      if (!set) return;
      for (const wake of [...set]) wake(settlement.filled ? 'filled' : 'failed');
    },
  };
}
