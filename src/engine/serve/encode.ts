/**
 * The one encoder of a successful answer, `{"result": [...rows]}` as UTF-8 JSON. It lives in the
 * engine because cached answers are stored encoded: HTTP and `cannery run` send these bytes as is.
 *
 * Rows are encoded one at a time against the answer's byte budget (result-budget.ts): an answer
 * over it stops there with result_too_large instead of being built whole, and the event loop
 * gets a turn every YIELD_EVERY_BYTES. `transform` (PII redaction) runs row by row too, so a
 * redacted answer costs no second pass over every row at once.
 */
import type { WireRow } from '../../core/types.js';
import { resultBudget, resultTooLarge } from './result-budget.js';

export interface EncodeOptions {
  /** CANNERY_MAX_RESULT_BYTES: the most the encoded answer may weigh. */
  maxBytes: number;
  /** Applied to each row before it is encoded; must not change the row it is given. */
  transform?: (row: WireRow) => WireRow;
}

/** Text gathered before it becomes bytes: one Buffer per row would cost more than the rows. */
const PART_CHARACTERS = 64 * 1024;

export async function encodeResult(rows: readonly WireRow[], options: EncodeOptions): Promise<Uint8Array> {
  const { maxBytes, transform } = options;
  const budget = resultBudget(maxBytes);
  const parts: Buffer[] = [];
  let text = '{"result":[';
  for (let index = 0; index < rows.length; index++) {
    const row = transform ? transform(rows[index]!) : rows[index]!;
    const json = stringify(row, maxBytes);
    const piece = index === 0 ? json : `,${json}`;
    budget.spend(Buffer.byteLength(piece));
    text += piece;
    if (text.length >= PART_CHARACTERS) {
      parts.push(Buffer.from(text));
      text = '';
    }
    await budget.breathe();
  }
  parts.push(Buffer.from(`${text}]}`));
  return parts.length === 1 ? parts[0]! : Buffer.concat(parts);
}

/** A row's JSON; one longer than a JS string can be is over any budget. */
function stringify(row: WireRow, maxBytes: number): string {
  try {
    return JSON.stringify(row);
  } catch (error) {
    if (error instanceof RangeError) throw resultTooLarge(maxBytes);
    throw error;
  }
}
