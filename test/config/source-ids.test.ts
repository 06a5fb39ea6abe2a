/**
 * Sources' UUIDs (Logflare's `source=`, docs/ingest.md): the shipped ones fixed in code, a file's
 * `id:` as declared, else one made from the name that is the same on every machine; two sources
 * with one UUID refused at the file that repeats it.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseSourceFile } from '../../src/config/source-files.js';
import { readProjectSources } from '../../src/config/source-model.js';
import { sourceFileText } from '../../src/config/source-text.js';
import { BUILT_IN_DECLARATIONS, sourceId } from '../../src/config/sources.js';

const ORDERS = 'name: shop.orders\ncolumns:\n  - { name: order_id, type: STRING }\n';
const ID = '0b0f5b9e-1c2d-4e3f-8a9b-0c1d2e3f4a5b';

let dir: string | undefined;
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

async function folder(files: Record<string, string>): Promise<string> {
  dir = await mkdtemp(join(tmpdir(), 'cannery-source-ids-'));
  for (const [name, text] of Object.entries(files)) await writeFile(join(dir, name), text);
  return dir;
}

describe('source UUIDs', () => {
  it('the shipped sources have fixed, distinct UUIDs; a declared one without `id:` has a version-5 UUID of its lowercased name', () => {
    const shipped = Object.fromEntries(BUILT_IN_DECLARATIONS.map((declaration) => [declaration.name, sourceId(declaration)]));
    expect(shipped['gotrue.logs.prod']).toBe('7dbf360d-809b-4065-9581-d9fc6b8eb093');
    expect(new Set(Object.values(shipped)).size).toBe(9);
    const { declaration } = parseSourceFile(ORDERS, 'shop.orders.yaml');
    expect(declaration!.id).toBeUndefined();
    // Pinned: a machine or a release that made another would break every shipper configured with it.
    expect(sourceId(declaration!)).toBe('2381fbc6-e9bf-5cbd-b980-1bb04530ec62');
    expect(sourceId({ name: 'Shop.Orders' })).toBe('2381fbc6-e9bf-5cbd-b980-1bb04530ec62');
  });

  it('a file declares its own `id:`, written back by the source file text; an id not a lowercase UUID is refused at its line', () => {
    const { declaration } = parseSourceFile(`id: ${ID}\n${ORDERS}`, 'shop.orders.yaml');
    expect(sourceId(declaration!)).toBe(ID);
    expect(parseSourceFile(sourceFileText(declaration!, 'x.json', []), 'again.yaml').declaration).toMatchObject({ id: ID, name: 'shop.orders' });
    const { problems } = parseSourceFile(`id: ${ID.toUpperCase()}\n${ORDERS}`, 'shop.orders.yaml');
    expect(problems).toEqual([expect.objectContaining({ line: 1, message: expect.stringContaining('id must be a lowercase UUID') })]);
  });

  it("refuses a second source with one UUID, a shipped source's included; a project copy of a shipped file is still that source", async () => {
    const shippedFile = await readFile(BUILT_IN_DECLARATIONS.find((declaration) => declaration.name === 'gotrue.logs.prod')!.file!, 'utf8');
    const project = await readProjectSources(
      await folder({
        'a.yaml': `id: ${ID}\n${ORDERS}`,
        'b.yaml': `id: ${ID}\nname: shop.refunds\ncolumns:\n  - { name: refund_id, type: STRING }\n`,
        'c.yaml': `id: 7dbf360d-809b-4065-9581-d9fc6b8eb093\nname: shop.carts\ncolumns:\n  - { name: cart_id, type: STRING }\n`,
        'gotrue.logs.prod.yaml': shippedFile,
      }),
    );
    expect(project.sources.map((source) => source.name)).toEqual(['shop.orders', 'shop.refunds', 'shop.carts']);
    expect(project.problems.map((problem) => `${problem.file.split('/').pop()}:${problem.line}: ${problem.message}`)).toEqual([
      `b.yaml:2: source shop.refunds has the id ${ID} of source shop.orders; give each source its own UUID`,
      'c.yaml:2: source shop.carts has the id 7dbf360d-809b-4065-9581-d9fc6b8eb093 of source gotrue.logs.prod; give each source its own UUID',
    ]);
  });
});
