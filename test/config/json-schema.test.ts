/**
 * The schemas' validators as the build writes them ahead of time (schemas/build.mjs) give what
 * ajv compiling the schema at run time gives, and one built from other text is not used.
 */
import { copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from '#yaml';
import { precompiledPath, schemaAjv, schemaHash, schemaValidator } from '../../src/config/json-schema.js';

const SCHEMAS = new URL('../../schemas/', import.meta.url);
const endpoint = parse(await readFile(new URL('../../endpoints/usage.api-counts.yaml', import.meta.url), 'utf8')) as Record<string, unknown>;

/** Valid, and invalid in each way the schema says (types, required, formats, extra keys, bounds). */
const DOCUMENTS: Record<string, unknown[]> = {
  'endpoint.schema.json': [
    endpoint,
    {},
    { ...endpoint, id: 'not-a-uuid', max_rows: -1, extra: true },
    { ...endpoint, params: { project: { type: 'strin', required: 'yes' } } },
    { ...endpoint, cache: { ttl_seconds: 'soon' }, sandbox: 1 },
    [],
    null,
  ],
  'keys.schema.json': [{}, { keys: [{ name: 1 }] }, { keys: 'all' }, []],
  'endpoint-tests.schema.json': [{}, { tests: [{ name: 'x', params: 3 }] }, { tests: 'none' }],
  'source.schema.json': [
    { name: 'shop.orders', columns: [{ name: 'items', type: 'RECORD', mode: 'REPEATED', fields: [{ name: 'sku', type: 'STRING' }] }] },
    {},
    { name: 'a b', columns: [{ name: '1x', type: 'MONEY', fields: [{}] }], bigquery: { table: 1 } },
  ],
};

const made: string[] = [];
afterAll(async () => Promise.all(made.map((dir) => rm(dir, { recursive: true, force: true }))));

describe('a precompiled validator', () => {
  for (const [name, documents] of Object.entries(DOCUMENTS)) {
    it(`of ${name} records the schema's text and answers as ajv compiling it now does`, async () => {
      const text = await readFile(new URL(name, SCHEMAS), 'utf8');
      const built = (await import(pathToFileURL(precompiledPath(name)).href)) as { default: { schemaHash: string } };
      expect(built.default.schemaHash).toBe(schemaHash(text));
      const compiled = schemaAjv().compile(JSON.parse(text) as object);
      const validate = schemaValidator(new URL(name, SCHEMAS));
      for (const document of documents) {
        const now = structuredClone(document);
        const expected = compiled(now) ? [] : (compiled.errors ?? []);
        const ahead = structuredClone(document);
        expect(validate(ahead)).toEqual(expected);
        // Defaults are filled in the same way.
        expect(ahead).toEqual(now);
      }
    });
  }

  it('is not used for a schema whose text changed since the build', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'cannery-schema-'));
    made.push(dir);
    const file = join(dir, 'endpoint.schema.json');
    await copyFile(new URL('endpoint.schema.json', SCHEMAS), file);
    const schema = JSON.parse(await readFile(file, 'utf8')) as { properties: { max_rows: { maximum?: number } } };
    schema.properties.max_rows.maximum = 5;
    await writeFile(file, JSON.stringify(schema));
    const errors = schemaValidator(pathToFileURL(file))({ ...endpoint, max_rows: 6 });
    expect(errors.map((error) => error.instancePath)).toContain('/max_rows');
    expect(schemaValidator(new URL('endpoint.schema.json', SCHEMAS))({ ...endpoint, max_rows: 6 })).toEqual([]);
  });
});
