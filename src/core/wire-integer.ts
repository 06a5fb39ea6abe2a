/**
 * An integer on the wire (INT64, a TIMESTAMP's Unix microseconds), the same from every backend:
 * a JSON number, as BigQuery's REST API clients (and Logflare's) expect; beyond 2^53, where a
 * number would round, the decimal string of it, which loses nothing (docs/http.md).
 */
const EXACT_NUMBER = 2n ** 53n;

export function wireInteger(value: bigint): number | string {
  return value > EXACT_NUMBER || value < -EXACT_NUMBER ? String(value) : Number(value);
}
