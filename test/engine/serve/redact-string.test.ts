/**
 * The output redactor (src/engine/serve/redact.ts) on the cases of redaction-cases.ts. Unchanged
 * cases must also come back as the very same string.
 */
import { describe, expect, it } from 'vitest';
import { redactString } from '../../../src/engine/serve/redact.js';
import { EMAIL, IPV4, IPV6, MIXED } from './redaction-cases.js';

describe.each([
  ['IPv4', IPV4],
  ['IPv6', IPV6],
  ['e-mail', EMAIL],
  ['mixed', MIXED],
])('%s', (_kind, cases) => {
  it.each(cases)('%s: %j', (_about, input, expected) => {
    const output = redactString(input);
    if (expected === null) expect(output).toBe(input);
    else expect(output).toBe(expected);
  });
});

it('the table has at least 40 cases', () => {
  expect(IPV4.length + IPV6.length + EMAIL.length + MIXED.length).toBeGreaterThanOrEqual(40);
});

describe('pathological input stays linear', () => {
  it('a long run of colon-separated numbers', () => {
    const text = Array.from({ length: 20_000 }, (_, index) => index % 100).join(':');
    expect(redactString(text)).toBe(text);
  });

  it('many @ signs and dotted numbers', () => {
    const text = 'a@'.repeat(20_000) + '1.'.repeat(20_000);
    expect(redactString(text)).toBe(text);
  });
});
