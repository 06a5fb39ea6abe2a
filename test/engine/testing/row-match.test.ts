/** How expected rows match actual ones, and how actual ones are shown beside them. */
import { describe, expect, it } from 'vitest';
import { flowText, matches, shownLike, templateOf } from '../../../src/engine/testing/row-match.js';

const micros = (iso: string) => Date.parse(iso) * 1000;

describe('matches', () => {
  it('checks only the columns a row lists', () => {
    expect(matches({ id: 'a' }, { id: 'a', n: 1 })).toBe(true);
    expect(matches({ id: 'a', n: 2 }, { id: 'a', n: 1 })).toBe(false);
    expect(matches({ missing: null }, { id: 'a' })).toBe(false);
  });

  it('checks only the fields an object lists, at any depth, but every element of an array', () => {
    const actual = { metadata: [{ request: [{ path: '/rest', method: 'GET' }], response: null }] };
    expect(matches({ metadata: [{ request: [{ path: '/rest' }] }] }, actual)).toBe(true);
    expect(matches({ metadata: [{ request: [{ path: '/auth' }] }] }, actual)).toBe(false);
    expect(matches({ metadata: [] }, actual)).toBe(false);
    expect(matches({ metadata: [{}, {}] }, actual)).toBe(false);
    expect(matches({ metadata: [{ response: null }] }, actual)).toBe(true);
  });

  it('takes ISO text with a zone for a timestamp on the wire, to the microsecond', () => {
    expect(matches({ t: '2024-05-01T10:00:00Z' }, { t: micros('2024-05-01T10:00:00Z') })).toBe(true);
    expect(matches({ t: '2024-05-01T12:00:00+02:00' }, { t: micros('2024-05-01T10:00:00Z') })).toBe(true);
    expect(matches({ t: '2024-05-01T10:00:00.000001Z' }, { t: micros('2024-05-01T10:00:00Z') + 1 })).toBe(true);
    expect(matches({ t: '2024-05-01T10:00:00Z' }, { t: micros('2024-05-01T10:00:00Z') + 1 })).toBe(false);
    expect(matches({ t: '2024-05-01T10:00:00' }, { t: micros('2024-05-01T10:00:00Z') })).toBe(false);
  });

  it('compares everything else exactly: no number is a string, no null is missing', () => {
    expect(matches({ n: 1 }, { n: '1' })).toBe(false);
    expect(matches({ n: '1' }, { n: 1 })).toBe(false);
    expect(matches({ n: null }, { n: 0 })).toBe(false);
    expect(matches({ s: 'a' }, { s: null })).toBe(false);
    expect(matches({ b: false }, { b: false })).toBe(true);
  });
});

describe('shownLike', () => {
  it('cuts rows to the fields the expected rows name, timestamps as ISO text where they were written so', () => {
    const template = templateOf([{ id: 'a', t: '2024-05-01T10:00:00Z' }, { meta: [{ path: '/x' }] }]);
    const actual = { id: 'b', t: micros('2024-05-01T10:00:00Z') + 1500, n: 3, meta: [{ path: '/y', method: 'GET' }] };
    expect(shownLike(actual, template)).toEqual({ id: 'b', t: '2024-05-01T10:00:00.001500Z', meta: [{ path: '/y' }] });
  });

  it('shows a timestamp with as many fraction digits as it needs', () => {
    const template = templateOf([{ t: '2024-05-01T10:00:00Z' }]);
    const show = (value: number) => (shownLike({ t: value }, template) as { t: string }).t;
    expect(show(micros('2024-05-01T10:00:00Z'))).toBe('2024-05-01T10:00:00Z');
    expect(show(micros('2024-05-01T10:00:00.250Z'))).toBe('2024-05-01T10:00:00.250Z');
    expect(show(micros('2024-05-01T10:00:00Z') + 7)).toBe('2024-05-01T10:00:00.000007Z');
  });
});

describe('flowText', () => {
  it('writes rows as a test file writes them', () => {
    expect(flowText({ id: 'a-1', n: 2, ok: true, none: null, 'odd key': [1, { x: 'y' }] })).toBe('{id: "a-1", n: 2, ok: true, none: null, "odd key": [1, {x: "y"}]}');
  });
});
