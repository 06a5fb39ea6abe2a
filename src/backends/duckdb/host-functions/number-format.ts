/**
 * `CAST(n AS STRING FORMAT '...')` of an INT64, NUMERIC or FLOAT64, written as ZetaSQL's reference
 * implementation writes it (zetasql/public/functions/convert_string_with_format.cc), with the
 * model read when the query was compiled (sql/dialects/duckdb/number-formats.ts).
 *
 * The number is first written with as many digits after the point as the model has (`%#.nf`, or
 * `%#.ne` with EEEE): an INT64 or NUMERIC exactly, rounded half away from zero as NUMERIC rounds;
 * a FLOAT64 from its exact binary value, rounded half to even as printf rounds. Those digits fill
 * the model's: a sign place before them (a space, or `-`) unless the model places the sign; `#` in
 * every digit place when the integer part has more digits than the model; a leading zero only
 * where a `0` stands at or before its place; `B` blanks a number whose integer part is zero; `FM`
 * drops trailing zeros of the fraction and the padding. Hexadecimal takes the number rounded half
 * away from zero to an integer, sign and magnitude.
 */
import { parseNumberFormat, type NumberFormat } from '../../../sql/dialects/duckdb/number-formats.js';
import { HostFunctionError } from './errors.js';
import { exactDouble, exactExponentDigits, exactFixedDigits, roundDivide } from './exact-double.js';

/** The number written with the model's digits after the point, as the reference's printf step gives it. */
interface Written {
  negative: boolean;
  /** The integer digits, empty when they are `0`. */
  integer: string;
  fraction: string;
  /** `+02`, `-123` (after the `e`), with EEEE. */
  exponent: string;
  special?: 'INF' | 'NAN';
}

const NUMERIC_SCALE = 9;

/**
 * `magnitude / 10^scale` (exact) written with `digits` after the point, or in e-notation with
 * `digits` after the mantissa's point.
 */
function writeExact(negative: boolean, magnitude: bigint, scale: number, digits: number, exponentForm: boolean, halfEven: boolean): Written {
  if (!exponentForm) {
    const rounded = exactFixedDigits(magnitude, scale, digits, halfEven);
    const integer = rounded.slice(0, rounded.length - digits);
    return { negative, integer: integer === '0' ? '' : integer, fraction: rounded.slice(rounded.length - digits), exponent: '' };
  }
  const { mantissa: text, exponent } = exactExponentDigits(magnitude, scale, digits, halfEven);
  const exponentText = `${exponent < 0 ? '-' : '+'}${String(Math.abs(exponent)).padStart(2, '0')}`;
  return { negative, integer: text[0] === '0' ? '' : text[0]!, fraction: text.slice(1), exponent: exponentText };
}

const DECIMAL_TEXT = /^([+-]?)([0-9]*)(?:\.([0-9]*))?(?:[eE]([+-]?[0-9]+))?$/;

/**
 * An INT64's or NUMERIC's text (`-12`, `3.140000000`) as an integer count of 10^-9, rounded half
 * away from zero as NUMERIC rounds where DuckDB wrote more decimals (or an exponent).
 */
function scaledDecimal(text: string): { negative: boolean; magnitude: bigint } {
  const match = DECIMAL_TEXT.exec(text.trim());
  if (!match) throw new HostFunctionError(`CAST ... FORMAT of a value that is not a number: ${text}`);
  const [, sign = '', whole = '', fraction = '', exponent = '0'] = match;
  const digits = BigInt(`${whole}${fraction}` || '0');
  return { negative: sign === '-', magnitude: roundDivide(digits, fraction.length - Number(exponent) - NUMERIC_SCALE, false) };
}

function writeDecimal(text: string, digits: number, exponentForm: boolean): Written {
  const { negative, magnitude } = scaledDecimal(text);
  return writeExact(negative, magnitude, NUMERIC_SCALE, digits, exponentForm, false);
}

