/** The store: bounded by bytes, least recently used out first, ETags from the bytes. */
import { describe, expect, it } from 'vitest';
import { cacheEntry, createCacheStore } from '../../../../src/engine/serve/cache/store.js';

/** An entry of exactly `size` bytes (a one-character key and size - 1 body bytes). */
const entry = (key: string, size: number, endpointId = 'e1', fill = 0) => cacheEntry(key, endpointId, { body: Buffer.alloc(size - 1, fill), rows: 0 }, 0);

describe('cache store', () => {
  it('charges the body and the key against the cap', () => {
    const store = createCacheStore({ maxBytes: 1000 });
    store.set(entry('a', 100));
    store.set(entry('b', 250));
    expect(store.bytes).toBe(350);
    expect(store.size).toBe(2);
  });

  it('evicts least recently used first: a read is a use', () => {
    const removed: string[] = [];
    const store = createCacheStore({ maxBytes: 300, onRemove: (key) => removed.push(key) });
    store.set(entry('a', 100));
    store.set(entry('b', 100));
    store.set(entry('c', 100));
    store.get('a');
    store.set(entry('d', 100));
    expect(removed).toEqual(['b']);
    store.set(entry('e', 150));
    expect(removed).toEqual(['b', 'c', 'a']);
    expect([...['a', 'b', 'c', 'd', 'e']].filter((key) => store.has(key))).toEqual(['d', 'e']);
    expect(store.bytes).toBe(250);
  });

  it('a replacement keeps its place in the order (a refresh is not a use) and is recharged', () => {
    const removed: string[] = [];
    const store = createCacheStore({ maxBytes: 300, onRemove: (key) => removed.push(key) });
    store.set(entry('a', 100));
    store.set(entry('b', 100));
    store.set(entry('a', 150));
    expect(store.bytes).toBe(250);
    expect(removed).toEqual([]);
    store.set(entry('c', 100));
    expect(removed).toEqual(['a']);
  });

  it('keeps the order a plain LRU list keeps, over a long random run of reads, writes and drops', () => {
    // The reference: an array, least recently used first, moved on every read.
    const order: { key: string; size: number; endpointId: string }[] = [];
    const expectedRemoved: string[] = [];
    const maxBytes = 300;
    const removed: string[] = [];
    const store = createCacheStore({ maxBytes, onRemove: (key) => removed.push(key) });
    let seed = 7;
    const random = (below: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      // The high bits: an LCG's low bits repeat with a short period.
      return Math.floor(seed / 65536) % below;
    };
    for (let step = 0; step < 5000; step++) {
      const key = 'abcdef'[random(6)]!;
      const at = order.findIndex((item) => item.key === key);
      const choice = random(10);
      if (choice < 6) {
        // Reads, hot ones included: the same key several times running.
        expect(store.get(key)?.key).toBe(at === -1 ? undefined : key);
        if (at !== -1) order.push(...order.splice(at, 1));
      } else if (choice < 9) {
        const size = 20 + random(300);
        const endpointId = `e${random(2)}`;
        store.set(entry(key, size, endpointId));
        if (size > maxBytes) {
          if (at !== -1) expectedRemoved.push(...order.splice(at, 1).map((item) => item.key));
        } else if (at !== -1) order[at] = { key, size, endpointId };
        else order.push({ key, size, endpointId });
        while (order.reduce((sum, item) => sum + item.size, 0) > maxBytes) expectedRemoved.push(order.shift()!.key);
      } else {
        const endpointId = `e${random(2)}`;
        store.deleteEndpoint(endpointId);
        for (const item of order.filter((one) => one.endpointId === endpointId)) {
          order.splice(order.indexOf(item), 1);
          expectedRemoved.push(item.key);
        }
      }
      expect(removed).toEqual(expectedRemoved);
      expect(store.bytes).toBe(order.reduce((sum, item) => sum + item.size, 0));
    }
  });

  it('does not store an entry larger than the cap, and drops the older entry of its key', () => {
    const removed: string[] = [];
    const store = createCacheStore({ maxBytes: 100, onRemove: (key) => removed.push(key) });
    store.set(entry('a', 50));
    store.set(entry('a', 101));
    expect(store.has('a')).toBe(false);
    expect(store.bytes).toBe(0);
    expect(removed).toEqual(['a']);
  });

  it('drops every entry of one endpoint', () => {
    const store = createCacheStore({ maxBytes: 1000 });
    store.set(entry('a', 10, 'e1'));
    store.set(entry('b', 10, 'e2'));
    store.set(entry('c', 10, 'e1'));
    store.deleteEndpoint('e1');
    expect(['a', 'b', 'c'].filter((key) => store.has(key))).toEqual(['b']);
    expect(store.bytes).toBe(10);
  });

  it('gives equal bytes equal quoted ETags and different bytes different ones', () => {
    const first = entry('a', 10, 'e1', 1);
    expect(first.etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    expect(entry('b', 10, 'e2', 1).etag).toBe(first.etag);
    expect(entry('a', 10, 'e1', 2).etag).not.toBe(first.etag);
  });
});
