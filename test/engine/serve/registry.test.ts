/**
 * Finding an endpoint (src/engine/serve/registry.ts): by exact name, or by id in any letter case; the
 * registry keeps the last name it found, and must answer the same whatever came before.
 */
import { describe, expect, it } from 'vitest';
import { createRegistry } from '../../../src/engine/serve/registry.js';
import type { CompiledEndpoint } from '../../../src/engine/compiled-endpoint.js';

const endpoint = (id: string, name: string) => ({ definition: { id, name }, version: `${name}-v1` }) as unknown as CompiledEndpoint;

describe('registry', () => {
  it('finds by name and by id in any case, not by a near name, in any order of asking', () => {
    const logs = endpoint('5a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d', 'logs.all');
    const usage = endpoint('0f0e0d0c-0b0a-4909-8807-060504030201', 'usage.api-counts');
    const registry = createRegistry([logs, usage]);
    const asks: [string, CompiledEndpoint | undefined][] = [
      ['logs.all', logs],
      ['logs.all', logs],
      ['usage.api-counts', usage],
      ['LOGS.ALL', undefined],
      ['logs.all', logs],
      ['5A1B2C3D-4E5F-4A6B-8C7D-9E0F1A2B3C4D', logs],
      ['0f0e0d0c-0b0a-4909-8807-060504030201', usage],
      ['logs.al', undefined],
      ['logs.al', undefined],
      ['usage.api-counts', usage],
      ['5a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d', logs],
    ];
    for (const [name, expected] of asks) expect(registry.find(name), name).toBe(expected);
  });
});
