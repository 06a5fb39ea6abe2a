/** The limiter on its own: slots, the queue's order, refusal past both, and what it reports. */
import { describe, expect, it } from 'vitest';
import { CanneryError } from '../../../src/core/errors.js';
import { createLimiter } from '../../../src/engine/serve/limiter.js';

/** A task that runs until its `finish` is called. */
function gate<T>(value: T) {
  let finish!: () => void;
  let fail!: (error: Error) => void;
  const done = new Promise<T>((resolve, reject) => {
    finish = () => resolve(value);
    fail = reject;
  });
  let started = false;
  return {
    task: () => ((started = true), done),
    finish,
    fail,
    get started() {
      return started;
    },
  };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('limiter', () => {
  it('runs up to its slots at once, queues the next in order, and refuses past the queue', async () => {
    const changes: [number, number][] = [];
    const limiter = createLimiter({ maxRunning: 2, maxQueued: 2, onChange: (running, queued) => changes.push([running, queued]) });
    const tasks = ['a', 'b', 'c', 'd'].map(gate);
    const settled = Promise.allSettled(tasks.map((task) => limiter.run(task.task)));
    await tick();
    expect(tasks.map((task) => task.started)).toEqual([true, true, false, false]);
    await expect(limiter.run(async () => 'e')).rejects.toMatchObject({ code: 'too_many_requests' });

    tasks[1]!.finish();
    await tick();
    expect(tasks.map((task) => task.started)).toEqual([true, true, true, false]);
    tasks[0]!.fail(new Error('boom'));
    await tick();
    expect(tasks[3]!.started).toBe(true);
    tasks[2]!.finish();
    tasks[3]!.finish();
    await expect(settled).resolves.toEqual([
      { status: 'rejected', reason: new Error('boom') },
      { status: 'fulfilled', value: 'b' },
      { status: 'fulfilled', value: 'c' },
      { status: 'fulfilled', value: 'd' },
    ]);
    expect(changes).toEqual([[1, 0], [2, 0], [2, 1], [2, 2], [2, 1], [2, 0], [1, 0], [0, 0]]);
    // Free again: the next one runs at once.
    await expect(limiter.run(async () => 'f')).resolves.toBe('f');
  });

  it('with no queue, refuses as soon as every slot is taken', async () => {
    const limiter = createLimiter({ maxRunning: 1, maxQueued: 0 });
    const first = gate('first');
    const running = limiter.run(first.task);
    const refusal = await limiter.run(async () => 'second').catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(CanneryError);
    expect((refusal as CanneryError).message).toBe('the service is running its limit of 1 backend queries with 0 more waiting; retry shortly');
    first.finish();
    await expect(running).resolves.toBe('first');
  });
});
