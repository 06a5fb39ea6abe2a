/**
 * PARSE_NUMERIC and PARSE_BIGNUMERIC: a number in text as BigQuery reads one (white space anywhere
 * but inside the digits, commas in the integer part, one sign before or after, an exponent),
 * rounded half away from zero to the type's places (9; BIGNUMERIC's 38); an error past the type's
 * range (NUMERIC's 29 integer digits; BIGNUMERIC's 256 bits of units) or for anything else.
 */
import { decimalUnits } from '../../../core/decimal-units.js';
import { BIGNUMERIC_MAX_UNITS, BIGNUMERIC_MIN_UNITS } from '../../../sql/dialects/duckdb/sql-macros.js';
import { HostFunctionError } from './errors.js';

const SHAPE = /^\s*([+-]?)\s*([0-9,]*)(?:\.([0-9]*))?(?:[eE]([+-]?[0-9]+))?\s*([+-]?)\s*$/;

/** The text's value in units of 10^-places, signed; an error where BigQuery reads no number. */
function parseUnits(text: string, places: number, type: string): bigint {
  const match = SHAPE.exec(text);
  const invalid = () => new HostFunctionError(`Invalid ${type} value: ${text}`);
  if (!match) throw invalid();
  const [, before = '', whole = '', fraction = '', exponent = '0', after = ''] = match;
  // One sign at most; digits somewhere; an integer part of commas alone is none.
  if ((before && after) || !/\d/.test(whole + fraction) || (whole !== '' && !/\d/.test(whole))) throw invalid();
  const units = decimalUnits(whole.replace(/,/g, ''), fraction, exponent, places);
  if (units === undefined) throw new HostFunctionError(`${type} value out of range: ${text}`);
  return (before || after) === '-' ? -units : units;
}

export function parseNumeric(text: string): string {
  const units = parseUnits(text, 9, 'NUMERIC');
  const size = units < 0n ? -units : units;
  if (size >= 10n ** 38n) throw new HostFunctionError(`NUMERIC value out of range: ${text}`);
  const textValue = size.toString().padStart(10, '0');
  const result = `${textValue.slice(0, -9)}.${textValue.slice(-9)}`;
  return units < 0n ? `-${result}` : result;
}

/** PARSE_BIGNUMERIC's value as its units of 10^-38, the text of the BIGNUM that holds it (sql/dialects/duckdb/bignumeric.ts). */
export function parseBignumericUnits(text: string): string {
  const units = parseUnits(text, 38, 'BIGNUMERIC');
  if (units > BIGNUMERIC_MAX_UNITS || units < BIGNUMERIC_MIN_UNITS) throw new HostFunctionError(`BIGNUMERIC value out of range: ${text}`);
  return units.toString();
}
