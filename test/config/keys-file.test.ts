/** The keys file (src/config/keys-file.ts, schemas/keys.schema.json): what it reads, and each problem at its file and line. */
import { describe, expect, it } from 'vitest';
import { parseKeysFile } from '../../src/config/keys-file.js';
import { formatProblem } from '../../src/config/problem-line.js';

const HASH = 'a'.repeat(64);
const OTHER = 'b'.repeat(64);

function problems(text: string): string[] {
  return parseKeysFile(text, 'keys.yaml').problems.map(formatProblem);
}

describe('keys file', () => {
  it('reads each key: defaults every endpoint and no fixed value; values as text, expiry as an instant', () => {
    const { keys, problems: found } = parseKeysFile(
      `# yaml-language-server: $schema=../schemas/keys.schema.json
keys:
  - name: studio-backend
    sha256: ${HASH}
  - name: tenant-abc
    sha256: ${OTHER}
    endpoints: [logs.all, usage.api-counts]
    params: { project: abc, limit: 10, strict: true }
    expires_at: 2027-01-01T00:00:00+01:00
    rate_per_second: 0.5
`,
      'keys.yaml',
    );
    expect(found).toEqual([]);
    expect(keys).toEqual([
      { name: 'studio-backend', sha256: HASH, endpoints: ['*'], params: {}, ingest: [] },
      {
        name: 'tenant-abc',
        sha256: OTHER,
        endpoints: ['logs.all', 'usage.api-counts'],
        params: { project: 'abc', limit: '10', strict: 'true' },
        expiresAt: Date.parse('2026-12-31T23:00:00Z'),
        ratePerSecond: 0.5,
        ingest: [],
      },
    ]);
  });

  it('an ingest-only key: no endpoint, the sources it may send to', () => {
    const { keys } = parseKeysFile(`keys:\n  - name: shipper\n    sha256: ${HASH}\n    endpoints: []\n    ingest: [shop.orders, '*']\n`, 'keys.yaml');
    expect(keys).toEqual([{ name: 'shipper', sha256: HASH, endpoints: [], params: {}, ingest: ['shop.orders', '*'] }]);
  });

  it('an empty list, or none, allows no key', () => {
    expect(parseKeysFile('keys: []\n', 'keys.yaml').keys).toEqual([]);
    expect(parseKeysFile('keys:\n', 'keys.yaml').keys).toEqual([]);
  });

  it.each([
    [`keys:\n  - name: a\n    sha256: ${HASH.toUpperCase()}\n`, 'keys.yaml:3: sha256 must be the key\'s SHA-256 as 64 lowercase hex digits'],
    [`keys:\n  - name: a\n    sha256: my-secret-key\n`, 'keys.yaml:3: sha256 must be the key\'s SHA-256'],
    [`keys:\n  - name: a\n    sha256: ${HASH}\n    endpoint: [logs.all]\n`, 'keys.yaml:4: unknown field "keys[0].endpoint" (did you mean "endpoints"?'],
    [`keys:\n  - name: has space\n    sha256: ${HASH}\n`, "keys.yaml:2: a key's name is 1 to 64 letters"],
    [`keys:\n  - sha256: ${HASH}\n`, 'keys.yaml:2: missing required field "keys[0].name"'],
    [`keys:\n  - name: a\n    sha256: ${HASH}\n    ingest: [a, a]\n`, 'keys.yaml:4: keys[0].ingest'],
    [`keys:\n  - name: a\n    sha256: ${HASH}\n    params: { 1x: a }\n`, 'keys.yaml:4: parameter names are SQL identifiers'],
    [`keys:\n  - name: a\n    sha256: ${HASH}\n    params: { project: [a, b] }\n`, 'keys.yaml:4: keys[0].params.project must be a string or a number or true or false'],
    [`keys:\n  - name: a\n    sha256: ${HASH}\n    expires_at: 2027-01-01\n`, 'keys.yaml:4: expires_at must be an ISO 8601 timestamp with Z or an offset'],
    [`keys:\n  - name: a\n    sha256: ${HASH}\n    expires_at: 2027-02-30T00:00:00Z\n`, 'keys.yaml:4: keys[0].expires_at is not a date and time that exists'],
    [`keys:\n  - name: a\n    sha256: ${HASH}\n    rate_per_second: 0\n`, 'keys.yaml:4: keys[0].rate_per_second must be > 0'],
    [`keys:\n  - name: a\n    sha256: ${HASH}\n  - name: a\n    sha256: ${OTHER}\n`, 'keys.yaml:4: key name "a" is already used by keys[0]'],
    [`keys:\n  - name: a\n    sha256: ${HASH}\n  - name: b\n    sha256: ${HASH}\n`, 'keys.yaml:5: keys[1] has the same sha256 as keys[0]'],
    [`keys:\n  - name: a\n    sha256: ${HASH}\n    name: b\n`, 'keys.yaml:4: duplicate key "name" (first defined on line 2)'],
    ['- name: a\n', 'keys.yaml:1: the file must be a mapping with a list of keys'],
  ])('%j: %s', (text, message) => {
    const found = problems(text);
    expect(found.length, found.join('\n')).toBeGreaterThan(0);
    expect(found[0]).toContain(message);
  });
});
