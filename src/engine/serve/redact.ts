/**
 * PII redaction of result rows: IPv4 addresses, IPv6 addresses and e-mail addresses in every
 * string value, at any depth, become `REDACTED`. Keys and non-string values are left alone.
 * docs/redaction.md is the contract, including every ambiguous case.
 *
 * It runs on every row of a redacted response, so it is built for speed. Every address needs one
 * of four marks: a dot (IPv4), a colon (IPv6), `@` or `%40` (e-mail). Native `indexOf` finds
 * them, faster on real log rows than a char-by-char loop in JS or one regex with lookaheads (which
 * digit-heavy ids slow down), so a string without any costs four native scans. Only around a mark
 * does a hand-written check look, left to right in a single pass that resumes past each candidate. Nothing is allocated for a value with nothing to redact: the same string,
 * array or object comes back, and the backend's rows are never mutated (a cache may hold them).
 */
import type { WireValue } from '../../core/types.js';
import { REDACTED } from '../../sql/sandbox/redaction-rules.js';

/** The one replacement text, the same where SQL redacts a read (sql/sandbox/redaction-rules.ts). */
export { REDACTED };

const COLON = 0x3a;
const DOT = 0x2e;
const AT = 0x40;
const PERCENT = 0x25;
const SLASH = 0x2f;
const HYPHEN = 0x2d;

// Character classes of ASCII, as bit flags in one table.
const DIGIT = 1;
const HEX = 2;
/** `[A-Za-z0-9_]`: a character that glues an address to a word. */
const WORD = 4;
const LETTER = 8;
/** Characters of an IPv6 run: hex digits, `:` and `.` (for an IPv4 tail). */
const V6 = 16;
/** E-mail local part: `[A-Za-z0-9._%+-]`. Quotes, `=`, `/` and `:` end it, as in `?email=a@b.c`. */
const LOCAL = 32;
/** Domain label: `[A-Za-z0-9-]`. */
const LABEL = 64;
/** IPv6 zone (RFC 6874 unreserved): `[A-Za-z0-9._~-]`. */
const ZONE = 128;

const CLASS = new Uint8Array(128);
function classify(chars: string, flags: number): void {
  for (let i = 0; i < chars.length; i += 1) CLASS[chars.charCodeAt(i)]! |= flags;
}
const DIGITS = '0123456789';
const LOWER = 'abcdefghijklmnopqrstuvwxyz';
const LETTERS = LOWER + LOWER.toUpperCase();
classify(DIGITS, DIGIT | HEX | WORD | V6 | LOCAL | LABEL | ZONE);
classify(LETTERS, WORD | LETTER | LOCAL | LABEL | ZONE);
classify('abcdefABCDEF', HEX | V6);
classify('_', WORD | LOCAL | ZONE);
classify('-', LOCAL | LABEL | ZONE);
classify('.', V6 | LOCAL | ZONE);
classify(':', V6);
classify('%+', LOCAL);
classify('~', ZONE);

/** Letters and digits of other scripts count in e-mail addresses (`josé@bücher.de`), nowhere else. */
const UNICODE_WORD = /[\p{L}\p{M}\p{N}]/u;

/**
 * The char code at `index`, or -1 outside the string: the matchers look past both ends all the
 * time, and -1 fails every comparison below as intended, with no NaN to reason about.
 */
function codeAt(text: string, index: number): number {
  return index >= 0 && index < text.length ? text.charCodeAt(index) : -1;
}

function is(text: string, index: number, flag: number): boolean {
  const code = codeAt(text, index);
  return code >= 0 && code < 128 && (CLASS[code]! & flag) !== 0;
}

function isEmailChar(text: string, index: number, flag: number): boolean {
  const code = codeAt(text, index);
  if (code < 128) return code >= 0 && (CLASS[code]! & flag) !== 0;
  return UNICODE_WORD.test(text[index]!);
}

// The matchers below return the end of a match or -1, and leave its start in `matchStart`;
// `runEnd` is the end of the candidate run they examined, where the scan can resume on a miss.
let matchStart = 0;
let runEnd = 0;

