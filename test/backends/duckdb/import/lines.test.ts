import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { DataError } from '../../../../src/backends/duckdb/data-error.js';
import { lineBatches, newTally, type LineOptions } from '../../../../src/backends/duckdb/import/lines.js';

const OPTIONS: LineOptions = { maxLineBytes: 1 << 20, invalidUtf8: 'error' };

async function read(parts: (string | Buffer)[], options: LineOptions = OPTIONS) {
  const tally = newTally();
  const lines: [number, string][] = [];
  const raw: (string | undefined)[] = [];
  for await (const batch of lineBatches(Readable.from(parts), options, tally)) {
    batch.lines.forEach((line, index) => lines.push([batch.firstLine + index, line]));
    raw.push(batch.raw?.toString('utf8'));
  }
  return { lines, raw, tally };
}

async function failure(parts: (string | Buffer)[], options: LineOptions): Promise<DataError> {
  const error = await read(parts, options).catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(DataError);
  return error as DataError;
}

describe('lineBatches', () => {
  it('numbers lines across chunks cut anywhere, even inside a character, and keeps their bytes for writing back', async () => {
    const text = '\uFEFF{"a":"ü"}\r\n\n{"b":"→"}\n{"c":1}';
    const bytes = Buffer.from(text);
    const parts = [bytes.subarray(0, 2), bytes.subarray(2, 10), bytes.subarray(10, 11), bytes.subarray(11, 21), bytes.subarray(21)];
    const { lines, raw, tally } = await read(parts);
    expect(lines).toEqual([
      [1, '{"a":"ü"}'],
      [2, ''],
      [3, '{"b":"→"}'],
      [4, '{"c":1}'],
    ]);
    // The byte order mark is not part of a line; the bytes of the lines are, CR included.
    expect(raw.join('\n')).toBe('{"a":"ü"}\r\n\n{"b":"→"}\n{"c":1}');
    expect(tally).toMatchObject({ bytes: bytes.length, lines: 4, replacedLines: 0 });
  });

  it('refuses a line longer than the limit, naming it and the limit, within a chunk and across chunks', async () => {
    const options = { ...OPTIONS, maxLineBytes: 10 };
    const within = await failure(['{"a":1}\n{"abcdefgh":1}\n'], options);
    expect(within.code).toBe('line_too_long');
    expect(within.line).toBe(2);
    expect(within.message).toMatch(/^line 2: longer than the limit of 10 bytes \(10 bytes\);.*--max-line-bytes/);
    // A line that never ends is refused as soon as it passes the limit, not once it is all in memory.
    const endless = (async function* () {
      yield '{"a":1}\n{"b":';
      for (;;) yield 'xxxx';
    })();
    const error = await (async () => {
      for await (const batch of lineBatches(endless, options)) void batch;
    })().catch((caught: unknown) => caught);
    expect((error as DataError).line).toBe(2);
    // Exactly at the limit is fine.
    expect((await read(['{"ab":123}\n0123456789'], options)).lines).toEqual([
      [1, '{"ab":123}'],
      [2, '0123456789'],
    ]);
  });

  it('refuses invalid UTF-8, naming the line and the byte', async () => {
    const bad = Buffer.concat([Buffer.from('{"a":"ok"}\n{"a":"caf'), Buffer.from([0xe9]), Buffer.from('"}\n')]);
    const error = await failure([bad], OPTIONS);
    expect(error.code).toBe('invalid_utf8');
    expect(error.message).toMatch(/^line 2: not valid UTF-8 \(at byte 10 of the line: 0xe9 0x22 0x7d\); .*--replace-invalid-utf8/);
    // A sequence cut short by the end of the line, and an overlong encoding of "/".
    expect((await failure([Buffer.from([0x61, 0xe2, 0x82])], OPTIONS)).message).toMatch(/^line 1: not valid UTF-8 \(at byte 2 of the line: 0xe2 0x82\)/);
    expect((await failure([Buffer.from([0x7b, 0xc0, 0xaf, 0x7d])], OPTIONS)).message).toMatch(/at byte 2 of the line: 0xc0 0xaf 0x7d/);
  });

  it('replaces invalid UTF-8 with U+FFFD when asked, and counts the lines', async () => {
    const bad = Buffer.concat([Buffer.from('{"a":"caf'), Buffer.from([0xe9]), Buffer.from('"}\n{"a":"ok"}\n{"a":"'), Buffer.from([0xff, 0xfe]), Buffer.from('"}')]);
    const { lines, raw, tally } = await read([bad], { ...OPTIONS, invalidUtf8: 'replace' });
    expect(lines).toEqual([
      [1, '{"a":"caf\uFFFD"}'],
      [2, '{"a":"ok"}'],
      [3, '{"a":"\uFFFD\uFFFD"}'],
    ]);
    // Replaced lines are not the bytes read: there are none to write back.
    expect(raw.filter((bytes) => bytes !== undefined)).toEqual([]);
    expect(tally).toMatchObject({ replacedLines: 2, firstReplacedLine: 1 });
  });
});
