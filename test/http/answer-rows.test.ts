/** Row by row through an encoded answer: each row's JSON bytes exactly, whatever its strings hold. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { WireRow, WireValue } from '../../src/core/types.js';
import { encodeResult } from '../../src/engine/serve/encode.js';
import { answerRows } from '../../src/http/answer-rows.js';

/** Strings full of what a scanner could trip on: quotes, backslashes, brackets, commas, multi-byte characters. */
const tricky = fc.string({ unit: fc.constantFrom('"', '\\', '{', '}', '[', ']', ',', 'a', 'é', '😀', '\n', '\u0000') });
const value: fc.Arbitrary<WireValue> = fc.letrec<{ value: WireValue }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    tricky,
    fc.integer(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 3 }),
    fc.dictionary(tricky, tie('value'), { maxKeys: 3 }),
  ),
})).value;
const row: fc.Arbitrary<WireRow> = fc.dictionary(tricky, value, { maxKeys: 4 });

describe('answerRows', () => {
  it("gives each row's JSON bytes in order, then undefined", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(row, { maxLength: 8 }), async (rows) => {
        const next = answerRows(await encodeResult(rows, { maxBytes: Number.MAX_SAFE_INTEGER }));
        const texts: string[] = [];
        for (let bytes = next(); bytes; bytes = next()) texts.push(Buffer.from(bytes).toString());
        expect(texts).toEqual(rows.map((one) => JSON.stringify(one)));
        expect(next()).toBeUndefined();
      }),
      { numRuns: 500 },
    );
  });
});
