/** CANNERY_JWT_JWKS_FILE: the public keys of RS256 and ES256 tokens, a JSON Web Key Set (RFC 7517). */
import { readFile } from 'node:fs/promises';

export interface JsonWebKeys {
  keys: Record<string, unknown>[];
}

/** The set in the file; an error names the file and says what is wrong. */
export async function loadJwksFile(path: string): Promise<JsonWebKeys> {
  let data: unknown;
  try {
    data = JSON.parse(await readFile(path, 'utf8'));
  } catch (error) {
    throw new Error(`CANNERY_JWT_JWKS_FILE ${path}: ${(error as Error).message}`);
  }
  const keys = (data as { keys?: unknown } | null)?.keys;
  if (!Array.isArray(keys) || keys.length === 0 || !keys.every((key) => typeof key === 'object' && key !== null && typeof (key as { kty?: unknown }).kty === 'string')) {
    throw new Error(`CANNERY_JWT_JWKS_FILE ${path}: must be a JSON Web Key Set, {"keys": [{"kty": ..., ...}, ...]}, with one key at least`);
  }
  if (keys.some((key) => 'd' in (key as object))) {
    throw new Error(`CANNERY_JWT_JWKS_FILE ${path}: holds a private key ("d"); give the service the public keys only`);
  }
  return { keys: keys as Record<string, unknown>[] };
}