/** Redacts every address in `text`; the same string when there is none. */
export function redactString(text: string): string {
  // The next of each mark at or after `position`, or -1 when there is no more.
  let dot = text.indexOf('.');
  let colon = text.indexOf(':');
  let at = text.indexOf('@');
  let percent = text.indexOf('%40');
  if (dot < 0 && colon < 0 && at < 0 && percent < 0) return text;
  const length = text.length;
  let out = '';
  let copied = 0;
  let position = 0;
  // Colons in one run of hex/colon/dot characters share one verdict: a rejected run is not
  // examined again at each of its colons (that would be quadratic on "1:2:3:...").
  let colonsRejectedUntil = 0;
  for (;;) {
    if (dot >= 0 && dot < position) dot = text.indexOf('.', position);
    if (colon >= 0 && colon < position) colon = text.indexOf(':', position);
    if (at >= 0 && at < position) at = text.indexOf('@', position);
    if (percent >= 0 && percent < position) percent = text.indexOf('%40', position);
    let mark = length;
    if (dot >= 0) mark = dot;
    if (colon >= 0 && colon < mark) mark = colon;
    if (at >= 0 && at < mark) mark = at;
    if (percent >= 0 && percent < mark) mark = percent;
    if (mark === length) break;

    const code = text.charCodeAt(mark);
    let resume = mark + 1;
    let end = -1;
    if (code === DOT) {
      // The first dot of an IPv4 address has another within four characters (`5.0 (Mac` has not).
      dot = text.indexOf('.', mark + 1);
      if (dot >= 0 && dot - mark <= 4 && is(text, mark - 1, DIGIT) && is(text, mark + 1, DIGIT)) {
        end = ipv4End(text, mark - 1, copied);
        if (end < 0) resume = runEnd;
      }
    } else if (code === COLON) {
      if (mark >= colonsRejectedUntil && (is(text, mark + 1, HEX) || codeAt(text, mark + 1) === COLON)) {
        end = ipv6End(text, mark, copied);
        if (end < 0) colonsRejectedUntil = runEnd;
      }
    } else {
      end = emailEnd(text, mark, code === AT ? 1 : 3, copied);
    }
    if (end >= 0) {
      out += text.slice(copied, matchStart) + REDACTED;
      copied = resume = end;
    }
    position = resume;
  }
  return copied === 0 ? text : out + text.slice(copied);
}

/** Exactly four dotted decimal octets, each 0-255 in one to three digits, spanning [start, end). */
function isIPv4(text: string, start: number, end: number): boolean {
  let i = start;
  for (let octet = 0; octet < 4; octet += 1) {
    if (octet > 0) {
      if (codeAt(text, i) !== DOT || i >= end) return false;
      i += 1;
    }
    let value = 0;
    const first = i;
    while (i < end && i - first < 4 && is(text, i, DIGIT)) {
      value = value * 10 + codeAt(text, i) - 48;
      i += 1;
    }
    if (i === first || i - first > 3 || value > 255) return false;
  }
  return i === end;
}

/**
 * Whole-span IPv6 syntax (RFC 4291 text forms): eight groups of one to four hex digits, or
 * fewer with one `::`, the last two groups optionally an IPv4 address. Bare `::` is refused.
 */
function isIPv6(text: string, start: number, end: number): boolean {
  let i = start;
  let groups = 0;
  let compressed = false;
  if (codeAt(text, i) === COLON) {
    if (codeAt(text, i + 1) !== COLON) return false;
    compressed = true;
    i += 2;
    if (i >= end) return false;
  }
  for (;;) {
    const groupStart = i;
    while (i < end && is(text, i, HEX)) i += 1;
    if (i < end && codeAt(text, i) === DOT) {
      groups += 2;
      return isIPv4(text, groupStart, end) && (compressed ? groups <= 7 : groups === 8);
    }
    if (i === groupStart || i - groupStart > 4) return false;
    groups += 1;
    if (i >= end) break;
    if (codeAt(text, i) !== COLON) return false;
    i += 1;
    if (i < end && codeAt(text, i) === COLON) {
      if (compressed) return false;
      compressed = true;
      i += 1;
      if (i >= end) break;
    } else if (i >= end) {
      return false;
    }
  }
  return compressed ? groups <= 7 : groups === 8;
}

/**
 * An IPv6 address around the colon at `at`: the run of hex digits, colons and dots that holds it,
 * trimmed of what belongs to the surrounding text, then an optional `%zone`. A run glued to a word
 * gives that word its letters back: `source:2001:db8::1` keeps `source:`, and `std::string` or
 * `Foo::Bar` (a scope operator) is no address.
 */
function ipv6End(text: string, at: number, floor: number): number {
  let start = at;
  while (start > floor && is(text, start - 1, V6)) start -= 1;
  let end = at + 1;
  while (is(text, end, V6)) end += 1;
  runEnd = end;

  let gluedBefore = start > 0 && is(text, start - 1, WORD);
  if (codeAt(text, start) === DOT) {
    while (codeAt(text, start) === DOT) start += 1;
    gluedBefore = false;
  }
  if (gluedBefore) {
    start = text.indexOf(':', start);
    if (codeAt(text, start + 1) === COLON && codeAt(text, start + 2) !== COLON) return -1;
    start += 1;
  } else if (codeAt(text, start) === COLON && (codeAt(text, start + 1) !== COLON || codeAt(text, start + 2) === COLON)) {
    start += 1; // `ip:fe80::1`, `ip:::1`: the first colon is the text's
  }

  let gluedAfter = is(text, end, WORD);
  let trimmed = false;
  while (end > start && codeAt(text, end - 1) === DOT) {
    end -= 1;
    gluedAfter = false;
    trimmed = true;
  }
  if (gluedAfter) {
    end = text.lastIndexOf(':', end - 1);
    if (end < start || (codeAt(text, end - 1) === COLON && codeAt(text, end - 2) !== COLON)) return -1;
    trimmed = true;
  } else if (codeAt(text, end - 1) === COLON && (codeAt(text, end - 2) !== COLON || codeAt(text, end - 3) === COLON)) {
    end -= 1; // `2001:db8::1: refused`
    trimmed = true;
  }

  if (end - start < 3 || !isIPv6(text, start, end)) return -1;
  if (!trimmed && codeAt(text, end) === PERCENT && is(text, end + 1, ZONE)) {
    end += 2;
    while (is(text, end, ZONE)) end += 1;
    while (codeAt(text, end - 1) === DOT) end -= 1;
  }
  matchStart = start;
  return end;
}

