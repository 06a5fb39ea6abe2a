/**
 * The rows of an encoded answer, `{"result":[row,row,...]}` as engine/serve/encode.ts writes it, one
 * row's JSON bytes at a time: NDJSON and CSV are written from the stored JSON bytes without
 * parsing a whole answer (which, for the largest answers, held the event loop for a tenth of a
 * second at once).
 *
 * A row ends where its braces and brackets outside strings close. UTF-8 never puts a byte below
 * 0x80 inside a multi-byte character, so the ASCII bytes looked at are always the JSON's own.
 */

const PREFIX = '{"result":['.length;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

/** Returns each row's JSON bytes in turn (views of `json`, not copies), then undefined. */
export function answerRows(json: Uint8Array): () => Uint8Array | undefined {
  let position = PREFIX;
  return () => {
    if (position >= json.length || json[position] === CLOSE_BRACKET) return undefined;
    const start = position;
    let depth = 0;
    let inString = false;
    for (let index = start; index < json.length; index++) {
      const byte = json[index];
      if (inString) {
        if (byte === BACKSLASH) index++;
        else if (byte === QUOTE) inString = false;
      } else if (byte === QUOTE) {
        inString = true;
      } else if (byte === OPEN_BRACE || byte === OPEN_BRACKET) {
        depth++;
      } else if ((byte === CLOSE_BRACE || byte === CLOSE_BRACKET) && --depth === 0) {
        position = json[index + 1] === COMMA ? index + 2 : index + 1;
        return json.subarray(start, index + 1);
      }
    }
    throw new Error('an encoded answer whose last row does not end');
  };
}
