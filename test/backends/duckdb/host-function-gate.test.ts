/** Queries calling host functions take turns; every other query runs at once. */
import { describe, expect, it } from 'vitest';
import { CanneryError } from '../../../src/core/errors.js';
import { HOST_QUERIES_QUEUED, hostFunctionGate } from '../../../src/backends/duckdb/host-function-gate.js';

/** A query that runs until `finish` is called, recording when it starts. */
function pending(log: string[], name: string): { run: () => Promise<string>; finish: () => void } {
  let finish = () => {};
  const done = new Promise<void>((resolve) => (finish = resolve));
  return { run: async () => (log.push(name), await done, name), finish: () => finish() };
}

describe('hostFunctionGate', () => {
  it('runs one host-function query at a time, in arrival order, and never holds back the others', async () => {
    const gate = hostFunctionGate<string>();
    const log: string[] = [];
    const [a, b, plain] = [pending(log, 'a'), pending(log, 'b'), pending(log, 'plain')];
    const first = gate('SELECT cannery_initcap("event_message") FROM t', a.run);
    const second = gate('SELECT cannery_format(x, [], []) FROM t', b.run);
    const other = gate("SELECT lower(event_message) FROM t WHERE s = 'cannery_initcap'", plain.run);
    await new Promise((resolve) => setImmediate(resolve));
    expect([...log].sort()).toEqual(['a', 'plain']);
    a.finish();
    expect(await first).toBe('a');
    await new Promise((resolve) => setImmediate(resolve));
    expect(log.at(-1)).toBe('b');
    b.finish();
    plain.finish();
    expect(await Promise.all([second, other])).toEqual(['b', 'plain']);
  });

  it(`refuses with 429 once one runs and ${HOST_QUERIES_QUEUED} wait`, async () => {
    const gate = hostFunctionGate<string>();
    const log: string[] = [];
    const held = Array.from({ length: HOST_QUERIES_QUEUED + 1 }, (_, index) => pending(log, `q${index}`));
    const running = held.map((query) => gate('SELECT cannery_soundex(x)', query.run));
    const refused = await gate('SELECT cannery_soundex(y)', async () => 'ran').catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(CanneryError);
    expect(refused).toMatchObject({ code: 'too_many_requests' });
    expect((refused as Error).message).toContain('one at a time');
    for (const query of held) query.finish();
    expect(await Promise.all(running)).toEqual(held.map((_, index) => `q${index}`));
  });
});
