/**
 * The one encoder of a successful answer, `{"result": [...rows]}` as UTF-8 JSON. It lives in the
 * engine because cached answers are stored encoded: HTTP and `cannery run` send these bytes as is.
 */
import type { WireRow } from '../core/types.js';

export function encodeResult(rows: readonly WireRow[]): Uint8Array {
  return Buffer.from(JSON.stringify({ result: rows }));
}
