/**
 * Text functions DuckDB has none of, or none with BigQuery's answer: ICU's full case mapping (as
 * BigQuery's LOWER and UPPER; DuckDB maps ß to ẞ), INITCAP's simple one, NORMALIZE with ICU's four
 * forms and its case folding, SOUNDEX, TRANSLATE, INSTR, the edit distance in characters, the
 * position of a regular expression's match, and bytes read as UTF-8 with U+FFFD for each bad byte.
 * Each follows ZetaSQL's implementation of the function (zetasql/public/functions/string.cc).
 */
import { RE2JS } from 're2js';
import { HostFunctionError } from './errors.js';
import { foldCase } from './case-folding.js';

/** INITCAP's default delimiters; Unicode white space is a delimiter too. */
const DEFAULT_DELIMITERS = ' []{}()/|\\!?@"^#$&~_,.:;*%+-';
const WHITE_SPACE = /^\p{White_Space}$/u;

/** One code point mapped as ICU's u_toupper / u_tolower do: to one code point, never to several. */
function simpleCase(character: string, upper: boolean): string {
  const mapped = upper ? character.toUpperCase() : character.toLowerCase();
  if ([...mapped].length === 1) return mapped;
  // Where the full mapping takes several code points, the simple one keeps the character, but for
  // U+0130 (İ), whose simple lower case is i.
  return !upper && character === '\u0130' ? 'i' : character;
}

/** INITCAP: the first character after a delimiter upper case, the others lower case (by default Unicode white space delimits too). */
export function initcap(text: string, delimiters?: string): string {
  const set = new Set([...(delimiters ?? DEFAULT_DELIMITERS)]);
  const whiteSpace = delimiters === undefined;
  let capitalize = true;
  let out = '';
  for (const character of text) {
    if (set.has(character) || (whiteSpace && WHITE_SPACE.test(character))) {
      out += character;
      capitalize = true;
    } else {
      out += simpleCase(character, capitalize);
      capitalize = false;
    }
  }
  return out;
}

const NORMALIZATION_FORMS = new Set(['NFC', 'NFKC', 'NFD', 'NFKD']);

export function normalize(text: string, form: string, casefold: boolean): string {
  if (!NORMALIZATION_FORMS.has(form)) throw new HostFunctionError(`unknown normalization mode ${form}`);
  const normalized = text.normalize(form as 'NFC');
  return casefold ? foldCase(normalized) : normalized;
}

/** SOUNDEX's digit for each ASCII letter (A-Z), ZetaSQL's table: 0 for vowels, H, W, Y. */
const SOUNDEX_CODES = '01230120022455012623010202';

export function soundex(text: string): string {
  let result = '';
  let previous = '0';
  const bytes = new TextEncoder().encode(text);
  for (const byte of bytes) {
    if (result.length === 4) break;
    const letter = byte >= 65 && byte <= 90 ? byte - 65 : byte >= 97 && byte <= 122 ? byte - 97 : -1;
    if (letter < 0) continue;
    const code = SOUNDEX_CODES[letter]!;
    if (result === '') {
      result = String.fromCharCode(byte);
      previous = code;
    } else if (code !== '0' && code !== previous) {
      result += code;
      previous = code;
    }
  }
  return result === '' ? '' : result.padEnd(4, '0');
}

export function translate(text: string, source: string, target: string): string {
  const targets = [...target];
  const mapping = new Map<string, string>();
  [...source].forEach((character, index) => {
    if (mapping.has(character)) throw new HostFunctionError(`Duplicate character "${character}" in TRANSLATE source characters`);
    mapping.set(character, targets[index] ?? '');
  });
  let out = '';
  for (const character of text) out += mapping.get(character) ?? character;
  return out;
}

/**
 * INSTR over a sequence of units (code points, or bytes): the 1-based position of the
 * occurrence-th match of `sub` from `position` (backward from the end when negative), 0 if none.
 */
