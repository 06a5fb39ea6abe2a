/**
 * A double written as printf writes it: from its exact binary value, rounded half to even.
 * JavaScript's toFixed and toExponential round an exact tie (0.125, 2.5) away from zero, and
 * toFixed switches to e-notation from 1e21; BigQuery's FORMAT and CAST ... FORMAT are printf's.
 */

/** `value / 10^drop`, rounded: half away from zero, or half to even. */
export function roundDivide(value: bigint, drop: number, halfEven: boolean): bigint {
  if (drop <= 0) return value * 10n ** BigInt(-drop);
  const divisor = 10n ** BigInt(drop);
  const quotient = value / divisor;
  const twice = (value % divisor) * 2n;
  if (twice > divisor || (twice === divisor && (!halfEven || quotient % 2n === 1n))) return quotient + 1n;
  return quotient;
}

/** A finite double's exact magnitude as magnitude / 10^scale. */
export function exactDouble(value: number): { magnitude: bigint; scale: number } {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, Math.abs(value));
  const bits = view.getBigUint64(0);
  const biased = Number(bits >> 52n);
  const fraction = bits & ((1n << 52n) - 1n);
  const mantissa = biased === 0 ? fraction : fraction | (1n << 52n);
  const power = (biased === 0 ? 1 : biased) - 1075;
  if (power >= 0) return { magnitude: mantissa << BigInt(power), scale: 0 };
  // m / 2^k is m * 5^k / 10^k.
  return { magnitude: mantissa * 5n ** BigInt(-power), scale: -power };
}

/** A finite double's magnitude as odd * 2^power (0 as 0 * 2^0), in doubles: no BigInt. */
/** `magnitude / 10^scale` (exact) rounded to `digits` after the point: its digits, at least `digits + 1` of them. */
export function exactFixedDigits(magnitude: bigint, scale: number, digits: number, halfEven: boolean): string {
  return roundDivide(magnitude, scale - digits, halfEven).toString().padStart(digits + 1, '0');
}

/** `magnitude / 10^scale` (exact) in e-notation with `digits` after the mantissa's point: the mantissa's digits and the exponent. */
export function exactExponentDigits(magnitude: bigint, scale: number, digits: number, halfEven: boolean): { mantissa: string; exponent: number } {
  if (magnitude === 0n) return { mantissa: '0'.repeat(digits + 1), exponent: 0 };
  const count = magnitude.toString().length;
  let exponent = count - 1 - scale;
  let mantissa = roundDivide(magnitude, count - 1 - digits, halfEven);
  // 9.99 to one digit after the point is 10.0: one more place of exponent.
  if (mantissa >= 10n ** BigInt(digits + 1)) {
    mantissa /= 10n;
    exponent++;
  }
  return { mantissa: mantissa.toString(), exponent };
}

const BITS = new DataView(new ArrayBuffer(8));

function binary(value: number): { odd: number; power: number } {
  BITS.setFloat64(0, Math.abs(value));
  const high = BITS.getUint32(0);
  const low = BITS.getUint32(4);
  const biased = high >>> 20;
  const top = (high & 0xfffff) + (biased === 0 ? 0 : 0x100000);
  const power = (biased === 0 ? 1 : biased) - 1075;
  if (low === 0 && top === 0) return { odd: 0, power: 0 };
  // The trailing zero bits, from the lowest set bit of the low word or else the high one.
  const zeros = low !== 0 ? 31 - Math.clz32(low & -low) : 32 + 31 - Math.clz32(top & -top);
  return { odd: (top * 2 ** 32 + low) / 2 ** zeros, power: power + zeros };
}

const LOG10_5 = Math.log10(5);

/**
 * printf's `%.<digits>f` of a finite double's magnitude. JavaScript's toFixed is exact but for a
 * tie (the value's binary fraction ends exactly at the digit after the last: odd / 2^(digits+1))
 * and for 1e21 and up, where it writes e-notation: only those take BigInt's way.
 */
export function printfFixed(value: number, digits: number): string {
  const { power } = binary(value);
  if (value < 1e21 && digits <= 100 && power !== -(digits + 1)) return value.toFixed(digits);
  const { magnitude, scale } = exactDouble(value);
  const rounded = exactFixedDigits(magnitude, scale, digits, true);
  const cut = rounded.length - digits;
  return digits === 0 ? rounded : `${rounded.slice(0, cut)}.${rounded.slice(cut)}`;
}

/**
 * printf's `%.<digits>e` of a finite double's magnitude: its mantissa's digits and its exponent.
 * toExponential is exact but for a tie, which needs the value's exact decimal expansion to end, in
 * 5, at digits + 2 significant digits: odd * 5^-power (or the integer) that short. Only those take
 * BigInt's way.
 */
export function printfExponent(value: number, digits: number): { mantissa: string; exponent: number } {
  const { odd, power } = binary(value);
  const tie = power >= 0 ? value >= 10 ** (digits + 1) : Math.log10(odd) - power * LOG10_5 < digits + 2.5;
  if (!tie && digits <= 100) {
    const [mantissa, exponent] = value.toExponential(digits).split('e') as [string, string];
    return { mantissa: mantissa.replace('.', ''), exponent: Number(exponent) };
  }
  const { magnitude, scale } = exactDouble(value);
  return exactExponentDigits(magnitude, scale, digits, true);
}
