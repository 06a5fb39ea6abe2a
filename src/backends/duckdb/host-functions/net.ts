/**
 * BigQuery's NET functions of IP addresses: IPv4 and IPv6 text to and from BYTES in network byte
 * order (an IPv4-mapped IPv6 address written as BigQuery writes it), IPv4 to and from INT64,
 * network masks and truncation to a prefix. Text that is no address is an error, NULL with SAFE.
 */
import { HostFunctionError } from './errors.js';

function ipv4Bytes(text: string): number[] | undefined {
  const parts = text.split('.');
  if (parts.length !== 4 || !parts.every((part) => /^\d{1,3}$/.test(part) && Number(part) <= 255)) return undefined;
  return parts.map(Number);
}

function ipv6Bytes(text: string): number[] | undefined {
  let head = text;
  let tail: number[] = [];
  const dotted = /^(.*:)(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const v4 = ipv4Bytes(dotted[2]!);
    if (!v4) return undefined;
    head = `${dotted[1]}0:0`;
    tail = v4;
  }
  const halves = head.split('::');
  if (halves.length > 2) return undefined;
  const groups = (part: string) => (part === '' ? [] : part.split(':'));
  const [left, right = undefined] = halves.map(groups) as [string[], string[] | undefined];
  const all = [...left, ...(right ?? [])];
  if (!all.every((group) => /^[0-9a-fA-F]{1,4}$/.test(group))) return undefined;
  const missing = 8 - all.length;
  if (right === undefined ? missing !== 0 : missing < 1) return undefined;
  const words = right === undefined ? left : [...left, ...Array<string>(missing).fill('0'), ...right];
  const bytes = words.flatMap((word) => [parseInt(word, 16) >> 8, parseInt(word, 16) & 255]);
  if (tail.length) bytes.splice(12, 4, ...tail);
  return bytes;
}

/** NET.IP_FROM_STRING (NET.SAFE_IP_FROM_STRING: NULL for text that is no address). */
export function ipFromString(text: string, safe: boolean): Uint8Array | null {
  const bytes = text.includes(':') ? ipv6Bytes(text) : ipv4Bytes(text);
  if (bytes === undefined) {
    if (safe) return null;
    throw new HostFunctionError(`Invalid IP address: ${text}`);
  }
  return Uint8Array.from(bytes);
}

/** NET.IP_TO_STRING: 4 bytes dotted, 16 bytes as RFC 5952 text (an IPv4-mapped address with its dotted tail). */
export function ipToString(bytes: Uint8Array): string {
  if (bytes.length === 4) return [...bytes].join('.');
  if (bytes.length !== 16) throw new HostFunctionError(`Invalid IP address of ${bytes.length} bytes`);
  const words = Array.from({ length: 8 }, (_, index) => (bytes[index * 2]! << 8) | bytes[index * 2 + 1]!);
  if (words.slice(0, 5).every((word) => word === 0) && words[5] === 0xffff) return `::ffff:${[...bytes.slice(12)].join('.')}`;
  let best = { at: -1, length: 0 };
  for (let at = 0; at < 8; ) {
    if (words[at] !== 0) {
      at++;
      continue;
    }
    let end = at;
    while (end < 8 && words[end] === 0) end++;
    if (end - at > best.length && end - at > 1) best = { at, length: end - at };
    at = end;
  }
  const hex = words.map((word) => word.toString(16));
  if (best.at === -1) return hex.join(':');
  return `${hex.slice(0, best.at).join(':')}::${hex.slice(best.at + best.length).join(':')}`;
}

export function ipv4FromInt64(value: bigint): Uint8Array {
  if (value < -0x80000000n || value > 0xffffffffn) throw new HostFunctionError(`Invalid IPv4 address ${value}`);
  const unsigned = Number(BigInt.asUintN(32, value));
  return Uint8Array.from([unsigned >>> 24, (unsigned >>> 16) & 255, (unsigned >>> 8) & 255, unsigned & 255]);
}

export function ipv4ToInt64(bytes: Uint8Array): bigint {
  if (bytes.length !== 4) throw new HostFunctionError(`Invalid IPv4 address of ${bytes.length} bytes`);
  return BigInt(((bytes[0]! << 24) >>> 0) + (bytes[1]! << 16) + (bytes[2]! << 8) + bytes[3]!);
}

function prefixMask(length: number, prefix: number): Uint8Array {
  return Uint8Array.from({ length }, (_, index) => {
    const bits = Math.max(0, Math.min(8, prefix - index * 8));
    return (0xff << (8 - bits)) & 0xff;
  });
}

export function ipNetMask(outputBytes: bigint, prefix: bigint): Uint8Array {
  if (outputBytes !== 4n && outputBytes !== 16n) throw new HostFunctionError('NET.IP_NET_MASK takes 4 or 16 output bytes');
  if (prefix < 0n || prefix > outputBytes * 8n) throw new HostFunctionError(`Invalid prefix length ${prefix}`);
  return prefixMask(Number(outputBytes), Number(prefix));
}

export function ipTrunc(bytes: Uint8Array, prefix: bigint): Uint8Array {
  if (bytes.length !== 4 && bytes.length !== 16) throw new HostFunctionError(`Invalid IP address of ${bytes.length} bytes`);
  if (prefix < 0n || prefix > BigInt(bytes.length * 8)) throw new HostFunctionError(`Invalid prefix length ${prefix}`);
  const mask = prefixMask(bytes.length, Number(prefix));
  return bytes.map((byte, index) => byte & mask[index]!);
}