function writeDouble(value: number, digits: number, exponentForm: boolean): Written {
  if (Number.isNaN(value)) return { negative: false, integer: '', fraction: '', exponent: '', special: 'NAN' };
  // A negative zero has no sign: ZetaSQL formats the value through FORMAT's printf with
  // canonicalize_zero, as FORMAT('%f') does (host-functions/format.ts).
  const negative = value < 0;
  if (!Number.isFinite(value)) return { negative, integer: '', fraction: '', exponent: '', special: 'INF' };
  const { magnitude, scale } = exactDouble(value);
  return writeExact(negative, magnitude, scale, digits, exponentForm, true);
}

function signText(format: NumberFormat, negative: boolean, blank: boolean): { prefix: string; suffix: string } {
  const mark = (text: string) => (blank ? ' '.repeat(text.length) : text);
  switch (format.sign) {
    case 'S':
      return format.signAtFront ? { prefix: mark(negative ? '-' : '+'), suffix: '' } : { prefix: '', suffix: mark(negative ? '-' : '+') };
    case 'MI':
      return { prefix: '', suffix: mark(negative ? '-' : ' ') };
    case 'PR':
      return { prefix: mark(negative ? '<' : ' '), suffix: mark(negative ? '>' : ' ') };
    default:
      return { prefix: mark(negative ? '-' : ' '), suffix: '' };
  }
}

function finish(format: NumberFormat, text: string): string {
  return format.compact ? text.replace(/^[ \t\n\v\f\r]+|[ \t\n\v\f\r]+$/g, '') : text;
}

/** The integer part's text, written from its last place back, and the places left for padding. */
function integerPart(format: NumberFormat, n: Written, overflow: boolean, blank: boolean): { text: string; padding: number } {
  const digits = n.integer === '' ? '0' : n.integer;
  let text = '';
  let digit = digits.length - 1;
  let place = format.decimalPoint - 1;
  for (; place >= 0; place--) {
    if (digit < 0 && !(format.firstZero !== undefined && place >= format.firstZero)) break;
    const element = format.elements[place]!;
    if (element === ',') text = (blank ? ' ' : ',') + text;
    else {
      text = (overflow ? '#' : blank ? ' ' : digit >= 0 ? digits[digit]! : '0') + text;
      digit--;
    }
  }
  return { text, padding: place + 1 };
}

function fractionPart(format: NumberFormat, n: Written, overflow: boolean, blank: boolean): string {
  let text = '';
  let digit = 0;
  for (const element of format.elements.slice(format.decimalPoint)) {
    if (element === '.') text += blank ? ' ' : '.';
    else if (element === 'E' || element === 'e') text += overflow ? '####' : blank ? '    ' : element + n.exponent;
    else if (element !== 'V') {
      // Past the written digits only when FM dropped trailing zeros: nothing is written.
      if (overflow) text += '#';
      else if (digit < n.fraction.length) text += blank ? ' ' : n.fraction[digit]!;
      digit++;
    }
  }
  return text;
}

/** INF or NAN in the integer part's last three places (`#` where there are fewer), the fraction's places blank. */
function formatSpecial(format: NumberFormat, n: Written): string {
  const word = n.special!;
  let body: string;
  let padding: number;
  if (format.exponent) {
    body = word;
    padding = format.elements.length;
  } else {
    const overflow = format.decimalPoint < 3;
    let fraction = '';
    for (const element of format.elements.slice(format.decimalPoint)) {
      if (element === '.') fraction += overflow ? '.' : ' ';
      else if (element !== 'V') fraction += overflow ? '#' : ' ';
    }
    if (format.compact) fraction = fraction.trim();
    let integer = '';
    let letter = word.length - 1;
    let place = format.decimalPoint - 1;
    for (; letter >= 0 && place >= 0; place--, letter--) {
      const element = format.elements[place]!;
      integer = (overflow ? (element === ',' ? ',' : '#') : word[letter]!) + integer;
    }
    body = integer + fraction;
    padding = place + 1;
  }
  let { prefix, suffix } = signText(format, n.negative, false);
  // NaN has no sign.
  if (word === 'NAN') [prefix, suffix] = [' '.repeat(prefix.length), ' '.repeat(suffix.length)];
  return finish(format, (format.compact ? '' : ' '.repeat(padding)) + prefix + (format.currency ?? '') + body + suffix);
}

