import { describe, expect, it } from 'vitest';
import { normaliseTimestamp } from '../../../src/engine/serve/timestamp.js';

describe('normaliseTimestamp: accepted forms, normalised to canonical UTC', () => {
  it.each([
    // zone designators
    ['Z', '2024-05-01T12:00:00Z', '2024-05-01T12:00:00.000000Z'],
    ['lower-case z and t', '2024-05-01t12:00:00z', '2024-05-01T12:00:00.000000Z'],
    ['+00:00', '2024-05-01T12:00:00+00:00', '2024-05-01T12:00:00.000000Z'],
    ['-00:00', '2024-05-01T12:00:00-00:00', '2024-05-01T12:00:00.000000Z'],
    ['+0200 (no colon)', '2024-05-01T12:00:00+0200', '2024-05-01T10:00:00.000000Z'],
    ['+02:00', '2024-05-01T14:00:00+02:00', '2024-05-01T12:00:00.000000Z'],
    ['-05:30', '2024-05-01T12:00:00-05:30', '2024-05-01T17:30:00.000000Z'],
    ['+05:45 (Nepal)', '2024-05-01T12:00:00+05:45', '2024-05-01T06:15:00.000000Z'],
    ['+02 (hours only)', '2024-05-01T12:00:00+02', '2024-05-01T10:00:00.000000Z'],
    ['-11', '2024-05-01T12:00:00-11', '2024-05-01T23:00:00.000000Z'],
    ['+23:59 (largest offset)', '2024-05-01T12:00:00+23:59', '2024-04-30T12:01:00.000000Z'],
    // separators
    ['space separator', '2024-05-01 12:00:00Z', '2024-05-01T12:00:00.000000Z'],
    ['space separator with offset', '2024-05-01 12:00:00+01:00', '2024-05-01T11:00:00.000000Z'],
    ['no seconds', '2024-05-01T12:34Z', '2024-05-01T12:34:00.000000Z'],
    // fractions: 1..6 digits, padded to microseconds
    ['1 fraction digit', '2024-05-01T12:00:00.1Z', '2024-05-01T12:00:00.100000Z'],
    ['2 fraction digits', '2024-05-01T12:00:00.12Z', '2024-05-01T12:00:00.120000Z'],
    ['3 fraction digits', '2024-05-01T12:00:00.123Z', '2024-05-01T12:00:00.123000Z'],
    ['4 fraction digits', '2024-05-01T12:00:00.1234Z', '2024-05-01T12:00:00.123400Z'],
    ['5 fraction digits', '2024-05-01T12:00:00.12345Z', '2024-05-01T12:00:00.123450Z'],
    ['6 fraction digits', '2024-05-01T12:00:00.123456Z', '2024-05-01T12:00:00.123456Z'],
    ['comma as decimal sign', '2024-05-01T12:00:00,5Z', '2024-05-01T12:00:00.500000Z'],
    ['fraction with an offset', '2024-05-01T12:00:00.25+02:00', '2024-05-01T10:00:00.250000Z'],
    // calendar
    ['leap day of a leap year', '2024-02-29T00:00:00Z', '2024-02-29T00:00:00.000000Z'],
    ['leap day of a 400-year', '2000-02-29T00:00:00Z', '2000-02-29T00:00:00.000000Z'],
    ['leap day of year 4', '0004-02-29T00:00:00Z', '0004-02-29T00:00:00.000000Z'],
    ['31st of a long month', '2024-01-31T00:00:00Z', '2024-01-31T00:00:00.000000Z'],
    ['end of day', '2024-05-01T23:59:59.999999Z', '2024-05-01T23:59:59.999999Z'],
    ['smallest year', '0001-01-01T00:00:00Z', '0001-01-01T00:00:00.000000Z'],
    ['largest instant', '9999-12-31T23:59:59.999999Z', '9999-12-31T23:59:59.999999Z'],
    // offsets that move the instant across a boundary
    ['back across a day', '2024-05-01T00:30:00+01:00', '2024-04-30T23:30:00.000000Z'],
    ['forward across a day', '2024-05-01T23:00:00-05:30', '2024-05-02T04:30:00.000000Z'],
    ['back across a month (into a leap day)', '2024-03-01T00:30:00+01:00', '2024-02-29T23:30:00.000000Z'],
    ['forward across a year', '2024-12-31T23:30:00-01:00', '2025-01-01T00:30:00.000000Z'],
    ['back across a year', '2025-01-01T00:30:00+01:00', '2024-12-31T23:30:00.000000Z'],
  ])('%s: %s', (_label, input, expected) => {
    expect(normaliseTimestamp(input)).toBe(expected);
  });

  it('equal instants normalise to the same text (equal cache keys)', () => {
    const forms = ['2024-05-01T12:00:00Z', '2024-05-01T14:00:00+02:00', '2024-05-01 07:00:00-0500', '2024-05-01t12:00z', '2024-05-01T12:00:00.000000Z', '2024-05-01T12:00:00.0Z'];
    expect(new Set(forms.map(normaliseTimestamp))).toEqual(new Set(['2024-05-01T12:00:00.000000Z']));
  });

  it('the result reads back as the same instant in JavaScript', () => {
    const result = normaliseTimestamp('2024-05-01T12:00:00.123456-05:30')!;
    expect(Date.parse(result)).toBe(Date.parse('2024-05-01T12:00:00.123-05:30'));
  });
});

