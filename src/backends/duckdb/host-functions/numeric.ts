/**
 * PARSE_NUMERIC: a number in text as BigQuery reads one (white space anywhere but inside the
 * digits, commas in the integer part, one sign before or after, an exponent), rounded half away
 * from zero to 9 decimal places; an error beyond NUMERIC's 29 integer digits or for anything else.
 */
import { HostFunctionError } from './errors.js';

const SHAPE = /^\s*([+-]?)\s*([0-9,]*)(?:\.([0-9]*))?(?:[eE]([+-]?[0-9]+))?\s*([+-]?)\s*$/;

export function parseNumeric(text: string): string {
  const match = SHAPE.exec(text);
  const invalid = () => new HostFunctionError(`Invalid NUMERIC value: ${text}`);
  if (!match) throw invalid();
  const [, before = '', whole = '', fraction = '', exponent = '0', after = ''] = match;
  // One sign at most; digits somewhere; an integer part of commas alone is none.
  if ((before && after) || !/\d/.test(whole + fraction) || (whole !== '' && !/\d/.test(whole))) throw invalid();
  const digits = whole.replace(/,/g, '') + fraction;
  const negative = (before || after) === '-';
  let scale = fraction.length - Number(exponent);
  let value = BigInt(digits === '' ? '0' : digits);
  // To 9 decimal places, half away from zero.
  if (scale > 9) {
    const divisor = 10n ** BigInt(scale - 9);
    value = (value + divisor / 2n) / divisor;
    scale = 9;
  }
  const scaled = value * 10n ** BigInt(9 - scale);
  if (scaled >= 10n ** 38n) throw new HostFunctionError(`NUMERIC value out of range: ${text}`);
  const textValue = scaled.toString().padStart(10, '0');
  const result = `${textValue.slice(0, -9)}.${textValue.slice(-9)}`;
  return negative && scaled !== 0n ? `-${result}` : result;
}
