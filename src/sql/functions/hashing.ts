/**
 * Hash functions: each of a STRING's UTF-8 bytes or of BYTES, giving BYTES (DuckDB's md5, sha1
 * and sha256 give hex text; SHA-512 is a host function), and FARM_FINGERPRINT, FarmHash's
 * Fingerprint64 as a signed INT64 (a host function).
 */
import { hostCall } from '../dialects/duckdb/host-functions.js';
import { scalar, type FunctionSpec, type Render } from './call.js';
import { bytesOf } from './strings.js';

function hexDigest(duckName: 'md5' | 'sha1' | 'sha256'): Render {
  return (call) => `unhex(${duckName}(${bytesOf(call, 0)}))`;
}

export const HASH_FUNCTIONS: ReadonlyMap<string, FunctionSpec> = new Map<string, FunctionSpec>([
  ['md5', scalar('the MD5 digest (16 bytes) of a STRING\'s UTF-8 bytes or of BYTES', [1, 1], hexDigest('md5'), { returns: 'bytes' })],
  ['sha1', scalar('the SHA-1 digest (20 bytes)', [1, 1], hexDigest('sha1'), { returns: 'bytes' })],
  ['sha256', scalar('the SHA-256 digest (32 bytes)', [1, 1], hexDigest('sha256'), { returns: 'bytes' })],
  ['sha512', scalar('the SHA-512 digest (64 bytes)', [1, 1], (call) => hostCall('sha512', bytesOf(call, 0)), { returns: 'bytes' })],
  ['farm_fingerprint', scalar('FarmHash Fingerprint64 of a STRING\'s UTF-8 bytes or of BYTES, as a signed INT64', [1, 1], (call) => hostCall('farm_fingerprint', bytesOf(call, 0)), { returns: 'int64' })],
]);
