/**
 * Splits a byte stream into lines, a chunk's worth at a time, and checks each line's bytes before
 * any of it becomes a string: its length against a limit (a line of hundreds of MiB would otherwise
 * fail inside V8 with "Invalid string length", naming no line) and its UTF-8 (which a decoder would
 * silently turn into U+FFFD).
 *
 * Batches rather than single lines keep the per-line cost of a multi-gigabyte import to a string
 * split, not an async-iterator round trip. A newline byte never occurs inside a UTF-8 sequence, so
 * splitting the bytes at newlines cuts no character; the common case (every line valid) is checked
 * and decoded a whole chunk at once.
 */
import { isAscii, isUtf8 } from 'node:buffer';
import { DataError } from '../data-error.js';
import { formatBytes } from './bytes.js';

export type TextInput = AsyncIterable<string | Buffer> | NodeJS.ReadableStream;

export interface LineOptions {
  /** The longest line accepted, in bytes (without its line end). */
  maxLineBytes: number;
  /** `error`: a line that is not UTF-8 stops the import; `replace`: its bad bytes become U+FFFD, and it is counted. */
  invalidUtf8: 'error' | 'replace';
  /** Fed every byte read, so the caller can tell this input from another. */
  digest?: { update(bytes: Buffer): void };
}

/** What the reader saw, filled in as it reads. */
export interface InputTally {
  bytes: number;
  lines: number;
  /** Lines whose invalid UTF-8 was replaced (with `invalidUtf8: 'replace'`), and the first of them. */
  replacedLines: number;
  firstReplacedLine: number | undefined;
}

export interface LineBatch {
  lines: string[];
  /** The 1-based number of `lines[0]` in the input. */
  firstLine: number;
  /**
   * The lines' bytes as read, newline-separated, without the last line end: there when they are
   * exactly `lines` in UTF-8 (no bytes replaced), so a caller can write them out unchanged.
   */
  raw: Buffer | undefined;
  /** At least the byte length of the longest line. */
  longestLine: number;
}

const NEWLINE = 0x0a;
const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

export function newTally(): InputTally {
  return { bytes: 0, lines: 0, replacedLines: 0, firstReplacedLine: undefined };
}

export async function* lineBatches(input: TextInput, options: LineOptions, tally: InputTally = newTally()): AsyncGenerator<LineBatch> {
  // The bytes of the line not yet ended, in the chunks they came in.
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  for await (const chunk of input as AsyncIterable<string | Buffer>) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    options.digest?.update(bytes);
    tally.bytes += bytes.length;
    const end = bytes.lastIndexOf(NEWLINE);
    if (end === -1) {
      pending.push(bytes);
      pendingBytes += bytes.length;
      if (pendingBytes > options.maxLineBytes) throw tooLong(tally.lines + 1, options.maxLineBytes);
      continue;
    }
    let start = 0;
    if (pending.length > 0) {
      // The line the last chunks began ends here: only it is copied together, not the whole chunk.
      start = bytes.indexOf(NEWLINE) + 1;
      if (pendingBytes + start - 1 > options.maxLineBytes) throw tooLong(tally.lines + 1, options.maxLineBytes);
      yield decode(Buffer.concat([...pending, bytes.subarray(0, start - 1)]), options, tally);
    }
    pending = end + 1 < bytes.length ? [bytes.subarray(end + 1)] : [];
    pendingBytes = bytes.length - end - 1;
    if (start <= end) yield decode(bytes.subarray(start, end), options, tally);
  }
  if (pendingBytes > 0) yield decode(Buffer.concat(pending), options, tally);
}

