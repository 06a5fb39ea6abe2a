/**
 * A NUMERIC or BIGNUMERIC on the wire, the same from every backend, by the rule INT64 keeps
 * (wire-integer.ts): a JSON number where a JSON reader's double reads back the same decimal
 * (`1.5`, `0.1`: any of 15 significant digits or fewer), otherwise the exact decimal string
 * (`"12345678901234567890.123456789"`), which BigQuery's REST API writes for every NUMERIC. A number
 * there would round to another value (12345678901234567000) with a 200, a wrong answer no caller could
 * tell (docs/http.md).
 */

/** `[-]digits[.digits]`, as both backends give a decimal's text. */
const DECIMAL = /^(-?)(\d+)(?:\.(\d+))?$/;

export function wireDecimal(text: string): number | string | undefined {
  const match = DECIMAL.exec(text);
  if (!match) return undefined;
  const [, sign = '', whole = '', fraction = ''] = match;
  const exact = canonical(sign, whole, fraction);
  const number = Number(text);
  // String(number) is the shortest text that reads back as this double: the decimal it stands for.
  return sameDecimal(exact, String(number)) ? number : exact;
}

/** The decimal without leading zeros of its units nor trailing zeros of its fraction (`-0.5`, `100`). */
function canonical(sign: string, whole: string, fraction: string): string {
  const units = whole.replace(/^0+(?=\d)/, '');
  const decimals = fraction.replace(/0+$/, '');
  const text = decimals ? `${units}.${decimals}` : units;
  return text === '0' ? '0' : sign + text;
}

/** Whether a canonical decimal and a JavaScript number's text (`1e-9`, `1.5e+21`) are one value. */
function sameDecimal(exact: string, numberText: string): boolean {
  const [mantissa = '', exponent] = numberText.split('e');
  if (exponent === undefined) return mantissa === exact;
  const negative = mantissa.startsWith('-');
  const [whole = '', fraction = ''] = (negative ? mantissa.slice(1) : mantissa).split('.');
  const digits = whole + fraction;
  // The point of `d.ddd` moved by the exponent.
  const point = whole.length + Number(exponent);
  const units = point <= 0 ? '0' : digits.slice(0, point).padEnd(point, '0');
  const decimals = point <= 0 ? '0'.repeat(-point) + digits : digits.slice(point);
  return canonical(negative ? '-' : '', units, decimals) === exact;
}
