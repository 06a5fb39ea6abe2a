/** String, bytes and numeric literals as BigQuery writes them (docs/sql-parser.md, "Literals"). */
import { describe, expect, it } from 'vitest';
import { only, refused, selected } from './helpers.js';

describe('string literals keep their text as written', () => {
  it.each([
    ["'plain'", 'single_quote_string', 'plain'],
    ['"double"', 'string', 'double'],
    ["'''it's'''", 'single_quote_string', "it's"],
    ['"""say "hi" """', 'string', 'say "hi" '],
    ["'''two\nlines'''", 'single_quote_string', 'two\nlines'],
    ["r'\\bERROR\\b'", 'regex_string', '\\bERROR\\b'],
    ['R"\\d+"', 'regex_string', '\\d+'],
    ["r'''a'b\\n'''", 'regex_string', "a'b\\n"],
  ])('%s', (literal, type, value) => {
    expect(only(`select ${literal}`)).toEqual({ type, value });
  });

  it('keeps every escape undecoded, for the generator to decode or refuse', () => {
    expect(only("select 'a\\nb\\t\\u0041\\x41\\101\\'\\\\\\q'")).toEqual({ type: 'single_quote_string', value: "a\\nb\\t\\u0041\\x41\\101\\'\\\\\\q" });
    expect(only("select '\\u005Cn'").value).toBe('\\u005Cn');
  });

  it('keeps the text of date and time literals as written', () => {
    expect(selected("select date '2024-05-01', timestamp \"2024-05-01 10:00:00+00\"")).toEqual([
      { type: 'date', value: '2024-05-01' },
      { type: 'timestamp', value: '2024-05-01 10:00:00+00' },
    ]);
  });

  it.each([
    ["select 'it''s'", 'two literals with nothing between them'],
    ['select "a""b"', 'the same, double-quoted'],
    ["select 'a\nb'", 'a newline in a one-line literal'],
    ["select 'a' 'b'", 'a string where an alias would be'],
    ["select '''open", 'an unterminated triple-quoted literal'],
  ])('refuses %j (%s)', (sql) => {
    refused(sql);
  });

  it('reads a prefix letter apart from its quote as a name', () => {
    refused("select r 'x'");
    expect(only('select r').type).toBe('column_ref');
  });
});

describe('bytes literals', () => {
  it.each([
    ["b'abc'", 'bytes_string', 'abc'],
    ['B"abc"', 'bytes_string', 'abc'],
    ["b'''a'b'''", 'bytes_string', "a'b"],
    ["b'\\x00\\xff'", 'bytes_string', '\\x00\\xff'],
    ["rb'\\d'", 'raw_bytes_string', '\\d'],
    ['BR"\\d"', 'raw_bytes_string', '\\d'],
    ["Rb'''x'''", 'raw_bytes_string', 'x'],
  ])('%s', (literal, type, value) => {
    expect(only(`select ${literal}`)).toEqual({ type, value });
  });

  it('a column named b compared with a string stays a column', () => {
    expect(only("select b = 'x'")).toMatchObject({ type: 'binary_expr', left: { type: 'column_ref' }, right: { type: 'single_quote_string', value: 'x' } });
  });
});

describe('numeric literals', () => {
  it('reads hexadecimal integers as the number they write', () => {
    expect(selected('select 0x1F, 0X1f, -0x10, 0x7FFFFFFFFFFFFFFF')).toEqual([
      { type: 'number', value: 31 },
      { type: 'number', value: 31 },
      { type: 'number', value: -16 },
      { type: 'bigint', value: '9223372036854775807' },
    ]);
  });

  it('refuses a hexadecimal literal run into a name', () => {
    refused('select 0x1G');
  });

  it('keeps integers past 2^53 and exponent forms as exact text', () => {
    expect(selected('select 9007199254740993, -9223372036854775808, 1e3, 1.5e-3, 2.50, 42')).toEqual([
      { type: 'bigint', value: '9007199254740993' },
      { type: 'bigint', value: '-9223372036854775808' },
      { type: 'bigint', value: '1e3' },
      { type: 'bigint', value: '1.5e-3' },
      { type: 'number', value: '2.50' },
      { type: 'number', value: 42 },
    ]);
  });
});
