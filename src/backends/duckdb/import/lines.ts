/**
 * Splits a byte or text stream into lines, a chunk's worth at a time.
 *
 * Yielding batches rather than single lines keeps the per-line cost of a multi-gigabyte import
 * to a string split, not an async-iterator round trip. UTF-8 sequences cut by chunk boundaries
 * are reassembled by the StringDecoder.
 */
import { StringDecoder } from 'node:string_decoder';

export type TextInput = AsyncIterable<string | Buffer> | NodeJS.ReadableStream;

export async function* lineBatches(input: TextInput): AsyncGenerator<string[]> {
  const decoder = new StringDecoder('utf8');
  let pending = '';
  let first = true;
  for await (const chunk of input as AsyncIterable<string | Buffer>) {
    const decoded = typeof chunk === 'string' ? chunk : decoder.write(chunk);
    // A chunk in the middle of a long line is only appended, so a huge line costs linear time.
    if (!first && !decoded.includes('\n')) {
      pending += decoded;
      continue;
    }
    let text = pending + decoded;
    if (first && text.length > 0) {
      // Editors on Windows like to start UTF-8 files with a byte order mark.
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
      first = false;
    }
    const lines = text.split('\n');
    pending = lines.pop() ?? '';
    if (lines.length > 0) yield lines.map(withoutCarriageReturn);
  }
  pending += decoder.end();
  if (pending.length > 0) yield [withoutCarriageReturn(pending)];
}

function withoutCarriageReturn(line: string): string {
  return line.endsWith('\r') ? line.slice(0, -1) : line;
}
