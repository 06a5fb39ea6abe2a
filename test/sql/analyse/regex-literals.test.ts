/**
 * The literals an RE2 pattern requires: what they are for patterns log clients write, and, for
 * random patterns and texts, that they never reject a text RE2 (re2js) matches, and that an exact
 * set accepts exactly the texts RE2 matches.
 */
import fc from 'fast-check';
import { RE2JS } from 're2js';
import { describe, expect, it } from 'vitest';
import { MAX_LITERAL_LENGTH, MAX_LITERALS, requiredLiterals } from '../../../src/sql/analyse/regex-literals.js';

describe('requiredLiterals', () => {
  it.each([
    ['qzvmkdwtrjxhbnpalcoe', { literals: ['qzvmkdwtrjxhbnpalcoe'], exact: true }],
    ['proj|zz17', { literals: ['proj', 'zz17'], exact: true }],
    ['ERROR|FATAL|PANIC', { literals: ['ERROR', 'FATAL', 'PANIC'], exact: true }],
    ['ab(c|d)e', { literals: ['abce', 'abde'], exact: true }],
    ['https?://x', { literals: ['http://x', 'https://x'], exact: true }],
    ['foo\\.bar', { literals: ['foo.bar'], exact: true }],
    ['\\Q(*)\\E', { literals: ['(*)'], exact: true }],
    ['\\x41\\x{42}C', { literals: ['ABC'], exact: true }],
    ['a{2}', { literals: ['aa'], exact: true }],
    ['a{', { literals: ['a{'], exact: true }],
    ['(?:ab|cd)ef', { literals: ['abef', 'cdef'], exact: true }],
    ['(?P<name>ab)c', { literals: ['abc'], exact: true }],
    ['abc.*def', { literals: ['abc'], exact: false }],
    ['^/rest/v1', { literals: ['/rest/v1'], exact: false }],
    ['[abc]def', { literals: ['def'], exact: false }],
    ['[]a]bc', { literals: ['bc'], exact: false }],
    ['[^]x]yz', { literals: ['yz'], exact: false }],
    ['\\p{Greek}+abc', { literals: ['abc'], exact: false }],
    ['(a|b|c|d|e)xyz', { literals: ['xyz'], exact: false }],
    ['(?i:ab)cd', { literals: ['cd'], exact: false }],
    ['(\\d+)\\.(\\d+)', { literals: ['.'], exact: false }],
    ['(?i)abc', undefined],
    ['a|b|c|d|e', undefined],
    ['x|.*', undefined],
    ['a?', undefined],
    ['', undefined],
    ['a**', undefined],
    ['a{1001}', undefined],
    ['\\1', undefined],
    ['(unclosed', undefined],
  ])('%j', (pattern, expected) => {
    expect(requiredLiterals(pattern)).toEqual(expected);
  });

  it('reads nested repetitions as RE2 does, and builds no literal past its length bound', () => {
    // RE2 refuses these (the counts of nested repetitions multiply past 1,000): no prefilter, so the
    // expression runs and raises RE2's error. The first once threw a RangeError building the string.
    expect(requiredLiterals('((((a{1000}){1000}){1000}){1000})')).toBeUndefined();
    expect(requiredLiterals('((a{1000}){1000}){500}')).toBeUndefined();
    expect(requiredLiterals('(a{2}){501}')).toBeUndefined();
    expect(requiredLiterals('(a{2}){500}')).toEqual({ literals: ['a'.repeat(1000)], exact: true });
    expect(requiredLiterals('(a{4}){1000}')).toBeUndefined();
    // Within RE2's rule, but longer than any literal worked out: left out, then the shorter one is used.
    expect(requiredLiterals(`${'b'.repeat(MAX_LITERAL_LENGTH + 1)}.c`)).toEqual({ literals: ['b'], exact: false });
    expect(requiredLiterals('(abcdefghij){500}')).toEqual({ literals: ['abcdefghij'], exact: false });
    expect(requiredLiterals('(abcdefghij){400}')).toEqual({ literals: ['abcdefghij'.repeat(400)], exact: true });
    // Groups nested past RE2's depth (1,000): refused by RE2, and by this reading before its recursion runs deep.
    expect(requiredLiterals(`${'('.repeat(1001)}a${')'.repeat(1001)}`)).toBeUndefined();
    expect(requiredLiterals(`${'('.repeat(999)}a${')'.repeat(999)}`)).toEqual({ literals: ['a'], exact: true });
  });

  it('never asks for more literals than a prefilter tests', () => {
    expect(requiredLiterals('a|b|c|d')?.literals).toHaveLength(MAX_LITERALS);
    expect(requiredLiterals('a|b|c|d|e')).toBeUndefined();
  });
});

/** Small RE2 patterns over the letters of the texts, with the constructs the parser reads. */
const pattern: fc.Arbitrary<string> = fc.letrec<{ node: string }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constantFrom('a', 'b', 'c', 'A', 'ab', 'ba', '.', '\\.', '[ab]', '[^a]', '[]a]', '\\d', '\\w', '^', '$', '\\b', '\\x61', '\\Qa.\\E', '{', 'a{'),
    fc.tuple(tie('node'), tie('node')).map(([left, right]) => left + right),
    fc.tuple(tie('node'), tie('node')).map(([left, right]) => `(?:${left}|${right})`),
    fc.tuple(tie('node'), tie('node')).map(([left, right]) => `(${left}|${right})`),
    fc.tuple(tie('node'), fc.constantFrom('*', '+', '?', '{2}', '{1,2}', '{0,1}', '*?')).map(([node, operator]) => `(?:${node})${operator}`),
    tie('node').map((node) => `(?i:${node})`),
    tie('node').map((node) => `(?i)${node}`),
  ),
})).node;

const text = fc.string({ unit: fc.constantFrom('a', 'b', 'c', 'A', 'B', '.', '1', ' ', '{'), maxLength: 10 });

function contains(subject: string, literals: readonly string[]): boolean {
  return literals.some((literal) => subject.includes(literal));
}

describe('requiredLiterals against RE2', () => {
  it('every text a pattern matches contains one of its literals; with an exact set, only those', () => {
    fc.assert(
      fc.property(pattern, fc.array(text, { minLength: 10, maxLength: 30 }), (source, subjects) => {
        let compiled: RE2JS;
        try {
          compiled = RE2JS.compile(source);
        } catch {
          // Not a pattern RE2 takes: a query would fail on it whatever its literals.
          return;
        }
        const required = requiredLiterals(source);
        if (required === undefined) return;
        expect(required.literals.every((literal) => literal !== '')).toBe(true);
        for (const subject of subjects) {
          const matches = compiled.matcher(subject).find();
          if (matches) expect(contains(subject, required.literals), `${source} on ${JSON.stringify(subject)}`).toBe(true);
          if (required.exact) expect(matches, `${source} on ${JSON.stringify(subject)}`).toBe(contains(subject, required.literals));
        }
      }),
      { numRuns: 3_000 },
    );
  });

  it('finds literals, and exact sets, in enough of those patterns to test them', () => {
    const found = fc.sample(pattern, { numRuns: 1_000, seed: 7 }).map((source) => requiredLiterals(source));
    expect(found.filter((required) => required !== undefined).length).toBeGreaterThan(200);
    expect(found.filter((required) => required?.exact).length).toBeGreaterThan(50);
  });
});
