/**
 * A stored result as the fields of a Redis hash: what an operator sees with HGETALL, and what
 * every replica reads back. Bodies past COMPRESS_ABOVE_BYTES are gzipped (JSON shrinks five to
 * ten times), off the event loop; smaller ones cost less to send than to compress.
 */
import { promisify } from 'node:util';
import { gunzip, gzip } from 'node:zlib';
import type { StoredResult } from '../../engine/serve/cache/shared-store.js';

export const COMPRESS_ABOVE_BYTES = 16 * 1024;

const gzipAsync = promisify(gzip);
const gunzipAsync = promisify(gunzip);

/** Field names and values, in the order HSET takes them. */
export type EntryFields = [string, string | Buffer][];

export async function encodeEntry(result: StoredResult): Promise<EntryFields> {
  const compressed = result.body.byteLength > COMPRESS_ABOVE_BYTES;
  const body = compressed ? await gzipAsync(result.body) : Buffer.from(result.body.buffer, result.body.byteOffset, result.body.byteLength);
  return [
    ['body', body],
    ['encoding', compressed ? 'gzip' : 'identity'],
    ['rows', String(result.rows)],
    ['etag', result.etag],
    ['created_at', String(result.computedAt)],
    ['ttl_ms', String(result.ttlMs)],
  ];
}

/** A hash's fields from a script's reply: field, value, field, value ... (HGETALL as Lua sees it). */
export function fieldsOf(reply: Buffer[]): Map<string, Buffer> {
  const fields = new Map<string, Buffer>();
  for (let index = 0; index + 1 < reply.length; index += 2) fields.set(reply[index]!.toString('latin1'), reply[index + 1]!);
  return fields;
}

/** The result in a hash's fields; undefined for none, or for one this version cannot read. */
export async function decodeEntry(fields: Map<string, Buffer>): Promise<StoredResult | undefined> {
  if (fields.size === 0) return undefined;
  const body = fields.get('body');
  const encoding = fields.get('encoding')?.toString('latin1');
  const rows = Number(fields.get('rows')?.toString('latin1'));
  const etag = fields.get('etag')?.toString('latin1');
  const computedAt = Number(fields.get('created_at')?.toString('latin1'));
  const ttlMs = Number(fields.get('ttl_ms')?.toString('latin1'));
  if (!body || etag === undefined || !Number.isInteger(rows) || !Number.isFinite(computedAt) || !Number.isFinite(ttlMs)) return undefined;
  if (encoding !== 'gzip' && encoding !== 'identity') return undefined;
  // A copy: a reply's buffer may be a slice of a larger one, which a kept entry would hold on to.
  return { body: encoding === 'gzip' ? await gunzipAsync(body) : Buffer.from(body), rows, etag, computedAt, ttlMs };
}
