/**
 * The answer's byte budget: the least a value's JSON can weigh is never more than it weighs (so
 * a backend spending it never refuses an answer that fits), and spending past the budget is a
 * result_too_large that names the limit.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { WireValue } from '../../../src/core/types.js';
import { ENVELOPE_BYTES, leastJsonBytes, resultBudget } from '../../../src/engine/serve/result-budget.js';

/** Wire values as backends make them: any string (escapes, astral and lone surrogates), any double. */
const wireValue: fc.Arbitrary<WireValue> = fc.letrec<{ value: WireValue }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.constant(null),
    fc.boolean(),
    fc.double(),
    fc.integer(),
    fc.constantFrom(1e21, -1e21, 123456789012345680000, 1714557600123456, -0, 0.1, 1e-7),
    fc.string({ unit: 'binary' }),
    fc.string({ unit: fc.constantFrom('"', '\\', '\n', '\u0001', '\ud800', 'é', '😀') }),
    fc.array(tie('value'), { maxLength: 5 }),
    fc.dictionary(fc.string({ unit: 'binary', maxLength: 8 }), tie('value'), { maxKeys: 5 }),
  ),
})).value;

describe('leastJsonBytes', () => {
  it('is never more than the UTF-8 bytes of the JSON', () => {
    fc.assert(
      fc.property(wireValue, (value) => {
        expect(leastJsonBytes(value)).toBeLessThanOrEqual(Buffer.byteLength(JSON.stringify(value)));
      }),
      { numRuns: 2000 },
    );
  });

  it('is exact for plain ASCII text, integers and the envelope', () => {
    for (const value of ['', 'abc', 0, 7, 10, 99, 100, -42, 1714557600123456, true, false, null, [], {}, [1, 'a'], { a: 1, bc: [null] }]) {
      expect(leastJsonBytes(value as WireValue)).toBe(Buffer.byteLength(JSON.stringify(value)));
    }
    expect(ENVELOPE_BYTES).toBe(Buffer.byteLength(JSON.stringify({ result: [] })));
  });
});

describe('resultBudget', () => {
  it('takes spending up to the limit and refuses the byte past it, naming the limit and its setting', () => {
    const budget = resultBudget(ENVELOPE_BYTES + 100);
    budget.spend(100);
    let caught: any;
    try {
      budget.spend(1);
    } catch (error) {
      caught = error;
    }
    expect(caught).toMatchObject({ code: 'result_too_large' });
    expect(caught.message).toContain(`the ${ENVELOPE_BYTES + 100}-byte limit`);
    expect(caught.message).toContain('CANNERY_MAX_RESULT_BYTES');
  });

  it('spends a member at the least its `"name":value,` weighs', () => {
    const budget = resultBudget(ENVELOPE_BYTES + '"event_message":"abc",'.length);
    budget.spendMember('event_message', 'abc');
    expect(() => budget.spendMember('x', null)).toThrow(/limit/);
  });

  it('asks for a turn of the event loop after every 256 KiB spent, and not before', async () => {
    const budget = resultBudget(Number.MAX_SAFE_INTEGER);
    budget.spend(256 * 1024 - 1);
    expect(budget.breathe()).toBeUndefined();
    budget.spend(1);
    const pause = budget.breathe();
    expect(pause).toBeInstanceOf(Promise);
    await pause;
    expect(budget.breathe()).toBeUndefined();
  });
});