export function instr<T>(units: readonly T[], sub: readonly T[], position: bigint, occurrence: bigint): bigint {
  if (occurrence < 1n) throw new HostFunctionError('Occurrence in INSTR must be positive');
  if (position === 0n) throw new HostFunctionError('Position in INSTR must not be 0');
  const matchesAt = (at: number) => at + sub.length <= units.length && sub.every((unit, index) => units[at + index] === unit);
  let found = 0n;
  if (position > 0n) {
    for (let at = Number(position) - 1; at <= units.length; at++) {
      if (matchesAt(at) && ++found === occurrence) return BigInt(at + 1);
    }
    return 0n;
  }
  // Backward: a match may start at the position counted from the end (an empty one just after it).
  const last = units.length + Number(position) + (sub.length === 0 ? 1 : 0);
  for (let at = Math.min(last, units.length); at >= 0; at--) {
    if (matchesAt(at) && ++found === occurrence) return BigInt(at + 1);
  }
  return 0n;
}

/** The Levenshtein distance between two sequences of units. */
export function editDistance<T>(a: readonly T[], b: readonly T[]): bigint {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    previous = current;
  }
  return BigInt(previous[b.length]!);
}

/**
 * REGEXP_INSTR: the 1-based position (in characters) of the occurrence-th match of the RE2
 * pattern from `position`, or of its capturing group; with occurrence_position 1, the position
 * just after it. 0 when there is none.
 */
export function regexpInstr(text: string, pattern: string, position: bigint, occurrence: bigint, occurrencePosition: bigint): bigint {
  if (position < 1n) throw new HostFunctionError('Position in REGEXP_INSTR must be positive');
  if (occurrence < 1n) throw new HostFunctionError('Occurrence in REGEXP_INSTR must be positive');
  if (occurrencePosition !== 0n && occurrencePosition !== 1n) throw new HostFunctionError('Occurrence position in REGEXP_INSTR must be 0 or 1');
  let regexp: RE2JS;
  try {
    regexp = RE2JS.compile(pattern);
  } catch (error) {
    throw new HostFunctionError(`Cannot parse regular expression: ${(error as Error).message}`);
  }
  const groups = regexp.groupCount();
  if (groups > 1) throw new HostFunctionError('Regular expressions passed into extraction functions must not have more than 1 capturing group');
  const points = [...text];
  if (pattern === '' || Number(position) > points.length) return 0n;
  // re2js counts UTF-16 units; the answer counts code points.
  const unitsBefore = points.slice(0, Number(position) - 1).join('').length;
  const matcher = regexp.matcher(text);
  let from = unitsBefore;
  let found = 0n;
  while (from <= text.length && matcher.find(from)) {
    const start = matcher.start();
    const end = matcher.end();
    if (++found === occurrence) {
      const at = occurrencePosition === 0n ? matcher.start(groups) : matcher.end(groups);
      return BigInt([...text.slice(0, at)].length + 1);
    }
    from = end > start ? end : end + 1;
  }
  return 0n;
}

/** Bytes read as UTF-8, each byte of an invalid sequence replaced by U+FFFD. */
export function safeConvertBytes(bytes: Uint8Array): string {
  let out = '';
  let at = 0;
  while (at < bytes.length) {
    const length = sequenceLength(bytes, at);
    if (length === 0) {
      out += '\uFFFD';
      at++;
    } else {
      out += new TextDecoder().decode(bytes.subarray(at, at + length));
      at += length;
    }
  }
  return out;
}

/** The length of the well-formed UTF-8 sequence at `at`, 0 if there is none there. */
function sequenceLength(bytes: Uint8Array, at: number): number {
  const first = bytes[at]!;
  if (first < 0x80) return 1;
  const continuation = (index: number, low = 0x80, high = 0xbf) => {
    const byte = bytes[at + index];
    return byte !== undefined && byte >= low && byte <= high;
  };
  if (first >= 0xc2 && first <= 0xdf) return continuation(1) ? 2 : 0;
  if (first >= 0xe0 && first <= 0xef) {
    const [low, high] = first === 0xe0 ? [0xa0, 0xbf] : first === 0xed ? [0x80, 0x9f] : [0x80, 0xbf];
    return continuation(1, low, high) && continuation(2) ? 3 : 0;
  }
  if (first >= 0xf0 && first <= 0xf4) {
    const [low, high] = first === 0xf0 ? [0x90, 0xbf] : first === 0xf4 ? [0x80, 0x8f] : [0x80, 0xbf];
    return continuation(1, low, high) && continuation(2) && continuation(3) ? 4 : 0;
  }
  return 0;
}