/** The lines of `bytes` (whole lines, without the last line end). */
function decode(whole: Buffer, options: LineOptions, tally: InputTally): LineBatch {
  const firstLine = tally.lines + 1;
  // Editors on Windows like to start UTF-8 files with a byte order mark: it is not part of line 1.
  const bytes = firstLine === 1 && whole.subarray(0, 3).equals(BOM) ? whole.subarray(3) : whole;
  if (bytes.length > options.maxLineBytes) checkLengths(bytes, firstLine, options.maxLineBytes);
  let lines: string[];
  let raw: Buffer | undefined;
  if (isAscii(bytes)) {
    // The same string as UTF-8 gives, for half the time: most logs are ASCII.
    lines = splitLines(bytes, 'latin1');
    raw = bytes;
  } else if (isUtf8(bytes)) {
    lines = splitLines(bytes, 'utf8');
    raw = bytes;
  } else {
    lines = [];
    // The lines stay as read until one's bytes are replaced.
    raw = bytes;
    let start = 0;
    for (let line = firstLine; start <= bytes.length; line += 1) {
      const newline = bytes.indexOf(NEWLINE, start);
      const end = newline === -1 ? bytes.length : newline;
      const text = bytes.subarray(start, end);
      if (!isUtf8(text)) {
        if (options.invalidUtf8 === 'error') throw notUtf8(line, text);
        raw = undefined;
        tally.replacedLines += 1;
        tally.firstReplacedLine ??= line;
      }
      lines.push(text.toString('utf8'));
      start = end + 1;
    }
  }
  for (let index = 0; index < lines.length; index += 1) {
    const line = lines[index]!;
    if (line.endsWith('\r')) lines[index] = line.slice(0, -1);
  }
  tally.lines += lines.length;
  return { lines, firstLine, raw, longestLine: bytes.length };
}

/**
 * The lines of `bytes` decoded one by one, not the chunk as one string split: a string of a whole
 * chunk (a MiB) is too large for V8's young generation, and each one counted toward the next full
 * collection of the heap, which an import of 300 MiB then ran 47 times instead of 25 (1 to 2 s of CPU).
 */
function splitLines(bytes: Buffer, encoding: 'latin1' | 'utf8'): string[] {
  const lines: string[] = [];
  let start = 0;
  for (;;) {
    const newline = bytes.indexOf(NEWLINE, start);
    if (newline === -1) {
      lines.push(bytes.toString(encoding, start));
      return lines;
    }
    lines.push(bytes.toString(encoding, start, newline));
    start = newline + 1;
  }
}

function checkLengths(bytes: Buffer, firstLine: number, limit: number): void {
  let start = 0;
  for (let line = firstLine; start <= bytes.length; line += 1) {
    const newline = bytes.indexOf(NEWLINE, start);
    const end = newline === -1 ? bytes.length : newline;
    if (end - start > limit) throw tooLong(line, limit);
    start = end + 1;
  }
}

function tooLong(line: number, limit: number): DataError {
  return new DataError(
    'line_too_long',
    `line ${line}: longer than the limit of ${formatBytes(limit)} (${limit} bytes); an event that large is likely a mistake in the input. ` +
      'If it is not, raise the limit with --max-line-bytes',
    { line },
  );
}

function notUtf8(line: number, bytes: Buffer): DataError {
  const offset = firstInvalidByte(bytes);
  const shown = [...bytes.subarray(offset, offset + 4)].map((byte) => `0x${byte.toString(16).padStart(2, '0')}`).join(' ');
  return new DataError(
    'invalid_utf8',
    `line ${line}: not valid UTF-8 (at byte ${offset + 1} of the line: ${shown}); convert the file to UTF-8 (iconv -f <encoding> -t UTF-8), ` +
      'or pass --replace-invalid-utf8 to store U+FFFD in place of the bad bytes and count the lines that had them',
    { line },
  );
}

/** Where the first ill-formed UTF-8 sequence of `bytes` starts (the Unicode standard's table 3-7). */
function firstInvalidByte(bytes: Buffer): number {
  let index = 0;
  while (index < bytes.length) {
    const lead = bytes[index]!;
    if (lead < 0x80) {
      index += 1;
      continue;
    }
    // The sequence's length and the range its second byte must fall in.
    const [length, low, high] =
      lead >= 0xc2 && lead <= 0xdf ? [2, 0x80, 0xbf]
      : lead === 0xe0 ? [3, 0xa0, 0xbf]
      : lead === 0xed ? [3, 0x80, 0x9f]
      : lead >= 0xe1 && lead <= 0xef ? [3, 0x80, 0xbf]
      : lead === 0xf0 ? [4, 0x90, 0xbf]
      : lead >= 0xf1 && lead <= 0xf3 ? [4, 0x80, 0xbf]
      : lead === 0xf4 ? [4, 0x80, 0x8f]
      : [0, 0, 0];
    if (length === 0 || index + length > bytes.length) return index;
    const second = bytes[index + 1]!;
    if (second < low || second > high) return index;
    for (let next = index + 2; next < index + length; next += 1) if ((bytes[next]! & 0xc0) !== 0x80) return index;
    index += length;
  }
  return bytes.length;
}
