/**
 * Fixed values reach cache warming (issue 26): a tenant's request under its key warms its own
 * entry, with its own project, and answers from it; no refresh runs for a value the key does not
 * fix. The real DuckDB backend behind the service, a fake clock driving warming.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { grantOf } from '../../src/access/grant.js';
import { scopedParams } from '../../src/access/scopes.js';
import { cachedEndpoint, startHarness, text, type Harness } from '../engine/serve/cache/harness.js';

const ENDPOINTS = {
  'tenant.yaml': cachedEndpoint('tenant.echo', '{ ttl_seconds: 900, warm_every_seconds: 300 }', ['project: { type: string, required: true }'], ['select @project as project']),
};

let harness: Harness;
afterEach(() => harness?.close());

describe('warming under fixed values', () => {
  it("refreshes each tenant's entry with the tenant's own project, and answers the tenant from it", async () => {
    harness = await startHarness({ endpoints: ENDPOINTS });
    const definition = harness.service.resolve('tenant.echo').definition;
    const tenants = ['abc', 'xyz'].map((project) => grantOf(`tenant-${project}`, [{ endpoint: '*', params: { project } }], undefined, `key tenant-${project}`));
    const ask = (index: number) => harness.query('tenant.echo', scopedParams(tenants[index]!, definition, []));
    expect([text(await ask(0)), text(await ask(1))]).toEqual(['{"result":[{"project":"abc"}]}', '{"result":[{"project":"xyz"}]}']);
    harness.backend.requests.length = 0;
    await harness.time.advance(300_000);
    expect(harness.backend.requests.map((request) => request.values.project).sort()).toEqual(['abc', 'xyz']);
    const [abc, xyz] = [await ask(0), await ask(1)];
    expect([abc.cache?.status, text(abc), xyz.cache?.status, text(xyz)]).toEqual(['HIT', '{"result":[{"project":"abc"}]}', 'HIT', '{"result":[{"project":"xyz"}]}']);
  });
});
