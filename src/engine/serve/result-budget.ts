/**
 * The byte budget of one answer (CANNERY_MAX_RESULT_BYTES), spent while rows are converted and
 * encoded rather than checked afterwards: `max_rows` bounds rows, not bytes, and 1,000 rows of a
 * few hundred KB each once took the process to gigabytes before anything looked at their size.
 *
 * A backend charges each value it converts at the least its JSON can weigh (leastJsonBytes),
 * so it stops as soon as the answer is certainly too large and never refuses one that would
 * fit; the encoder then counts the exact bytes. Both hand the event loop back every
 * YIELD_EVERY_BYTES, so one large answer delays other requests by slices, not whole.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import { CanneryError } from '../../core/errors.js';
import type { WireValue } from '../../core/types.js';

/** `{"result":[` and `]}`: what an answer weighs with no rows. */
export const ENVELOPE_BYTES = 13;

/**
 * Work between two yields to the event loop: about a millisecond of converting or encoding,
 * small next to a request's own time, and a few hundred yields for the largest default answer.
 */
export const YIELD_EVERY_BYTES = 256 * 1024;

export interface ResultBudget {
  readonly maxBytes: number;
  /** Spends `bytes`; throws result_too_large once the answer is over the budget. */
  spend(bytes: number): void;
  /** Spends what a row's member `"name":value,` weighs at the least. */
  spendMember(name: string, value: WireValue): void;
  /** Yields to the event loop when YIELD_EVERY_BYTES were spent since the last yield. */
  breathe(): Promise<void> | undefined;
}

export function resultBudget(maxBytes: number): ResultBudget {
  let spent = ENVELOPE_BYTES;
  let sinceYield = 0;
  const spend = (bytes: number) => {
    spent += bytes;
    sinceYield += bytes;
    if (spent > maxBytes) throw resultTooLarge(maxBytes);
  };
  return {
    maxBytes,
    spend,
    // Quotes, colon and comma around the name.
    spendMember: (name, value) => spend(name.length + 4 + leastJsonBytes(value)),
    breathe() {
      if (sinceYield < YIELD_EVERY_BYTES) return undefined;
      sinceYield = 0;
      return nextTurn();
    },
  };
}

/** The error for an answer over `maxBytes`: it names the limit and what to do. */
export function resultTooLarge(maxBytes: number): CanneryError {
  return new CanneryError(
    'result_too_large',
    `the answer is larger than the ${maxBytes}-byte limit (${mebibytes(maxBytes)}, CANNERY_MAX_RESULT_BYTES); ask for fewer rows (LIMIT, narrower parameters) or smaller values (fewer columns, SUBSTR)`,
  );
}

function mebibytes(bytes: number): string {
  const mib = bytes / (1024 * 1024);
  return mib >= 1 ? `${Number(mib.toFixed(1))} MiB` : `${Number((bytes / 1024).toFixed(1))} KiB`;
}

/**
 * A lower bound of the UTF-8 bytes of JSON.stringify(value): a string's UTF-16 length is at most
 * its UTF-8 length, and escapes only add; a number has at least its digits. Cheap: no string is
 * made, and a walk of the value is small next to converting it.
 */
export function leastJsonBytes(value: WireValue): number {
  if (value === null) return 4;
  switch (typeof value) {
    case 'string':
      return value.length + 2;
    case 'number':
      return numberBytes(value);
    case 'boolean':
      return value ? 4 : 5;
  }
  if (Array.isArray(value)) {
    let bytes = value.length > 0 ? value.length + 1 : 2;
    for (const item of value) bytes += leastJsonBytes(item);
    return bytes;
  }
  let bytes = 1;
  let members = 0;
  for (const key in value) {
    bytes += key.length + 4 + leastJsonBytes(value[key]!);
    members += 1;
  }
  return members === 0 ? 2 : bytes;
}

function numberBytes(value: number): number {
  // Never reached from a backend (a non-finite FLOAT64 is a string on the wire, core/wire-float.ts);
  // what JSON.stringify writes for one, `null`.
  if (!Number.isFinite(value)) return 4;
  const sign = value < 0 ? 1 : 0;
  const magnitude = Math.abs(value);
  // A fraction has a digit, a point and a digit; from 1e21 on, JSON writes an exponent (1e+21).
  if (!Number.isInteger(value)) return sign + 3;
  if (magnitude >= 1e21) return sign + 5;
  return sign + (magnitude < 10 ? 1 : Math.floor(Math.log10(magnitude)) + 1);
}
