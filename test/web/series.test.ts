/** Which results the console charts, and how it reads their values off the wire format. */
import { describe, expect, it } from 'vitest';
import { timeSeries } from '../../web/src/series.js';
import { columnKind, formatTimestamp } from '../../web/src/values.js';

const MICROS = 1_714_557_600_000_000; // 2024-05-01T10:00:00Z

describe('column kinds and time formatting', () => {
  it('reads TIMESTAMP microseconds, DATETIME and DATE strings, numbers and nested values', () => {
    expect(columnKind([{ t: MICROS }, { t: null }], 't')).toBe('timestamp');
    expect(columnKind([{ n: 12 }, { n: 1.5 }], 'n')).toBe('number');
    expect(columnKind([{ n: MICROS }, { n: 3 }], 'n')).toBe('number');
    expect(columnKind([{ d: '2024-05-01T10:00:00' }, { d: '2024-05-01T10:00:00.5' }], 'd')).toBe('datetime');
    expect(columnKind([{ d: '2024-05-01' }], 'd')).toBe('date');
    expect(columnKind([{ m: [{ a: 1 }] }], 'm')).toBe('nested');
    expect(columnKind([{ s: 'x' }, { s: null }], 's')).toBe('text');
  });

  it('writes a TIMESTAMP in UTC, to the microsecond only when there is a fraction', () => {
    expect(formatTimestamp(MICROS)).toBe('2024-05-01 10:00:00 UTC');
    expect(formatTimestamp(MICROS + 1)).toBe('2024-05-01 10:00:00.000001 UTC');
    expect(formatTimestamp(-1)).toBe('1969-12-31 23:59:59.999999 UTC');
  });
});

describe('timeSeries', () => {
  it('charts each numeric column against the time column, in time order', () => {
    const series = timeSeries([
      { timestamp: '2024-05-01T10:01:00', rest: 3, auth: 1, note: 'b' },
      { timestamp: '2024-05-01T10:00:00', rest: 2, auth: 0, note: 'a' },
    ]);
    expect(series).toEqual({
      timeColumn: 'timestamp',
      x: [1_714_557_600, 1_714_557_660],
      series: [
        { label: 'rest', values: [2, 3] },
        { label: 'auth', values: [0, 1] },
      ],
    });
  });

  it('breaks one numeric column down by the one text column beside it, a missing value left out', () => {
    const hour = MICROS;
    const series = timeSeries([
      { hour, level: 'info', n: 5 },
      { hour, level: 'error', n: 1 },
      { hour: hour + 3_600_000_000, level: 'info', n: 7 },
    ]);
    expect(series?.series).toEqual([
      { label: 'info', values: [5, 7] },
      { label: 'error', values: [1, null] },
    ]);
  });

  it('charts nothing without a time column or a numeric one, or with more series than a breakdown should have', () => {
    expect(timeSeries([{ id: 'a', timestamp: MICROS, event_message: 'x' }])).toBeUndefined();
    expect(timeSeries([{ path: '/a', n: 1 }])).toBeUndefined();
    expect(timeSeries(Array.from({ length: 13 }, (_, index) => ({ hour: MICROS, path: `/p${index}`, n: 1 })))).toBeUndefined();
  });
});