function formatDecimal(format: NumberFormat, n: Written): string {
  if (n.special) return formatSpecial(format, n);
  if (format.compact) n = { ...n, fraction: n.fraction.replace(/0+$/, '') };
  const overflow = n.integer.length > format.integerDigits;
  const blank = format.blankZero && n.integer === '';
  const fraction = fractionPart(format, n, overflow, blank);
  let integer = { text: '', padding: format.decimalPoint };
  // 0.12 with 9.99 is ' .12': no integer digit unless a 0 asks for one, or nothing else is written.
  const wantsInteger = n.integer !== '' || format.exponent || (format.firstZero !== undefined && format.firstZero < format.decimalPoint) || n.fraction === '';
  if (format.integerDigits > 0 && wantsInteger) integer = integerPart(format, n, overflow, blank);
  const { prefix, suffix } = signText(format, n.negative, blank);
  const currency = format.currency === undefined ? '' : blank ? ' '.repeat(format.currency.length) : format.currency;
  return finish(format, ' '.repeat(integer.padding) + prefix + currency + integer.text + fraction + suffix);
}

const UINT64_LIMIT = 1n << 64n;

/** The magnitude rounded half away from zero to an integer; undefined past 64 bits (or NaN). */
function hexMagnitude(value: { decimal: string } | { double: number }): { negative: boolean; magnitude: bigint | undefined } {
  if ('decimal' in value) {
    const { negative, magnitude } = scaledDecimal(value.decimal);
    const rounded = roundDivide(magnitude, NUMERIC_SCALE, false);
    return { negative, magnitude: rounded < UINT64_LIMIT ? rounded : undefined };
  }
  const negative = value.double < 0;
  const magnitude = Math.abs(value.double);
  if (!Number.isFinite(magnitude)) return { negative, magnitude: undefined };
  const { magnitude: exact, scale } = exactDouble(magnitude);
  const rounded = roundDivide(exact, scale, false);
  return { negative, magnitude: rounded < UINT64_LIMIT ? rounded : undefined };
}

function formatHexadecimal(format: NumberFormat, value: { decimal: string } | { double: number }): string {
  const { negative, magnitude } = hexMagnitude(value);
  // Past 64 bits the reference writes 17 digits: more than the 16 places a model may have.
  const digits = magnitude === undefined ? '0'.repeat(17) : magnitude.toString(16);
  const overflow = digits.length > format.elements.length;
  let text = '';
  let digit = digits.length - 1;
  let place = format.elements.length - 1;
  for (; place >= 0; place--) {
    if (digit < 0 && !(format.firstZero !== undefined && place >= format.firstZero)) break;
    const element = format.elements[place]!;
    const character = digit >= 0 ? digits[digit]! : '0';
    text = (overflow ? '#' : element === 'X' ? character.toUpperCase() : character) + text;
    digit--;
  }
  const { prefix, suffix } = signText(format, negative, false);
  return finish(format, (format.compact ? '' : ' '.repeat(place + 1)) + prefix + text + suffix);
}

/** The last model read, kept: a query calls with one model for every row. */
let lastModel: { text: string; format: NumberFormat } | undefined;

function model(text: string): NumberFormat {
  if (lastModel?.text !== text) lastModel = { text, format: parseNumberFormat(text) };
  return lastModel.format;
}

/** An INT64 or NUMERIC, as DuckDB writes its text, with a format model. */
export function castFormatDecimal(format: string, text: string): string {
  const parsed = model(format);
  if (parsed.output === 'hexadecimal') return formatHexadecimal(parsed, { decimal: text });
  return formatDecimal(parsed, writeDecimal(text, parsed.scale, parsed.exponent));
}

/** A FLOAT64 with a format model. */
export function castFormatFloat(format: string, value: number): string {
  const parsed = model(format);
  if (parsed.output === 'hexadecimal') return formatHexadecimal(parsed, { double: value });
  return formatDecimal(parsed, writeDouble(value, parsed.scale, parsed.exponent));
}
