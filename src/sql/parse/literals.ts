/** BigQuery string literals as BigQuery reads them: the text a literal stands for. */

const SIMPLE_ESCAPES: Readonly<Record<string, string>> = {
  n: '\n', t: '\t', r: '\r', b: '\b', f: '\f', v: '\v', a: '\x07',
  '\\': '\\', "'": "'", '"': '"', '`': '`', '?': '?',
};

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** A literal BigQuery would not read: an escape its lexical rules do not list, or a code point out of range. */
export class IllegalEscape extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'IllegalEscape';
  }
}

function hexDigits(raw: string, from: number, count: number, escape: string): number {
  const digits = raw.slice(from, from + count);
  if (!new RegExp(`^[0-9A-Fa-f]{${count}}$`).test(digits)) {
    throw new IllegalEscape(`illegal escape sequence ${escape}${digits}: it takes exactly ${count} hex digits`);
  }
  return parseInt(digits, 16);
}

function codePoint(value: number, escape: string): string {
  if ((value >= 0xd800 && value <= 0xdfff) || value > 0x10ffff) {
    throw new IllegalEscape(`illegal escape sequence ${escape}: U+${value.toString(16).toUpperCase()} is not a Unicode scalar value`);
  }
  return String.fromCodePoint(value);
}

/**
 * BigQuery string literals use backslash escapes (`'it\'s'`, `"\n"`); the tree holds the decoded
 * text and each dialect writes it back in its own quoting. Any escape GoogleSQL's lexical rules do
 * not list (`'\.'`, `'\x4'`, `'\U00110000'`, a trailing `\`) is refused, as BigQuery refuses it.
 */
export function decodeBigQueryString(raw: string): string {
  let out = '';
  for (let i = 0; i < raw.length; i++) {
    const char = raw[i]!;
    if (char !== '\\') {
      out += char;
      continue;
    }
    if (i === raw.length - 1) throw new IllegalEscape('a string literal may not end in a lone backslash');
    const next = raw[++i]!;
    if (next in SIMPLE_ESCAPES) {
      out += SIMPLE_ESCAPES[next];
    } else if (next === 'x' || next === 'X') {
      out += String.fromCodePoint(hexDigits(raw, i + 1, 2, `\\${next}`));
      i += 2;
    } else if (next === 'u' || next === 'U') {
      const digits = next === 'u' ? 4 : 8;
      out += codePoint(hexDigits(raw, i + 1, digits, `\\${next}`), `\\${next}${raw.slice(i + 1, i + 1 + digits)}`);
      i += digits;
    } else if (/[0-7]/.test(next)) {
      const digits = raw.slice(i, i + 3);
      if (!/^[0-7]{3}$/.test(digits)) throw new IllegalEscape(`illegal escape sequence \\${digits}: an octal escape takes exactly 3 digits`);
      out += String.fromCodePoint(parseInt(digits, 8));
      i += 2;
    } else {
      throw new IllegalEscape(`illegal escape sequence \\${next}`);
    }
  }
  // A lone surrogate is no character: BigQuery strings are UTF-8 text.
  if (LONE_SURROGATE.test(out)) throw new IllegalEscape('the literal is not valid Unicode text (a lone surrogate)');
  return out;
}
