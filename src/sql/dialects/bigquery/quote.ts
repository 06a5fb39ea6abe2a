/**
 * Quoting for BigQuery SQL text. Every identifier is quoted, so no name can turn into a
 * keyword and no keyword list has to be kept current; every string is written in one
 * escaped form, whatever quoting the author used.
 */

/** A backtick-quoted identifier (column, alias, CTE name). */
export function quoteIdentifier(name: string): string {
  return '`' + escapeBody(name, '`') + '`';
}

/** A single-quoted string literal that BigQuery reads back as exactly `value`. */
export function quoteString(value: string): string {
  return `'${escapeBody(value, "'")}'`;
}

const ESCAPES: Record<string, string> = { '\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** Backslash, the closing quote and control characters escaped; a literal may not span lines. */
function escapeBody(text: string, quote: string): string {
  let out = '';
  for (const char of text) {
    if (char === quote) out += '\\' + quote;
    else if (char in ESCAPES) out += ESCAPES[char];
    else if (char < ' ' || char === '\x7f') out += `\\x${char.charCodeAt(0).toString(16).padStart(2, '0')}`;
    else out += char;
  }
  return out;
}
