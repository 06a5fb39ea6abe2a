import { describe, expect, it } from 'vitest';
import { formatSql, parseFormats, UnsupportedFormat } from '../../../../src/sql/dialects/duckdb/time-formats.js';

const refuse = (what: string): never => {
  throw new Error(what);
};

describe('format strings for writing', () => {
  it('writes elements DuckDB shares in one strftime, with literal text and %% kept', () => {
    expect(formatSql('%Y-%m-%d %H:%M:%S 100%%', 'datetime', { local: 'x', refuse })).toBe("strftime(x, '%Y-%m-%d %H:%M:%S 100%%')");
  });

  it('writes text without elements as a string, NULL for a NULL value', () => {
    expect(formatSql('100%% done', 'date', { local: 'x', refuse })).toBe("(CASE WHEN x IS NOT NULL THEN '100% done' END)");
    expect(formatSql('', 'date', { local: 'x', refuse })).toBe("(CASE WHEN x IS NOT NULL THEN '' END)");
  });

  it('writes a literal UTC zone without computing it', () => {
    expect(formatSql('%z %Ez %Z', 'timestamp', { local: 'l', instant: 'i', zone: 'UTC', refuse })).toBe("(CASE WHEN l IS NOT NULL THEN '+0000 +00:00 UTC' END)");
  });

  it.each([
    ['%J', 'timestamp', 'format element %J'],
    ['%H', 'date', '%H in a DATE format'],
    ['%z', 'datetime', '%z in a DATETIME format'],
    ['%Y%', 'date', 'a lone %'],
  ] as const)('refuses %s for a %s', (format, kind, message) => {
    expect(() => formatSql(format, kind, { local: 'x', refuse })).toThrow(new UnsupportedFormat(message).constructor);
    expect(() => formatSql(format, kind, { local: 'x', refuse })).toThrow(message);
  });

  it('refuses %Z in a zone whose abbreviation DuckDB does not know', () => {
    expect(() => formatSql('%Z', 'timestamp', { local: 'l', instant: 'i', zone: 'Asia/Kolkata', refuse })).toThrow(/%Z with a time zone other than UTC/);
  });
});

describe('format strings for parsing', () => {
  it('tries each way an optional part can be written: %E*S with and without a fraction, %Ez as an offset or Z', () => {
    expect(parseFormats('%Y-%m-%dT%H:%M:%E*S%Ez', 'timestamp')).toEqual({
      formats: ['%Y-%m-%dT%H:%M:%S%z', '%Y-%m-%dT%H:%M:%SZ', '%Y-%m-%dT%H:%M:%S.%f%z', '%Y-%m-%dT%H:%M:%S.%fZ'],
      zoned: true,
      prefix: '',
    });
  });

  it('reads composite elements and collapses runs of white space', () => {
    expect(parseFormats(' %F   %T ', 'datetime')).toEqual({ formats: ['%Y-%m-%d %T'], zoned: false, prefix: '' });
  });

  it('reads 1970, BigQuery\'s default, before a format without a year (strptime would default to 1900); a TIME needs none', () => {
    expect(parseFormats('%H:%M', 'timestamp')).toEqual({ formats: ['%Y|%H:%M'], zoned: false, prefix: '1970|' });
    expect(parseFormats('%H:%M', 'time')).toEqual({ formats: ['%H:%M'], zoned: false, prefix: '' });
  });

  it.each([
    ['%Y %s', 'timestamp', 'parse element %s'],
    ['%Y %H', 'date', '%H in a DATE format'],
    ['%Y %Ez', 'datetime', '%Ez in a DATETIME format'],
  ] as const)('refuses %s for a %s', (format, kind, message) => {
    expect(() => parseFormats(format, kind)).toThrow(message);
  });
});
