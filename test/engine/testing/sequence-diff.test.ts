/** The longest-common-subsequence diff behind failed tests' row diffs and `cannery diff`'s rows. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { diffSequences, diffText, type DiffStep } from '../../../src/engine/testing/sequence-diff.js';

const same = (a: string, b: string) => a === b;
const text = (a: string[], b: string[], context?: number) => diffText(diffSequences(a, b, same), String, String, context);

describe('diffSequences', () => {
  it('keeps what both share and marks the rest, removals first', () => {
    expect(text(['a', 'b', 'c'], ['a', 'x', 'c'])).toEqual(['  a', '- b', '+ x', '  c']);
    expect(text(['a', 'b'], ['a', 'b', 'c'])).toEqual(['  a', '  b', '+ c']);
    expect(text([], ['a'])).toEqual(['+ a']);
    expect(text(['a'], [])).toEqual(['- a']);
  });

  it('finds a longest common subsequence, not just common ends', () => {
    expect(text(['x', 'a', 'b', 'c', 'y'], ['a', 'q', 'b', 'c'])).toEqual(['- x', '  a', '+ q', '  b', '  c', '- y']);
  });

  it('compares with the given rule, pairing each side with its own value', () => {
    const steps = diffSequences([{ id: 1 }], [{ id: 1, extra: true }], (a, b) => a.id === b.id);
    expect(steps).toEqual([{ kind: 'same', a: { id: 1 }, b: { id: 1, extra: true } }]);
  });

  it('rebuilds both sequences, with as many shared elements as the longest common subsequence', () => {
    const lcs = (a: string[], b: string[]): number => {
      const table = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
      for (let i = a.length - 1; i >= 0; i--) for (let j = b.length - 1; j >= 0; j--) table[i]![j] = a[i] === b[j] ? table[i + 1]![j + 1]! + 1 : Math.max(table[i + 1]![j]!, table[i]![j + 1]!);
      return table[0]![0]!;
    };
    const letters = fc.array(fc.constantFrom('a', 'b', 'c', 'd'), { maxLength: 12 });
    fc.assert(
      fc.property(letters, letters, (a, b) => {
        const steps: DiffStep<string, string>[] = diffSequences(a, b, same);
        expect(steps.flatMap((step) => (step.kind === 'added' ? [] : [step.a]))).toEqual(a);
        expect(steps.flatMap((step) => (step.kind === 'removed' ? [] : [step.b]))).toEqual(b);
        expect(steps.filter((step) => step.kind === 'same')).toHaveLength(lcs(a, b));
      }),
    );
  });
});

describe('diffText', () => {
  it('cuts a long shared run to its ends around a count', () => {
    const before = ['1', '2', '3', '4', '5', '6', '7', '8', '9', '10'];
    const after = ['0', ...before.slice(0, 9), 'x'];
    expect(text(before, after, 2)).toEqual(['+ 0', '  1', '  2', '  … 5 more matching rows', '  8', '  9', '- 10', '+ x']);
  });

  it('shows no context before the first change or after the last one', () => {
    expect(text(['1', '2', '3', '4', '5', 'a'], ['1', '2', '3', '4', '5', 'b'], 1)).toEqual(['  … 4 more matching rows', '  5', '- a', '+ b']);
  });
});