describe('normaliseTimestamp: refused', () => {
  it.each([
    ['leap day of a common year', '2023-02-29T00:00:00Z'],
    ['leap day of a century year', '1900-02-29T00:00:00Z'],
    ['leap day of year 100', '0100-02-29T00:00:00Z'],
    ['31st of a short month', '2024-04-31T00:00:00Z'],
    ['day 0', '2024-05-00T00:00:00Z'],
    ['day 32', '2024-05-32T00:00:00Z'],
    ['month 13', '2024-13-01T00:00:00Z'],
    ['month 0', '2024-00-01T00:00:00Z'],
    ['hour 24', '2024-05-01T24:00:00Z'],
    ['minute 60', '2024-05-01T12:60:00Z'],
    ['second 60', '2024-05-01T12:00:60Z'],
    ['year 0', '0000-01-01T00:00:00Z'],
    ['missing zone', '2024-05-01T12:00:00'],
    ['missing zone with fraction', '2024-05-01T12:00:00.123'],
    ['date only', '2024-05-01'],
    ['date only with Z', '2024-05-01Z'],
    ['time only', '12:00:00Z'],
    ['garbage', 'yesterday'],
    ['empty', ''],
    ['a Unix time', '1714564800'],
    ['a zone name', '2024-05-01T12:00:00 UTC'],
    ['zone abbreviation', '2024-05-01T12:00:00UTC'],
    ['single-digit offset', '2024-05-01T12:00:00+2'],
    ['offset with seconds', '2024-05-01T12:00:00+02:00:00'],
    ['offset hour 24', '2024-05-01T12:00:00+24:00'],
    ['offset minute 60', '2024-05-01T12:00:00+02:60'],
    ['one-digit offset minutes', '2024-05-01T12:00:00+02:0'],
    ['decimal sign without digits', '2024-05-01T12:00:00.Z'],
    // Finer than microseconds, which BigQuery's TIMESTAMP refuses too.
    ['7 fraction digits', '2024-05-01T12:00:00.1234567Z'],
    ['9 fraction digits', '2024-05-01T12:00:00.123456789Z'],
    ['10 fraction digits', '2024-05-01T12:00:00.1234567890Z'],
    ['7 fraction digits, all zero', '2024-05-01T12:00:00.0000000Z'],
    ['fraction without seconds', '2024-05-01T12:00.5Z'],
    ['unpadded month and day', '2024-5-1T12:00:00Z'],
    ['unpadded hour', '2024-05-01T9:00:00Z'],
    ['leading space', ' 2024-05-01T12:00:00Z'],
    ['trailing space', '2024-05-01T12:00:00Z '],
    ['trailing newline', '2024-05-01T12:00:00Z\n'],
    ['expanded year', '+2024-05-01T12:00:00Z'],
    ['five-digit year', '12024-05-01T12:00:00Z'],
    ['slashes', '2024/05/01T12:00:00Z'],
    ['basic format', '20240501T120000Z'],
    ['non-ASCII digits', '２０２４-05-01T12:00:00Z'],
    ['two separators', '2024-05-01TT12:00:00Z'],
    ['offset pushing past year 9999', '9999-12-31T23:59:59-01:00'],
    ['offset pushing before year 1', '0001-01-01T00:00:00+01:00'],
  ])('%s: %j', (_label, input) => {
    expect(normaliseTimestamp(input)).toBeUndefined();
  });
});
