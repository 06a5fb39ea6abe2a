/** BigQuery string literals as BigQuery reads them: the text a literal stands for. */

const SIMPLE_ESCAPES: Record<string, string> = {
  n: '\n', t: '\t', r: '\r', b: '\b', f: '\f', v: '\v', a: '\x07',
  '\\': '\\', "'": "'", '"': '"', '`': '`', '?': '?',
};

/**
 * BigQuery string literals use backslash escapes (`'it\'s'`, `"\n"`); the tree holds the decoded
 * text and each dialect writes it back in its own quoting.
 */
export function decodeBigQueryString(raw: string): string {
  let out = '';
  for (let i = 0; i < raw.length; i++) {
    const char = raw[i]!;
    if (char !== '\\' || i === raw.length - 1) {
      out += char;
      continue;
    }
    const next = raw[++i]!;
    if (next in SIMPLE_ESCAPES) out += SIMPLE_ESCAPES[next];
    else if (next === 'x') {
      out += String.fromCodePoint(parseInt(raw.slice(i + 1, i + 3), 16));
      i += 2;
    } else if (next === 'u' || next === 'U') {
      const digits = next === 'u' ? 4 : 8;
      out += String.fromCodePoint(parseInt(raw.slice(i + 1, i + 1 + digits), 16));
      i += digits;
    } else if (/[0-7]/.test(next)) {
      out += String.fromCodePoint(parseInt(raw.slice(i, i + 3), 8));
      i += 2;
    } else out += next;
  }
  return out;
}
