/**
 * The encoder: the bytes of JSON.stringify({result: rows}) exactly, a row at a time against the
 * byte budget (an answer one byte over it is refused, one at it is not), redaction applied row by
 * row, and the event loop handed back while a large answer is encoded.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { WireRow } from '../../../src/core/types.js';
import { encodeResult } from '../../../src/engine/serve/encode.js';
import { redactValue } from '../../../src/engine/serve/redact.js';

const row: fc.Arbitrary<WireRow> = fc.dictionary(
  fc.string({ unit: 'binary', maxLength: 6 }),
  fc.oneof(fc.string({ unit: 'binary' }), fc.integer(), fc.double(), fc.boolean(), fc.constant(null), fc.array(fc.string({ maxLength: 4 }), { maxLength: 3 })),
  { maxKeys: 4 },
);

const NO_LIMIT = Number.MAX_SAFE_INTEGER;

describe('encodeResult', () => {
  it('writes the same bytes as JSON.stringify of the whole answer', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(row, { maxLength: 20 }), async (rows) => {
        const bytes = await encodeResult(rows, { maxBytes: NO_LIMIT });
        expect(Buffer.from(bytes).toString()).toBe(JSON.stringify({ result: rows }));
      }),
      { numRuns: 300 },
    );
  });

  it('takes an answer of exactly the budget and refuses one a byte over it, naming the limit', async () => {
    const rows: WireRow[] = Array.from({ length: 50 }, (_, i) => ({ id: `r${i}`, text: 'é'.repeat(i) }));
    const size = Buffer.byteLength(JSON.stringify({ result: rows }));
    expect((await encodeResult(rows, { maxBytes: size })).byteLength).toBe(size);
    await expect(encodeResult(rows, { maxBytes: size - 1 })).rejects.toMatchObject({
      code: 'result_too_large',
      message: expect.stringContaining(`the ${size - 1}-byte limit`),
    });
  });

  it('counts UTF-8 bytes and escapes, not characters', async () => {
    const rows: WireRow[] = [{ s: '😀'.repeat(100) }, { s: '"\n'.repeat(100) }];
    const characters = JSON.stringify({ result: rows }).length;
    await expect(encodeResult(rows, { maxBytes: characters })).rejects.toMatchObject({ code: 'result_too_large' });
  });

  it('applies the transform to every row, and never changes the rows it is given', async () => {
    const rows: WireRow[] = [{ ip: '10.0.0.1', nested: [{ mail: 'a@example.com' }] }, { n: 1 }];
    const before = structuredClone(rows);
    const bytes = await encodeResult(rows, { maxBytes: NO_LIMIT, transform: (one) => redactValue(one) as WireRow });
    expect(JSON.parse(Buffer.from(bytes).toString())).toEqual({ result: [{ ip: 'REDACTED', nested: [{ mail: 'REDACTED' }] }, { n: 1 }] });
    expect(rows).toEqual(before);
  });

  it('counts a redacted row at what it weighs redacted', async () => {
    const rows: WireRow[] = [{ ip: '1.1.1.1' }];
    const redactedSize = Buffer.byteLength(JSON.stringify({ result: [{ ip: 'REDACTED' }] }));
    await expect(encodeResult(rows, { maxBytes: redactedSize - 1, transform: (one) => redactValue(one) as WireRow })).rejects.toMatchObject({ code: 'result_too_large' });
  });

  it('hands the event loop back while it encodes a large answer', async () => {
    const rows: WireRow[] = Array.from({ length: 64 }, (_, i) => ({ i, text: 'x'.repeat(64 * 1024) }));
    let turns = 0;
    let stop = false;
    const tick = () => {
      turns += 1;
      if (!stop) setImmediate(tick);
    };
    setImmediate(tick);
    const bytes = await encodeResult(rows, { maxBytes: NO_LIMIT });
    stop = true;
    expect(bytes.byteLength).toBeGreaterThan(4 * 1024 * 1024);
    // 4 MiB at one turn every 256 KiB.
    expect(turns).toBeGreaterThanOrEqual(15);
  });
});
