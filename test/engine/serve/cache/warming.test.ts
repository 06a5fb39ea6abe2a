/** The warming scheduler alone: who is re-run, when it stops, how many run at once, shutdown. */
import { describe, expect, it } from 'vitest';
import { createWarmer, type WarmJob } from '../../../../src/engine/serve/cache/warming.js';
import { fakeTime } from './fake-time.js';

const SECOND = 1000;

function setup(concurrency = 4) {
  const time = fakeTime();
  const errors: string[] = [];
  const warmer = createWarmer({ now: () => time.clock().getTime(), timers: time.timers, concurrency, onError: (key) => errors.push(key) });
  const runs: string[] = [];
  let running = 0;
  let maxRunning = 0;
  const job = (key: string, run?: () => Promise<void>): WarmJob => ({
    everyMs: 300 * SECOND,
    activeForMs: 900 * SECOND,
    run:
      run ??
      (async () => {
        runs.push(key);
        running += 1;
        maxRunning = Math.max(maxRunning, running);
        await new Promise((resolve) => setImmediate(resolve));
        running -= 1;
      }),
  });
  return { time, warmer, runs, errors, job, maxRunning: () => maxRunning };
}

describe('warming', () => {
  it('re-runs a key every interval while it was requested within the active window, then stops', async () => {
    const { time, warmer, runs, job } = setup();
    warmer.requested('a', job('a'));
    await time.advance(300 * SECOND);
    await time.advance(300 * SECOND);
    expect(runs).toEqual(['a', 'a']);
    // Last asked for at 0: at 900 s it is 900 s ago, so it stops instead of running a third time.
    await time.advance(300 * SECOND);
    expect(runs).toEqual(['a', 'a']);
    expect(time.pending()).toBe(0);
    await time.advance(3600 * SECOND);
    expect(runs).toEqual(['a', 'a']);
  });

  it('a request keeps the key warm for another window; a new request after it stopped starts it again', async () => {
    const { time, warmer, runs, job } = setup();
    warmer.requested('a', job('a'));
    await time.advance(800 * SECOND);
    warmer.requested('a', job('a'));
    await time.advance(1600 * SECOND); // runs at 300, 600, 900, 1200, 1500; stops at 1800
    expect(runs).toHaveLength(5);
    expect(time.pending()).toBe(0);
    warmer.requested('a', job('a'));
    await time.advance(300 * SECOND);
    expect(runs).toHaveLength(6);
  });

  it('only requested keys are warmed, each on its own schedule', async () => {
    const { time, warmer, runs, job } = setup();
    warmer.requested('a', job('a'));
    await time.advance(100 * SECOND);
    warmer.requested('b', job('b'));
    await time.advance(200 * SECOND);
    expect(runs).toEqual(['a']);
    await time.advance(100 * SECOND);
    expect(runs).toEqual(['a', 'b']);
  });

  it('runs at most `concurrency` refreshes at once and all of them in the end', async () => {
    const { time, warmer, runs, job, maxRunning } = setup(2);
    for (const key of ['a', 'b', 'c', 'd', 'e', 'f']) warmer.requested(key, job(key));
    await time.advance(300 * SECOND);
    expect([...runs].sort()).toEqual(['a', 'b', 'c', 'd', 'e', 'f']);
    expect(maxRunning()).toBe(2);
  });

  it('a forgotten key is not run again', async () => {
    const { time, warmer, runs, job } = setup();
    warmer.requested('a', job('a'));
    warmer.forget('a');
    await time.advance(900 * SECOND);
    expect(runs).toEqual([]);
    expect(time.pending()).toBe(0);
  });

  it('a job that rejects is reported and stays scheduled', async () => {
    const { time, warmer, errors, job } = setup();
    warmer.requested('a', job('a', () => Promise.reject(new Error('down'))));
    await time.advance(600 * SECOND);
    expect(errors).toEqual(['a', 'a']);
  });

  it('close stops every timer, drops queued runs and waits for running ones', async () => {
    const { time, warmer, job } = setup(1);
    let finished = 0;
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const slow = () =>
      job('x', async () => {
        await held;
        finished += 1;
      });
    warmer.requested('a', slow());
    warmer.requested('b', slow());
    warmer.requested('c', job('c'));
    const ticking = time.advance(300 * SECOND);
    await new Promise((resolve) => setImmediate(resolve));
    let closed = false;
    const closing = warmer.close().then(() => (closed = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(closed).toBe(false);
    release();
    await closing;
    await ticking;
    // One ran (concurrency 1); the queued one was dropped.
    expect(finished).toBe(1);
    expect(time.pending()).toBe(0);
    warmer.requested('d', job('d'));
    expect(time.pending()).toBe(0);
  });
});
