/**
 * BigQuery's JSON values, as GoogleSQL's JSON type holds them (ZetaSQL's JSONValue, built on
 * nlohmann::json): an integer that fits INT64 or UINT64 is kept exactly, any other number is a
 * double; an object keeps the first of two members of one name and is written with its keys in
 * byte order; text is written compactly, a double the way nlohmann writes one (`10.0`, `1e+100`,
 * `9.007199254740992e+15`). JSON literals are read with it at compile time, and the DuckDB
 * backend's JSON functions (backends/duckdb/host-functions.ts) with it when a query runs, so a
 * JSON value has one text on the embedded engine, BigQuery's.
 */

/** A number is a bigint when it is an integer BigQuery keeps exactly, a number (a double) otherwise. */
export type JsonValue = null | boolean | string | number | bigint | JsonValue[] | JsonObject;
export type JsonObject = Map<string, JsonValue>;

export class InvalidJson extends Error {}

/** How a number no double holds exactly is read: an error, or rounded (PARSE_JSON's `wide_number_mode`). */
export type WideNumberMode = 'exact' | 'round';

const INT64_MIN = -(2n ** 63n);
const UINT64_MAX = 2n ** 64n - 1n;
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

export function isJsonObject(value: JsonValue): value is JsonObject {
  return value instanceof Map;
}

/** The JSON value of `text` (RFC 8259), numbers read as BigQuery reads them. */
export function parseJson(text: string, mode: WideNumberMode = 'exact'): JsonValue {
  let at = 0;
  const fail = (what: string): never => {
    throw new InvalidJson(`${what} at position ${at} of the JSON text`);
  };
  const space = () => {
    while (at < text.length && ' \t\n\r'.includes(text[at]!)) at++;
  };
  const value = (depth: number): JsonValue => {
    if (depth > 1000) fail('nesting too deep');
    space();
    const char = text[at];
    if (char === '{') return object(depth);
    if (char === '[') return array(depth);
    if (char === '"') return string();
    for (const [word, result] of [['true', true], ['false', false], ['null', null]] as const) {
      if (text.startsWith(word, at)) {
        at += word.length;
        return result;
      }
    }
    return number();
  };
  const object = (depth: number): JsonObject => {
    const members: JsonObject = new Map();
    at++;
    space();
    if (text[at] === '}') {
      at++;
      return members;
    }
    for (;;) {
      space();
      if (text[at] !== '"') fail('a member name expected');
      const key = string();
      space();
      if (text[at] !== ':') fail('":" expected');
      at++;
      const member = value(depth + 1);
      if (!members.has(key)) members.set(key, member);
      space();
      if (text[at] === ',') {
        at++;
        continue;
      }
      if (text[at] === '}') {
        at++;
        return members;
      }
      return fail('"," or "}" expected');
    }
  };
  const array = (depth: number): JsonValue[] => {
    const items: JsonValue[] = [];
    at++;
    space();
    if (text[at] === ']') {
      at++;
      return items;
    }
    for (;;) {
      items.push(value(depth + 1));
      space();
      if (text[at] === ',') {
        at++;
        continue;
      }
      if (text[at] === ']') {
        at++;
        return items;
      }
      return fail('"," or "]" expected');
    }
  };
  const string = (): string => {
    const start = at;
    at++;
    for (;;) {
      const char = text[at];
      if (char === undefined) return fail('an unterminated string');
      if (char === '"') break;
      if (char < ' ') return fail('a control character in a string');
      if (char === '\\') {
        at++;
        if (text[at] === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(at + 1, at + 5))) fail('a bad \\u escape');
          at += 4;
        } else if (!'"\\/bfnrt'.includes(text[at] ?? '')) fail('a bad escape');
      }
      at++;
    }
    at++;
    return JSON.parse(text.slice(start, at)) as string;
  };
  const number = (): number | bigint => {
    NUMBER.lastIndex = at;
    const match = NUMBER.exec(text);
    if (!match || match[0] === '-') return fail('a value expected');
    at += match[0].length;
    return readNumber(match[0], mode);
  };
  const result = value(0);
  space();
  if (at !== text.length) fail('text after the value');
  return result;
}

/** A JSON number's text as BigQuery keeps it: an exact integer, or a double (checked to be exact in `exact` mode). */
function readNumber(text: string, mode: WideNumberMode): number | bigint {
  if (/^-?\d+$/.test(text)) {
    const integer = BigInt(text);
    if (integer >= INT64_MIN && integer <= UINT64_MAX) return integer;
  }
  const double = Number(text);
  if (!Number.isFinite(double)) throw new InvalidJson(`the number ${text} is beyond a double's range`);
  if (mode === 'exact' && !sameDecimal(text, formatDouble(double))) throw new InvalidJson(`the number ${text} cannot round-trip through a double`);
  return double;
}

/** Whether two decimal texts (with exponents) name the same number. */
function sameDecimal(a: string, b: string): boolean {
  const normal = (text: string) => {
    const match = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(text);
    if (!match) return text;
    const [, sign, whole, fraction = '', exponent = '0'] = match;
    const digits = (whole! + fraction).replace(/^0+/, '');
    const trimmed = digits.replace(/0+$/, '');
    if (trimmed === '') return '0';
    const power = Number(exponent) - fraction.length + (digits.length - trimmed.length) + trimmed.length;
    return `${sign}${trimmed}e${power}`;
  };
  return normal(a) === normal(b);
}

/** A double as nlohmann::json writes it: shortest digits, `.0` on an integral value, an exponent past 15 digits. */
export function formatDouble(value: number): string {
  if (!Number.isFinite(value)) return 'null';
  if (value === 0) return Object.is(value, -0) ? '-0.0' : '0.0';
  const [mantissa, exponentText] = Math.abs(value).toExponential().split('e') as [string, string];
  const digits = mantissa.replace('.', '');
  const k = digits.length;
  const n = Number(exponentText) + 1;
  const sign = value < 0 ? '-' : '';
  if (k <= n && n <= 15) return `${sign}${digits}${'0'.repeat(n - k)}.0`;
  if (n > 0 && n <= 15) return `${sign}${digits.slice(0, n)}.${digits.slice(n)}`;
  if (n > -4 && n <= 0) return `${sign}0.${'0'.repeat(-n)}${digits}`;
  const exponent = n - 1;
  const written = `${exponent < 0 ? '-' : '+'}${String(Math.abs(exponent)).padStart(2, '0')}`;
  return `${sign}${digits[0]}${k > 1 ? `.${digits.slice(1)}` : ''}e${written}`;
}

/** Byte order of the UTF-8 text, as nlohmann's std::map orders an object's keys: code point order. */
function byteOrder(a: string, b: string): number {
  const left = [...a];
  const right = [...b];
  for (let index = 0; index < Math.min(left.length, right.length); index++) {
    const difference = left[index]!.codePointAt(0)! - right[index]!.codePointAt(0)!;
    if (difference !== 0) return difference;
  }
  return left.length - right.length;
}

/** The value's text as BigQuery writes a JSON value: compact, keys in byte order. */
export function writeJson(value: JsonValue): string {
  if (value === null) return 'null';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'number') return formatDouble(value);
  if (typeof value === 'string') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(writeJson).join(',')}]`;
  const keys = [...value.keys()].sort(byteOrder);
  return `{${keys.map((key) => `${JSON.stringify(key)}:${writeJson(value.get(key)!)}`).join(',')}}`;
}

/** The canonical text of JSON text: what `JSON '...'` and PARSE_JSON hold. */
export function canonicalJson(text: string, mode: WideNumberMode = 'exact'): string {
  return writeJson(parseJson(text, mode));
}
