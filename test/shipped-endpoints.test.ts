/**
 * The suite tests the shipped endpoints from its own copy of their files, so the endpoints a user
 * adds to endpoints/ (as the README's tour suggests) never fail `npm test`.
 */
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { loadEndpointTests } from '../src/config/endpoint-tests-file.js';
import { loadOfflineRegistry } from '../src/cli/offline-registry.js';
import { copyShippedEndpoints, ENDPOINTS, SHIPPED_FILES } from './support/shipped-copy.js';
import { SHIPPED_ENDPOINTS } from './support/shipped-endpoints.js';
import { endpointText } from './support/endpoint-text.js';

const TEST_ROOT = fileURLToPath(new URL('./', import.meta.url));

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries.filter((entry) => entry.isFile()).map((entry) => relative(dir, join(entry.parentPath, entry.name))).sort();
}

const made: string[] = [];
afterAll(() => Promise.all(made.map((dir) => rm(dir, { recursive: true, force: true }))));

describe('the shipped endpoints the suite tests', () => {
  it('are a copy of exactly the shipped files, as endpoints/ has them', async () => {
    expect(await filesUnder(SHIPPED_ENDPOINTS)).toEqual([...SHIPPED_FILES].sort());
    for (const file of SHIPPED_FILES) expect(await readFile(join(SHIPPED_ENDPOINTS, file), 'utf8')).toBe(await readFile(join(ENDPOINTS, file), 'utf8'));
  });

  it("leave out a user's own endpoints and tests, even broken and failing ones", async () => {
    const user = await mkdtemp(join(tmpdir(), 'cannery-user-endpoints-'));
    made.push(user);
    copyShippedEndpoints(user);
    await writeFile(join(user, 'edge.mine.yaml'), endpointText('edge.mine', ['project: {type: string, required: true}'], ['select id from `cloudflare.logs.prod` where project = @project']));
    await writeFile(join(user, 'broken.yaml'), 'name: [unclosed\n');
    await mkdir(join(user, 'tests'), { recursive: true });
    await writeFile(join(user, 'tests', 'edge.mine.yaml'), 'endpoint: edge.mine\nnow: "2024-05-01T12:00:00Z"\ntests:\n  - name: fails\n    request: {params: {project: a}}\n    expect: {rows: [{id: nope}]}\n');

    const copy = join(user, 'suite-copy');
    copyShippedEndpoints(copy, user);
    expect(await filesUnder(copy)).toEqual([...SHIPPED_FILES].sort());
    const registry = await loadOfflineRegistry(copy);
    expect(registry.problems).toEqual([]);
    expect(registry.endpoints.map((endpoint) => endpoint.definition.name).sort()).toEqual(['logs.all', 'usage.api-counts']);
    expect((await loadEndpointTests(copy)).map((file) => relative(copy, file.file))).toEqual(['tests/logs.all.yaml', 'tests/usage.api-counts.yaml']);
  });

  it('are the only way a test reaches endpoints/ as a folder (a file by its name is fine)', async () => {
    const readers: string[] = [];
    for (const file of await filesUnder(TEST_ROOT)) {
      if (!file.endsWith('.ts') || file === 'support/shipped-copy.ts') continue;
      const text = await readFile(join(TEST_ROOT, file), 'utf8');
      if (/new URL\(['`](\.\.\/)+endpoints\/?['`]/.test(text)) readers.push(file);
    }
    expect(readers).toEqual([]);
  });
});
