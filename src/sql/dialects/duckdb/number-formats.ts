/**
 * The format models of `CAST(n AS STRING FORMAT '...')` for INT64, NUMERIC and FLOAT64
 * (GoogleSQL's "Format clause for CAST", numeric format elements), read as ZetaSQL's reference
 * implementation reads them (zetasql/public/functions/convert_string_with_format.cc): digits `0`
 * and `9`, `X` for hexadecimal, a decimal point `.`, `D` or `V`, group separators `,` and `G`, a
 * sign `S` (first or last), `MI` or `PR` (last), currency `$`, `C` or `L`, `B`, `EEEE` and `FM`,
 * each read case-insensitively. The model is read when the query is compiled; the text is written
 * for each row by the host function (backends/duckdb/host-functions/number-format.ts).
 *
 * A model BigQuery rejects is an error named as BigQuery names it. `RN` (Roman numerals) and
 * `TM`, `TM9`, `TME` (text minimal) are valid in BigQuery but refused by name: the reference
 * leaves them unimplemented, so there is no known answer to write them by.
 */
import { UnsupportedFormat } from './time-formats.js';

/**
 * The elements that place text: a digit (`0`, `9`), a hexadecimal digit in its case (`X`, `x`),
 * the decimal point (`.`, for `.` and `D`), `V`, a group separator (`,`, for `,` and `G`), and the
 * exponent in its case (`E`, `e`, for `EEEE`).
 */
export type PlacedElement = '0' | '9' | 'X' | 'x' | '.' | 'V' | ',' | 'E' | 'e';

export interface NumberFormat {
  readonly output: 'decimal' | 'hexadecimal';
  readonly elements: readonly PlacedElement[];
  /** The index in `elements` where the integer part ends (the point's, or the exponent's, or the end). */
  readonly decimalPoint: number;
  /** The index in `elements` of the first `0`, before which a digit is written only when the number has one. */
  readonly firstZero: number | undefined;
  readonly integerDigits: number;
  /** The digits after the point. */
  readonly scale: number;
  readonly exponent: boolean;
  readonly sign: 'S' | 'MI' | 'PR' | undefined;
  readonly signAtFront: boolean;
  /** What the currency element writes (`$`, `USD`, `usd`). */
  readonly currency: string | undefined;
  readonly blankZero: boolean;
  readonly compact: boolean;
}

/** A format model BigQuery rejects: the message is BigQuery's. */
export class NumberFormatError extends Error {}

type Token = PlacedElement | 'D' | 'G' | 'S' | 'MI' | 'PR' | 'RN' | 'TM' | 'TM9' | 'TME' | 'B' | 'FM' | '$' | 'C' | 'c' | 'L';

const TEXT_MINIMAL: readonly Token[] = ['TM', 'TM9', 'TME'];

/** What an element is called in BigQuery's messages, upper case whatever case it was written in. */
function called(token: Token): string {
  switch (token) {
    case 'x':
      return 'X';
    case 'E':
    case 'e':
      return 'EEEE';
    case 'c':
      return 'C';
    default:
      return token;
  }
}

function fail(message: string): never {
  throw new NumberFormatError(`Error in format string: ${message}`);
}

/** The element at the start of `text`, with its length. */
function tokenAt(text: string): [Token, number, string] | undefined {
  const first = text[0]!;
  const starts = (name: string) => text.slice(0, name.length).toUpperCase() === name;
  if ('$09.,'.includes(first)) return [first as Token, 1, first];
  if (first === 'X' || first === 'x') return [first, 1, first];
  if (first === 'C' || first === 'c') return [first, 1, first];
  const upper = first.toUpperCase();
  if (upper === 'D' || upper === 'G' || upper === 'S' || upper === 'B' || upper === 'V' || upper === 'L') return [upper as Token, 1, first];
  for (const name of ['MI', 'PR', 'RN', 'FM', 'TM9', 'TME', 'TM'] as const) {
    if (starts(name)) return [name, name.length, text.slice(0, name.length)];
  }
  if (starts('EEEE')) return [first === 'e' ? 'e' : 'E', 4, text.slice(0, 4)];
  return undefined;
}

