/**
 * BigQuery's FORMAT, following ZetaSQL's (zetasql/public/functions/string_format.cc): printf
 * specifiers %d %i %o %x %X (an INT64, sign and magnitude), %f %F %e %E %g %G (a FLOAT64), %s (a
 * STRING), %t (any value as text) and %T (any value as a GoogleSQL literal), with the flags
 * `- + space # 0 '` (' groups digits), a width and a precision (or `*`, read from an argument). A
 * NULL argument makes the result NULL, but for %t and %T, which write NULL.
 */
import { writeJson } from '../../../sql/functions/json-value.js';
import { checkOutput, FORMAT_OUTPUT_BOUND } from '../../../sql/dialects/duckdb/host-function-bounds.js';
import { HostFunctionError } from './errors.js';
import { printfExponent, printfFixed } from './exact-double.js';
import type { SqlValue } from './sql-values.js';

const SPECIFIER = /%([-+ #'0]*)(\*|[0-9]*)(\.(?:\*|[0-9]*))?(.)/y;

interface Spec {
  flags: string;
  width: number | undefined;
  precision: number | undefined;
  conversion: string;
}

/** A C-style `%g` of a double's magnitude: the shorter of %e and %f at `precision` significant digits. */
function generalNumber(value: number, precision: number, alternate: boolean): string {
  const digits = Math.max(precision, 1);
  if (value === 0) return alternate ? `0.${'0'.repeat(digits - 1)}` : '0';
  const { exponent } = printfExponent(value, digits - 1);
  let text = exponent < -4 || exponent >= digits ? exponential(value, digits - 1) : printfFixed(value, digits - 1 - exponent);
  if (!alternate) text = text.includes('e') ? text.replace(/\.?0+e/, 'e') : text.includes('.') ? text.replace(/\.?0+$/, '') : text;
  return text;
}

/** A C-style `%e` of a double's magnitude: at least two exponent digits. */
function exponential(value: number, precision: number): string {
  const { mantissa, exponent } = printfExponent(value, precision);
  const point = precision === 0 ? mantissa : `${mantissa[0]}.${mantissa.slice(1)}`;
  return `${point}e${exponent < 0 ? '-' : '+'}${String(Math.abs(exponent)).padStart(2, '0')}`;
}

/** RoundTripDoubleToString: 15 significant digits when they read back as the value, else 17. */
export function roundTripDouble(value: number): string {
  if (Number.isNaN(value)) return 'nan';
  if (!Number.isFinite(value)) return value > 0 ? 'inf' : '-inf';
  const sign = value < 0 ? '-' : '';
  const short = sign + generalNumber(Math.abs(value), 15, false);
  return Number(short) === value ? short : sign + generalNumber(Math.abs(value), 17, false);
}

function group(digits: string, size: number): string {
  const lead = ((digits.length - 1) % size) + 1;
  const groups = [digits.slice(0, lead)];
  for (let at = lead; at < digits.length; at += size) groups.push(digits.slice(at, at + size));
  return groups.join(',');
}

/** Pads `body` (after its sign and prefix) to the width, as printf does. */
function pad(spec: Spec, sign: string, prefix: string, body: string, numeric: boolean): string {
  const width = spec.width ?? 0;
  const length = new TextEncoder().encode(sign + prefix + body).length;
  if (length >= width) return sign + prefix + body;
  const fill = width - length;
  if (spec.flags.includes('-')) return sign + prefix + body + ' '.repeat(fill);
  if (numeric && spec.flags.includes('0')) return sign + prefix + '0'.repeat(fill) + body;
  return ' '.repeat(fill) + sign + prefix + body;
}

function signOf(negative: boolean, spec: Spec): string {
  return negative ? '-' : spec.flags.includes('+') ? '+' : spec.flags.includes(' ') ? ' ' : '';
}

function formatInteger(value: bigint, spec: Spec): string {
  const negative = value < 0n;
  const magnitude = negative ? -value : value;
  const base = spec.conversion === 'o' ? 8 : spec.conversion === 'x' || spec.conversion === 'X' ? 16 : 10;
  let digits = magnitude.toString(base);
  if (spec.conversion === 'X') digits = digits.toUpperCase();
  if (spec.precision !== undefined && digits.length < spec.precision) digits = digits.padStart(spec.precision, '0');
  if (spec.flags.includes("'")) digits = group(digits, base === 10 ? 3 : 4);
  const prefix = spec.flags.includes('#') && magnitude !== 0n ? (base === 8 ? '0' : base === 16 ? `0${spec.conversion}` : '') : '';
  return pad(spec, signOf(negative, spec), prefix, digits, true);
}

function formatDouble(value: number, spec: Spec): string {
  const upper = spec.conversion === spec.conversion.toUpperCase();
  // A negative zero is written as zero, without its sign: ZetaSQL's FORMAT (its reference
  // implementation, canonicalize_zero) makes -0.0 0.0 before printf; only its legacy mode kept `-0`.
  const negative = value < 0;
  const magnitude = Math.abs(value);
  let body: string;
  if (!Number.isFinite(magnitude)) {
    body = Number.isNaN(magnitude) ? 'nan' : 'inf';
    const text = upper ? body.toUpperCase() : body;
    return pad({ ...spec, flags: spec.flags.replace('0', '') }, signOf(negative && !Number.isNaN(magnitude), spec), '', text, false);
  }
  const precision = spec.precision ?? 6;
  const conversion = spec.conversion.toLowerCase();
  if (conversion === 'f') body = printfFixed(magnitude, precision);
  else if (conversion === 'e') body = exponential(magnitude, precision);
  else body = generalNumber(magnitude, precision === 0 ? 1 : precision, spec.flags.includes('#'));
  if (spec.flags.includes('#') && !body.includes('.') && conversion !== 'g') body = body.replace(/^(\d+)/, '$1.');
  if (spec.flags.includes("'")) body = body.replace(/^\d+/, (whole) => group(whole, 3));
  return pad(spec, signOf(negative, spec), '', upper ? body.toUpperCase() : body, true);
}

/** A NUMERIC's text without trailing zeros after its point (NumericValue::ToString). */
function numericText(text: string): string {
  return text.includes('.') ? text.replace(/0+$/, '').replace(/\.$/, '') : text;
}

/** A time's fraction as BigQuery writes one: none, 3 or 6 digits. */
function civil(text: string): string {
  return text.replace(/\.(\d+)/, (_, digits: string) => {
    const micros = digits.padEnd(6, '0').slice(0, 6);
    if (/^0+$/.test(micros)) return '';
    return `.${micros.endsWith('000') ? micros.slice(0, 3) : micros}`;
  });
}

/** C escapes of a STRING literal (CEscapeInternal, UTF-8 kept): \n \r \t \\, the quote, \xNN for other controls. */
function escapeText(text: string, quote: string): string {
  const named: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t', '\\': '\\\\', [quote]: `\\${quote}` };
  let out = '';
  let afterHex = false;
  for (const character of text) {
    const code = character.codePointAt(0)!;
    const hex: boolean = !(character in named) && code < 0x80 && (code < 0x20 || code === 0x7f || (afterHex && /[0-9a-fA-F]/.test(character)));
    out += named[character] ?? (hex ? `\\x${code.toString(16).padStart(2, '0')}` : character);
    afterHex = hex;
  }
  return out;
}

/** EscapeBytes: printable ASCII as itself (backslash and the quote escaped), every other byte \xNN. */
function escapeBytes(bytes: Uint8Array, quote: string | undefined): string {
  let out = '';
  for (const byte of bytes) {
    const character = String.fromCharCode(byte);
    if (byte < 0x20 || byte > 0x7e) out += `\\x${byte.toString(16).padStart(2, '0')}`;
    else if (character === '\\') out += '\\\\';
    else if ((quote === undefined && `'"\``.includes(character)) || character === quote) out += `\\${character}`;
    else out += character;
  }
  return out;
}

function quoteFor(text: string): string {
  return text.includes('"') && !text.includes("'") ? "'" : '"';
}

function stringLiteral(text: string): string {
  const quote = quoteFor(text);
  return `${quote}${escapeText(text, quote)}${quote}`;
}

function bytesLiteral(bytes: Uint8Array): string {
  const text = String.fromCharCode(...bytes);
  const quote = quoteFor(text);
  return `b${quote}${escapeBytes(bytes, quote)}${quote}`;
}

/** A finite FLOAT64 with a `.0` where it would read as an integer. */
function floatLiteral(value: number): string {
  const text = roundTripDouble(value);
  return /^-?\d+$/.test(text) ? `${text}.0` : text;
}

/** %t: the value as text. */
export function valueAsText(value: SqlValue): string {
  switch (value.type) {
    case 'null':
      return 'NULL';
    case 'int64':
      return value.value.toString();
    case 'float64':
      return Number.isFinite(value.value) ? floatLiteral(value.value) : roundTripDouble(value.value);
    case 'numeric':
      return numericText(value.text);
    case 'bool':
      return String(value.value);
    case 'string':
      return value.value;
    case 'bytes':
      return escapeBytes(value.value, undefined);
    case 'date':
      return value.text;
    case 'datetime':
    case 'time':
    case 'timestamp':
      return civil(value.text);
    case 'interval':
      throw new HostFunctionError('an INTERVAL in FORMAT or TO_JSON is not supported on the embedded engine');
    case 'json':
      return writeJson(value.value);
    case 'array':
      return `[${value.elements.map(valueAsText).join(', ')}]`;
    case 'struct':
      return `(${value.fields.map((field) => valueAsText(field.value)).join(', ')})`;
  }
}

const TYPE_PREFIXES = { date: 'DATE', datetime: 'DATETIME', time: 'TIME', timestamp: 'TIMESTAMP' } as const;

/** %T: the value as a GoogleSQL literal. */
function valueAsLiteral(value: SqlValue): string {
  switch (value.type) {
    case 'float64':
      return Number.isFinite(value.value) ? floatLiteral(value.value) : `CAST(${stringLiteral(roundTripDouble(value.value))} AS FLOAT64)`;
    case 'numeric':
      return `NUMERIC ${stringLiteral(numericText(value.text))}`;
    case 'string':
      return stringLiteral(value.value);
    case 'bytes':
      return bytesLiteral(value.value);
    case 'date':
    case 'datetime':
    case 'time':
    case 'timestamp':
      return `${TYPE_PREFIXES[value.type]} ${stringLiteral(valueAsText(value))}`;
    case 'json':
      return `JSON ${stringLiteral(writeJson(value.value))}`;
    case 'array':
      return `[${value.elements.map(valueAsLiteral).join(', ')}]`;
    case 'struct': {
      const fields = value.fields.map((field) => valueAsLiteral(field.value));
      return fields.length === 1 ? `STRUCT(${fields[0]})` : fields.length === 0 ? 'STRUCT()' : `(${fields.join(', ')})`;
    }
    default:
      return valueAsText(value);
  }
}

function integerArgument(value: SqlValue, what: string): bigint | null {
  if (value.type === 'null') return null;
  if (value.type !== 'int64') throw new HostFunctionError(`FORMAT's ${what} must be an INT64`);
  return value.value;
}

/** FORMAT(pattern, values...): NULL when an argument other than a %t or %T one is NULL. */
export function format(pattern: string, values: readonly SqlValue[]): string | null {
  let out = '';
  let next = 0;
  let at = 0;
  const take = (): SqlValue => {
    const value = values[next++];
    if (value === undefined) throw new HostFunctionError(`Too few arguments to FORMAT for pattern "${pattern}"`);
    return value;
  };
  while (at < pattern.length) {
    // Each specifier writes at most the bound past what its argument holds, so checking before
    // each keeps the text built within twice the bound and the arguments.
    checkOutput('FORMAT', 'for one row', out.length, FORMAT_OUTPUT_BOUND);
    const percent = pattern.indexOf('%', at);
    if (percent === -1) {
      out += pattern.slice(at);
      break;
    }
    out += pattern.slice(at, percent);
    SPECIFIER.lastIndex = percent;
    const match = SPECIFIER.exec(pattern);
    if (!match) throw new HostFunctionError(`Invalid FORMAT string: "${pattern}"`);
    at = SPECIFIER.lastIndex;
    const [, flags = '', widthText = '', precisionText, conversion = ''] = match;
    if (conversion === '%') {
      if (flags || widthText || precisionText) throw new HostFunctionError(`Invalid FORMAT string: "${pattern}"`);
      out += '%';
      continue;
    }
    const spec: Spec = { flags, width: undefined, precision: undefined, conversion };
    if (widthText === '*') {
      const width = integerArgument(take(), 'width');
      if (width === null) return null;
      if (width < 0n) spec.flags += '-';
      spec.width = Math.abs(Number(width));
    } else if (widthText !== '') spec.width = Number(widthText);
    if (precisionText === '.*') {
      const precision = integerArgument(take(), 'precision');
      if (precision === null) return null;
      spec.precision = precision < 0n ? undefined : Number(precision);
    } else if (precisionText !== undefined) spec.precision = Number(precisionText.slice(1) || '0');
    // A width or an integer's precision is text to write: refused before it is written.
    checkOutput('FORMAT', 'for one row', Math.max(spec.width ?? 0, 'dioxX'.includes(conversion) ? (spec.precision ?? 0) : 0), FORMAT_OUTPUT_BOUND);
    const value = take();
    const invalid = () => new HostFunctionError(`Invalid type for argument ${next + 1} to FORMAT with %${conversion}`);
    if (conversion === 't' || conversion === 'T') {
      let text = conversion === 't' ? valueAsText(value) : valueAsLiteral(value);
      if (spec.precision !== undefined) text = [...text].slice(0, spec.precision).join('');
      out += pad(spec, '', '', text, false);
      continue;
    }
    if (!'dioxXfFeEgGs'.includes(conversion)) throw new HostFunctionError(`Invalid format specifier character "${conversion}" in FORMAT string: "${pattern}"`);
    if (value.type === 'null') return null;
    if ('dioxX'.includes(conversion)) {
      if (value.type !== 'int64') throw invalid();
      out += formatInteger(value.value, spec);
    } else if ('fFeEgG'.includes(conversion)) {
      if (value.type !== 'float64') throw value.type === 'numeric' ? new HostFunctionError(`FORMAT's %${conversion} of a NUMERIC is not supported on the embedded engine`) : invalid();
      out += formatDouble(value.value, spec);
    } else {
      if (value.type !== 'string') throw invalid();
      const text = spec.precision === undefined ? value.value : [...value.value].slice(0, spec.precision).join('');
      out += pad(spec, '', '', text, false);
    }
  }
  if (next < values.length) throw new HostFunctionError(`Too many arguments to FORMAT for pattern "${pattern}"`);
  checkOutput('FORMAT', 'for one row', out.length, FORMAT_OUTPUT_BOUND);
  return out;
}
