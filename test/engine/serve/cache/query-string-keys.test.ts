/**
 * The memo of query strings' cache keys (src/engine/query-keys.ts): whatever it remembers, a
 * query string's key must be the one reading it afresh gives, and a string that does not read
 * must fail every time.
 */
import { describe, expect, it } from 'vitest';
import { cacheKey } from '../../../../src/engine/serve/cache/key.js';
import { definitionVersion } from '../../../../src/engine/compile/compile.js';
import { CanneryError } from '../../../../src/core/errors.js';
import { readRequestParams } from '../../../../src/engine/serve/params.js';
import { createQueryKeys } from '../../../../src/engine/serve/cache/query-string-keys.js';
import type { EndpointDefinition } from '../../../../src/core/types.js';
import type { CompiledEndpoint } from '../../../../src/engine/compiled-endpoint.js';

function endpoint(overrides: Partial<EndpointDefinition> = {}): CompiledEndpoint {
  const definition: EndpointDefinition = {
    id: '5a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d',
    name: 'test.keys',
    description: 'unit test',
    language: 'bq_sql',
    query: 'select 1',
    params: {
      project: { type: 'string', required: true },
      limit: { type: 'integer', required: false },
      since: { type: 'string', required: false, format: 'date-time' },
    },
    max_rows: 10,
    cache: { ttl_seconds: 60 },
    sandbox: true,
    redact_pii: false,
    ...overrides,
  };
  // Only the definition and its version are read.
  return { definition, version: definitionVersion(definition) } as CompiledEndpoint;
}

/** The key of `query` read afresh, as the memo's first reading does. */
function freshKey(target: CompiledEndpoint, query: string, redactPii = false): string {
  const { values, sql } = readRequestParams(target.definition, new URLSearchParams(query));
  return cacheKey(target, { values, sql, redactPii });
}

describe('query-string cache keys', () => {
  const logs = endpoint();

  it('a remembered string gives the key reading it afresh gives', () => {
    const keys = createQueryKeys();
    for (const query of ['project=p1', 'project=p1&limit=5', 'limit=5&project=p1', 'project=p%201&since=2024-05-01T10:00:00%2B02:00', 'project=p1&sql=select+1']) {
      const first = keys.keyOf(logs, query, false);
      expect(first).toBe(freshKey(logs, query));
      expect(keys.keyOf(logs, query, false)).toBe(first);
    }
  });

  it('parameter order, an empty optional value and an absent one make one key', () => {
    const keys = createQueryKeys();
    const key = keys.keyOf(logs, 'project=p1', false);
    expect(keys.keyOf(logs, 'limit=&project=p1', false)).toBe(key);
    expect(keys.keyOf(logs, 'project=p1&limit=', false)).toBe(key);
    expect(keys.keyOf(logs, 'limit=3&project=p1', false)).toBe(keys.keyOf(logs, 'project=p1&limit=3', false));
  });

  it('the redaction flag and the definition are part of the key', () => {
    const keys = createQueryKeys();
    const plain = keys.keyOf(logs, 'project=p1', false);
    expect(keys.keyOf(logs, 'project=p1', true)).not.toBe(plain);
    expect(keys.keyOf(logs, 'project=p1', true)).toBe(freshKey(logs, 'project=p1', true));
    const changed = endpoint({ max_rows: 20 });
    expect(keys.keyOf(changed, 'project=p1', false)).not.toBe(plain);
    expect(keys.keyOf(changed, 'project=p1', false)).toBe(freshKey(changed, 'project=p1'));
  });

  it('one string read for many endpoints, versions and flags gives each its own key, in any order', () => {
    const keys = createQueryKeys();
    const targets = [logs, ...[20, 30, 40, 50, 60].map((max_rows) => endpoint({ max_rows })), endpoint({ name: 'test.other' })];
    // More readings of one string than it keeps: the early ones are read again when asked for.
    for (let round = 0; round < 3; round++) {
      for (const target of round === 1 ? [...targets].reverse() : targets) {
        for (const redact of [false, true]) expect(keys.keyOf(target, 'project=p1&limit=2', redact)).toBe(freshKey(target, 'project=p1&limit=2', redact));
      }
    }
  });

  it('a string that does not read fails every time, with the error reading gives', () => {
    const keys = createQueryKeys();
    for (const query of ['limit=5', 'project=p1&limit=x', 'project=p1&nope=1', 'project=p1&project=p2']) {
      for (let attempt = 0; attempt < 2; attempt++) {
        let thrown: unknown;
        try {
          keys.keyOf(logs, query, false);
        } catch (error) {
          thrown = error;
        }
        expect(thrown, query).toBeInstanceOf(CanneryError);
        expect(() => freshKey(logs, query)).toThrow((thrown as CanneryError).message);
      }
    }
  });

  it('long strings, and more strings than it keeps, still get their own keys', () => {
    const keys = createQueryKeys();
    const long = `project=p1&sql=${encodeURIComponent(`select 1 -- ${'x'.repeat(5000)}`)}`;
    expect(keys.keyOf(logs, long, false)).toBe(freshKey(logs, long));
    // Past the cap, the oldest are forgotten, and read again when asked for.
    for (let index = 0; index < 5000; index++) keys.keyOf(logs, `project=p${index}`, false);
    for (const index of [0, 1, 4999]) expect(keys.keyOf(logs, `project=p${index}`, false)).toBe(freshKey(logs, `project=p${index}`));
  });
});
