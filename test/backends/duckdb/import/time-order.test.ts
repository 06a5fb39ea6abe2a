import { describe, expect, it } from 'vitest';
import { TimeOrder } from '../../../../src/backends/duckdb/import/time-order.js';

const ROW_GROUP = 122_880;

function orderOf(times: Iterable<number>): boolean {
  const order = new TimeOrder();
  for (const micros of times) order.add(micros);
  return order.farFromOrder;
}

/** `count` events over a week, in time order; `disorder` picks each one's place from its index. */
function* week(count: number, place: (index: number) => number = (index) => index): Generator<number> {
  const step = (7 * 86_400_000_000) / count;
  for (let index = 0; index < count; index += 1) yield Math.round(place(index) * step);
}

describe('TimeOrder', () => {
  const count = 6 * ROW_GROUP;
  it('finds an input in time order, newest first, or nearly in order (shippers interleaved) near enough', () => {
    expect(orderOf(week(count))).toBe(false);
    expect(orderOf(week(count, (index) => count - index))).toBe(false);
    // Ten minutes of jitter over a week.
    expect(orderOf(week(count, (index) => index + ((index * 7919) % 7000)))).toBe(false);
  });

  it('finds an input in no time order far from it', () => {
    expect(orderOf(week(count, (index) => (index * 7919) % count))).toBe(true);
  });

  it('says nothing of an input too small for row groups to matter', () => {
    expect(orderOf(week(3 * ROW_GROUP, (index) => (index * 7919) % (3 * ROW_GROUP)))).toBe(false);
  });
});
