/** The schema line `new` and `init` write resolves where the file is kept. */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { schemaReference } from '../../src/cli/schema-reference.js';

const made: string[] = [];
afterAll(() => Promise.all(made.map((dir) => rm(dir, { recursive: true, force: true }))));

async function tree(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'cannery-schema-ref-'));
  made.push(dir);
  return dir;
}

const schemaIn = (root: string) => pathToFileURL(join(root, 'schemas', 'endpoint.schema.json'));

describe('schemaReference', () => {
  it("in cannery's own clone, the clone's schemas", async () => {
    const clone = await tree();
    expect(schemaReference(join(clone, 'endpoints'), join(clone, 'endpoints'), schemaIn(clone))).toBe('../schemas/endpoint.schema.json');
    expect(schemaReference(join(clone, 'endpoints', 'tests'), join(clone, 'endpoints'), schemaIn(clone))).toBe('../../schemas/endpoint.schema.json');
  });

  it('in a repository that installs cannery (or whose parent does), its node_modules', async () => {
    const repo = await tree();
    const installed = join(repo, 'node_modules', 'cannery');
    expect(schemaReference(join(repo, 'endpoints'), join(repo, 'endpoints'), schemaIn(installed))).toBe('../node_modules/cannery/schemas/endpoint.schema.json');
    const nested = join(repo, 'services', 'logs', 'endpoints');
    expect(schemaReference(join(nested, 'tests'), nested, schemaIn(installed))).toBe('../../../../node_modules/cannery/schemas/endpoint.schema.json');
  });

  it("run from npx's cache or a global install: where `npm install cannery` puts it, beside the repository's package.json", async () => {
    const cache = join(await tree(), '_npx', 'abc', 'node_modules', 'cannery');
    const repo = await tree();
    await mkdir(join(repo, 'api'), { recursive: true });
    await writeFile(join(repo, 'package.json'), '{}');
    const endpoints = join(repo, 'api', 'endpoints');
    expect(schemaReference(endpoints, endpoints, schemaIn(cache))).toBe('../../node_modules/cannery/schemas/endpoint.schema.json');
    // No package.json anywhere above: the folder above the endpoints.
    const bare = join(await tree(), 'endpoints');
    expect(schemaReference(bare, bare, schemaIn(cache))).toBe('../node_modules/cannery/schemas/endpoint.schema.json');
    expect(schemaReference(join(bare, 'tests'), bare, schemaIn(cache))).toBe('../../node_modules/cannery/schemas/endpoint.schema.json');
  });
});
