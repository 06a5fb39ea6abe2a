/** Encodings and hashes DuckDB lacks: base32 (RFC 4648, with padding), SHA-512 and FarmHash's Fingerprint64. */
import { createHash } from 'node:crypto';
import { bigqueryFingerprint } from 'farmhash-modern';
import { HostFunctionError } from './errors.js';

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

export function toBase32(bytes: Uint8Array): string {
  let out = '';
  let buffer = 0;
  let bits = 0;
  for (const byte of bytes) {
    buffer = (buffer << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(buffer >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += BASE32[(buffer << (5 - bits)) & 31];
  return out.padEnd(Math.ceil(out.length / 8) * 8, '=');
}

export function fromBase32(text: string): Uint8Array {
  const digits = text.replace(/=+$/, '');
  if (!/^[A-Z2-7]*$/i.test(digits) || text.length % 8 !== 0 && text.includes('=')) throw new HostFunctionError(`Failed to decode invalid base32 string: ${text}`);
  const out: number[] = [];
  let buffer = 0;
  let bits = 0;
  for (const digit of digits.toUpperCase()) {
    buffer = (buffer << 5) | BASE32.indexOf(digit);
    bits += 5;
    if (bits >= 8) {
      out.push((buffer >>> (bits - 8)) & 255);
      bits -= 8;
    }
  }
  return Uint8Array.from(out);
}

export function sha512(bytes: Uint8Array): Uint8Array {
  return new Uint8Array(createHash('sha512').update(bytes).digest());
}

/** FARM_FINGERPRINT: Fingerprint64 as BigQuery's signed INT64. */
export function farmFingerprint(bytes: Uint8Array): bigint {
  return bigqueryFingerprint(bytes);
}
