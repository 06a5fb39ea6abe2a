/**
 * API key checks (the credential a request presents, src/http/auth.ts, as src/access/access.ts
 * admits it), below HTTP: every near miss of a key is refused, whichever of several keys it nears. The comparison runs over the whole key whatever is presented; that
 * it takes the same time is a property of the code (no early exit), not something a unit test
 * can time reliably.
 */
import { describe, expect, it } from 'vitest';
import { createAccess } from '../../src/access/access.js';
import { presentedCredential, type HeaderReader } from '../../src/http/auth.js';
import { CanneryError } from '../../src/core/errors.js';

const KEYS = ['k3y-One', 'a-much-longer-second-key-0123456789', 'Third~key!'];
const access = createAccess({ apiKeys: KEYS });
const check = (headers: HeaderReader) => access.admit(presentedCredential(headers));

/** Headers as a reader, so that values fetch's Headers would refuse (a NUL) can be presented too. */
function outcome(headers: Record<string, string>): string {
  try {
    check({ get: (name) => headers[name] ?? null });
    return 'accepted';
  } catch (error) {
    expect(error).toBeInstanceOf(CanneryError);
    return (error as CanneryError).message;
  }
}

describe('API keys', () => {
  it('accepts each key, in either header, with the whitespace HTTP allows around it, named by its place in the list', () => {
    expect(access.admit(KEYS[1]!)).toMatchObject({ name: 'api-key-2', unscoped: true });
    for (const key of KEYS) {
      expect(outcome({ 'x-api-key': key })).toBe('accepted');
      expect(outcome({ authorization: `Bearer ${key}` })).toBe('accepted');
      expect(outcome({ authorization: `bearer   ${key}  ` })).toBe('accepted');
    }
  });

  it('refuses every near miss of every key', () => {
    const nearMisses = KEYS.flatMap((key) => [
      key.slice(0, -1),
      `${key}x`,
      `x${key}`,
      key.slice(1),
      `${key.slice(0, -1)}${String.fromCharCode(key.charCodeAt(key.length - 1) + 1)}`,
      `${String.fromCharCode(key.charCodeAt(0) ^ 0x20)}${key.slice(1)}`,
      key.toUpperCase(),
      `${key}\u0000`,
      `${key.slice(0, -1)}\u0000`,
    ]);
    for (const presented of [...nearMisses, 'x', '\u0000', KEYS.join(''), KEYS.join(',')]) {
      if (KEYS.includes(presented)) continue;
      expect(outcome({ 'x-api-key': presented }), JSON.stringify(presented)).toBe('invalid API key');
    }
  });

  it('a missing key and a non-Bearer Authorization are missing keys', () => {
    expect(outcome({})).toMatch(/^missing API key/);
    expect(outcome({ authorization: `Basic ${KEYS[0]}` })).toMatch(/^missing API key/);
    expect(outcome({ 'x-api-key': '' })).toMatch(/^missing API key/);
  });

  it('with no keys configured, nothing is accepted', () => {
    expect(() => createAccess({ apiKeys: [] }).admit('anything')).toThrow('invalid API key');
  });
});
