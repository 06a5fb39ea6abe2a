/**
 * Each key's and token's own rate: a token bucket per grant that holds one second's worth of
 * requests. A request past it is refused at once with the seconds until the bucket has room; no
 * request waits, so one busy key never slows another.
 */

/** Buckets kept before the full ones (idle for a second or more) are dropped. */
const MAX_BUCKETS = 10_000;

interface Bucket {
  tokens: number;
  at: number;
  perSecond: number;
}

export interface Rates {
  /** Takes one request from `key`'s bucket: 0 when it had room, else the whole seconds to wait. */
  take(key: string, perSecond: number, nowMs: number): number;
}

export function createRates(): Rates {
  const buckets = new Map<string, Bucket>();
  return {
    take(key, perSecond, nowMs) {
      const capacity = Math.max(1, perSecond);
      let bucket = buckets.get(key);
      if (!bucket) {
        if (buckets.size >= MAX_BUCKETS) dropFull(buckets, nowMs);
        buckets.set(key, (bucket = { tokens: capacity, at: nowMs, perSecond }));
      }
      // A key whose rate was edited in the keys file keeps its bucket at the new rate.
      bucket.perSecond = perSecond;
      bucket.tokens = Math.min(capacity, bucket.tokens + ((nowMs - bucket.at) / 1000) * perSecond);
      bucket.at = nowMs;
      if (bucket.tokens >= 1) {
        bucket.tokens -= 1;
        return 0;
      }
      return Math.max(1, Math.ceil((1 - bucket.tokens) / perSecond));
    },
  };
}

/** Drops the buckets that would be full again by now: forgetting them changes nothing. */
function dropFull(buckets: Map<string, Bucket>, nowMs: number): void {
  for (const [key, bucket] of buckets) {
    if (nowMs - bucket.at >= (1000 * Math.max(1, bucket.perSecond)) / bucket.perSecond) buckets.delete(key);
  }
}