type State = 'start' | 'integer' | 'fraction' | 'exponent' | 'hexadecimal' | 'after sign' | 'roman' | 'text minimal';

/**
 * The format model as BigQuery reads it, or NumberFormatError with BigQuery's message, or
 * UnsupportedFormat for RN and TM.
 */
export function parseNumberFormat(format: string): NumberFormat {
  const elements: PlacedElement[] = [];
  let state = 'start' as State;
  let firstZero: number | undefined;
  let decimalPoint: number | undefined;
  let pointWritten: Token | undefined;
  let sign: NumberFormat['sign'];
  let signAtFront = false;
  let currency: Token | undefined;
  let blankZero = false;
  let compact = false;
  let exponent = false;
  let roman: string | undefined;
  let textMinimal: string | undefined;
  let has9 = false;
  let hasX = false;
  let hasGroup = false;
  let digits = 0;
  let scale = 0;

  const setSign = (token: Token) => {
    if (sign !== undefined) fail("There can be at most one of 'S', 'MI', or 'PR'");
    sign = token as NumberFormat['sign'];
    state = 'after sign';
  };
  const startPoint = (token: Token) => {
    pointWritten = token;
    decimalPoint = elements.length - 1;
    state = 'fraction';
  };
  const startExponent = () => {
    if (hasGroup) fail("',' or 'G' cannot appear together with 'EEEE'");
    state = 'exponent';
    exponent = true;
  };

  let at = 0;
  while (at < format.length) {
    const found = tokenAt(format.slice(at));
    if (found === undefined) fail(`Invalid format element '${format[at]}'`);
    const [token, length, written] = found;
    at += length;
    if (token === '0') {
      elements.push('0');
      firstZero ??= elements.length - 1;
    } else if (token === '9' || token === 'X' || token === 'x' || token === '.' || token === 'V' || token === ',' || token === 'E' || token === 'e') {
      elements.push(token);
    } else if (token === 'D') {
      elements.push('.');
    } else if (token === 'G') {
      elements.push(',');
    }

    // Flags may appear anywhere.
    if (token === 'FM') {
      if (compact) fail("'FM' cannot be repeated");
      compact = true;
      continue;
    }
    if (token === '$' || token === 'C' || token === 'c' || token === 'L') {
      if (currency !== undefined) fail("There can be at most one of '$', 'C' or 'L'");
      currency = token;
      continue;
    }
    if (token === 'B') {
      if (blankZero) fail("There can be at most one 'B'");
      blankZero = true;
      continue;
    }
    if (token === '9' || token === '0' || token === 'X' || token === 'x') digits++;

    switch (state) {
      case 'start':
        if (token === 'S') {
          sign = 'S';
          signAtFront = true;
          state = 'integer';
        } else if (token === 'MI' || token === 'PR') fail(`'${token}' can only appear after all digits and 'EEEE'`);
        else if (token === '9') {
          has9 = true;
          state = 'integer';
        } else if (token === '0') state = 'integer';
        else if (token === 'X' || token === 'x') {
          hasX = true;
          state = 'hexadecimal';
        } else if (token === 'RN') {
          roman = written;
          state = 'roman';
        } else if (token === '.' || token === 'D' || token === 'V') startPoint(token);
        else if (TEXT_MINIMAL.includes(token)) {
          textMinimal = written;
          state = 'text minimal';
        } else fail(`Unexpected '${called(token)}'`);
        break;
      case 'integer':
        if (token === 'S' || token === 'MI' || token === 'PR') setSign(token);
        else if (token === 'E' || token === 'e') {
          startExponent();
          decimalPoint = elements.length - 1;
        } else if (token === 'X' || token === 'x') {
          if (has9) fail("'X' cannot appear together with '9'");
          if (hasGroup) fail("'X' cannot appear together with ',' or 'G'");
          hasX = true;
          state = 'hexadecimal';
        } else if (token === '9') has9 = true;
        else if (token === '0') {
          // a leading zero
        } else if (token === ',' || token === 'G') hasGroup = true;
        else if (token === '.' || token === 'D' || token === 'V') startPoint(token);
        else if (TEXT_MINIMAL.includes(token)) fail("'TM', 'TM9' or 'TME' cannot be combined with other format elements");
        else fail(`Unexpected '${called(token)}'`);
        break;
      case 'fraction':
        if (token === '0' || token === '9') scale++;
        else if (token === 'X' || token === 'x') fail(`'X' cannot appear together with '${called(pointWritten!)}'`);
        else if (token === 'E' || token === 'e') startExponent();
        else if (token === 'S' || token === 'MI' || token === 'PR') setSign(token);
        else if (token === '.' || token === 'D' || token === 'V') fail("There can be at most one of '.', 'D', or 'V'");
        else if (token === ',' || token === 'G') fail("',' or 'G' cannot appear after '.', 'D' or 'V'");
        else fail(`Unexpected '${called(token)}'`);
        break;
      case 'exponent':
        if (token === 'S' || token === 'MI' || token === 'PR') setSign(token);
        else if (token === ',' || token === 'G') fail("',' or 'G' cannot appear together with 'EEEE'");
        else fail(`'${called(token)}' cannot appear after 'EEEE'`);
        break;
      case 'after sign':
        if (token === '0' || token === '9' || token === 'X' || token === 'x' || token === 'E' || token === 'e') {
          fail(sign === 'S' ? "'S' can only appear before or after all digits and 'EEEE'" : `'${sign}' can only appear after all digits and 'EEEE'`);
        }
        fail(`Unexpected format element '${called(token)}'`);
        break;
      case 'hexadecimal':
        if (token === '0' || token === 'X' || token === 'x') break;
        if (token === 'S' || token === 'MI' || token === 'PR') setSign(token);
        else fail(`'X' cannot appear together with '${called(token)}'`);
        break;
      case 'text minimal':
        fail("'TM', 'TM9' or 'TME' cannot be combined with other format elements");
        break;
      case 'roman':
        fail(`'RN' cannot appear together with '${called(token)}'`);
    }
  }

  if (currency !== undefined) {
    if (textMinimal !== undefined) fail("'TM', 'TM9' or 'TME' cannot be combined with other format elements");
    if (hasX) fail(`'X' cannot appear together with '${called(currency)}'`);
    if (roman !== undefined) fail(`'RN' cannot appear together with '${called(currency)}'`);
  }
  if (blankZero) {
    if (textMinimal !== undefined) fail("'TM', 'TM9' or 'TME' cannot be combined with other format elements");
    if (hasX) fail("'X' cannot appear together with 'B'");
    if (roman !== undefined) fail("'RN' cannot appear together with 'B'");
  }
  if (compact && textMinimal !== undefined) fail("'TM', 'TM9' or 'TME' cannot be combined with other format elements");
  if (textMinimal !== undefined) throw new UnsupportedFormat(`format element ${textMinimal.toUpperCase()} (text minimal: the reference implementation leaves it unimplemented, so there is no known answer to write it by)`);
  if (roman !== undefined) throw new UnsupportedFormat(`format element ${roman.toUpperCase()} (Roman numerals: the reference implementation leaves it unimplemented, so there is no known answer to write it by)`);
  if (digits === 0) fail("Format string must contain at least one of 'X', '0' or '9'");
  if (hasX && digits > 16) fail("Max number of 'X' is 16");

  const common = { sign, signAtFront, currency: currency === undefined ? undefined : currency === 'C' ? 'USD' : currency === 'c' ? 'usd' : '$', blankZero, compact };
  if (hasX) {
    // A 0 writes its digit in the case of the next X after it (upper case when none follows).
    let letter: PlacedElement = 'X';
    for (let index = elements.length - 1; index >= 0; index--) {
      if (elements[index] === '0') elements[index] = letter;
      else letter = elements[index]!;
    }
    return { output: 'hexadecimal', elements, decimalPoint: elements.length, firstZero, integerDigits: digits, scale: 0, exponent: false, ...common };
  }
  let point = decimalPoint ?? elements.length;
  if (exponent && point >= 2) {
    // With EEEE one integer digit is written, whatever number the model has.
    elements.splice(0, point - 1);
    point = 1;
  }
  return { output: 'decimal', elements, decimalPoint: point, firstZero, integerDigits: digits - scale, scale, exponent, ...common };
}
