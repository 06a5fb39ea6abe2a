/** Each key's own rate (src/access/rates.ts), on a clock the test moves. */
import { describe, expect, it } from 'vitest';
import { createRates } from '../../src/access/rates.js';

describe('rates', () => {
  it("holds one second's worth, refills at the rate, and says how long to wait", () => {
    const rates = createRates();
    let now = 1_000_000;
    const takes = (count: number, perSecond: number, key = 'a') => Array.from({ length: count }, () => rates.take(key, perSecond, now));
    expect(takes(5, 5)).toEqual([0, 0, 0, 0, 0]);
    expect(takes(1, 5)).toEqual([1]);
    now += 200;
    expect(takes(2, 5)).toEqual([0, 1]);
    // Another key has its own bucket.
    expect(takes(5, 5, 'b')).toEqual([0, 0, 0, 0, 0]);
    // Below one a second, the burst is one request and the wait is longer.
    expect(takes(2, 0.25, 'slow')).toEqual([0, 4]);
    now += 3000;
    expect(takes(1, 0.25, 'slow')).toEqual([1]);
    now += 1000;
    expect(takes(1, 0.25, 'slow')).toEqual([0]);
  });

  it('a rate edited in the keys file applies to the bucket from the next request', () => {
    const rates = createRates();
    expect([rates.take('k', 1, 0), rates.take('k', 1, 0)]).toEqual([0, 1]);
    // At 1 a second the bucket would be empty until 1000; at 10 a second it has room at 100.
    expect(rates.take('k', 10, 50)).toBe(1);
    expect(rates.take('k', 10, 100)).toBe(0);
  });
});