/**
 * An IPv4 address around the digit at `at`: a run of digits and dots with four valid octets,
 * not glued to a word (`v1.2.3.4`) and not a product version (`Chrome/126.0.0.0`). Dots at its
 * ends are the text's (`from 1.2.3.4.`, `1.2.3.4.nip.io`).
 */
function ipv4End(text: string, at: number, floor: number): number {
  let start = at;
  while (start > floor && (is(text, start - 1, DIGIT) || codeAt(text, start - 1) === DOT)) start -= 1;
  let end = at + 2;
  while (is(text, end, DIGIT) || codeAt(text, end) === DOT) end += 1;
  runEnd = end;
  if (end - start < 7) return -1; // shorter than 1.2.3.4: `5.0`, `537.36`
  let first = start;
  while (codeAt(text, first) === DOT) first += 1;
  let last = end;
  while (codeAt(text, last - 1) === DOT) last -= 1;
  if (first === start && is(text, start - 1, WORD)) return -1;
  if (last === end && is(text, end, WORD)) return -1;
  if (isProductVersion(text, first) || !isIPv4(text, first, last)) return -1;
  // `10.0.0.1@example.com` is an e-mail address whose local part looks like an IPv4 address.
  if (codeAt(text, last) === AT) {
    const email = emailEnd(text, last, 1, floor);
    if (email >= 0) return email;
  }
  matchStart = first;
  return last;
}

/**
 * `Name/1.2.3.4` where Name is a product token standing on its own (start, space, `(`, `"`...),
 * as in a User-Agent. After `/`, `.`, `:` or `@` the name is a path segment or a host
 * (`/geo/8.8.8.8`, `ipinfo.io/8.8.8.8`), and the address is redacted.
 */
function isProductVersion(text: string, start: number): boolean {
  if (codeAt(text, start - 1) !== SLASH) return false;
  let name = start - 1;
  while (is(text, name - 1, WORD) || codeAt(text, name - 1) === HYPHEN) name -= 1;
  if (name === start - 1 || !is(text, name, LETTER)) return false;
  const before = codeAt(text, name - 1);
  return before !== SLASH && before !== DOT && before !== COLON && before !== AT;
}

/**
 * An e-mail address around the separator at `at` (`@`, or `%40` in URL-encoded text): a local
 * part of `[A-Za-z0-9._%+-]` (and letters of any script) not starting with a dot, and a domain
 * of two or more labels whose last one starts with a letter and has two characters or more.
 * `user@10.0.0.1` is not an address, but its IPv4 part is redacted on its own.
 */
function emailEnd(text: string, at: number, separatorLength: number, floor: number): number {
  let start = at;
  while (start > floor && isEmailChar(text, start - 1, LOCAL)) start -= 1;
  while (start < at && codeAt(text, start) === DOT) start += 1;
  if (start === at) return -1;

  let i = at + separatorLength;
  let labels = 0;
  let lastLabel = i;
  let end = -1;
  for (;;) {
    const label = i;
    while (isEmailChar(text, i, LABEL)) i += 1;
    if (i === label || codeAt(text, label) === HYPHEN || codeAt(text, i - 1) === HYPHEN) break;
    labels += 1;
    lastLabel = label;
    end = i;
    if (codeAt(text, i) !== DOT || !isEmailChar(text, i + 1, LABEL)) break;
    i += 1;
  }
  if (labels < 2 || end - lastLabel < 2) return -1;
  if (is(text, lastLabel, DIGIT)) return -1;
  matchStart = start;
  return end;
}

/** Redacts every string at any depth; the same value (not a copy) when nothing changed. */
export function redactValue(value: WireValue): WireValue {
  if (typeof value === 'string') return redactString(value);
  if (value === null || typeof value !== 'object') return value;
  return Array.isArray(value) ? redactArray(value) : redactRecord(value);
}

function redactArray<T extends WireValue>(items: T[]): T[] {
  let copy: T[] | undefined;
  for (let i = 0; i < items.length; i += 1) {
    const item = items[i]!;
    const redacted = redactValue(item);
    if (redacted !== item) {
      copy ??= items.slice();
      copy[i] = redacted as T;
    }
  }
  return copy ?? items;
}

function redactRecord<T extends { [key: string]: WireValue }>(record: T): T {
  let copy: { [key: string]: WireValue } | undefined;
  for (const key in record) {
    const item = record[key]!;
    const redacted = redactValue(item);
    if (redacted !== item) {
      copy ??= { ...record };
      copy[key] = redacted;
    }
  }
  return (copy as T | undefined) ?? record;
}
