import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { parseEndpointFile } from '../../src/config/endpoint-file.js';
import { listEndpointFiles, rejectDuplicates, type LoadedEndpointFile } from '../../src/config/endpoint-folder.js';
import { readEndpointText } from '../../src/config/endpoint-text.js';
import { SHIPPED_ENDPOINTS } from '../support/shipped-endpoints.js';

const made: string[] = [];
afterEach(async () => {
  await Promise.all(made.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

/** A temporary folder holding the given files (name -> text). */
async function folder(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'cannery-endpoints-'));
  made.push(dir);
  await Promise.all(Object.entries(files).map(([name, text]) => writeFile(join(dir, name), text)));
  return dir;
}

function endpoint(id: string, name: string): string {
  return [
    `id: ${id}`,
    `name: ${name}`,
    'description: A test endpoint.',
    'language: bq_sql',
    'max_rows: 10',
    'cache: false',
    'sandbox: false',
    'redact_pii: false',
    'params: {}',
    'query: select 1 as one',
    '',
  ].join('\n');
}

/** Each file of `dir` read and parsed, then duplicates across them rejected: what a load does before compiling. */
async function loadEndpointFolder(dir: string): Promise<{ files: LoadedEndpointFile[] }> {
  const texts = await Promise.all((await listEndpointFiles(dir)).map(readEndpointText));
  const files = texts.map(({ file, text, problem }): LoadedEndpointFile => (problem ? { file, problems: [problem], queryLine: 0, fieldLines: {} } : { file, ...parseEndpointFile(text, file) }));
  rejectDuplicates(files);
  return { files };
}

const ID_A = '11111111-1111-4111-8111-111111111111';
const ID_B = '22222222-2222-4222-8222-222222222222';
const ID_C = '33333333-3333-4333-8333-333333333333';

describe('endpoint folder', () => {
  test('the shipped endpoints folder loads without problems', async () => {
    const { files } = await loadEndpointFolder(SHIPPED_ENDPOINTS);
    expect(files.map((f) => f.file.split('/').pop())).toEqual(['logs.all.yaml', 'usage.api-counts.yaml']);
    expect(files.flatMap((f) => f.problems)).toEqual([]);
    expect(files.map((f) => f.definition?.name)).toEqual(['logs.all', 'usage.api-counts']);
  });

  test('reads *.yaml and *.yml directly inside the folder, sorted, and nothing else', async () => {
    const dir = await folder({
      'b.yml': endpoint(ID_B, 'b'),
      'a.yaml': endpoint(ID_A, 'a'),
      'notes.txt': 'not an endpoint',
      '.a.yaml.swp': 'editor swap file',
    });
    await mkdir(join(dir, 'nested.yaml'));
    await writeFile(join(dir, 'nested.yaml', 'c.yaml'), endpoint(ID_C, 'c'));
    const { files } = await loadEndpointFolder(dir);
    expect(files.map((f) => f.file)).toEqual([join(dir, 'a.yaml'), join(dir, 'b.yml')]);
    expect(files.every((f) => f.definition && f.problems.length === 0)).toBe(true);
  });

  test('a problem in one file does not hide the others', async () => {
    const dir = await folder({ 'a.yaml': endpoint(ID_A, 'a'), 'b.yaml': 'id: [' });
    const { files } = await loadEndpointFolder(dir);
    expect(files[0]!.definition?.name).toBe('a');
    expect(files[1]!.problems).toHaveLength(1);
    expect(files[1]!.problems[0]!.file).toBe(join(dir, 'b.yaml'));
  });

  test('a repeated id is a problem on the later file, naming the first', async () => {
    const dir = await folder({ 'a.yaml': endpoint(ID_A, 'a'), 'b.yaml': endpoint(ID_A, 'b') });
    const [a, b] = (await loadEndpointFolder(dir)).files;
    expect(a!.problems).toEqual([]);
    expect(a!.definition?.name).toBe('a');
    expect(b!.definition).toBeUndefined();
    expect(b!.problems).toEqual([
      { file: join(dir, 'b.yaml'), line: 1, field: 'id', message: `id ${ID_A} is already used by ${join(dir, 'a.yaml')}:1` },
    ]);
  });

  test('a repeated name is a problem on the later file, naming the first', async () => {
    const dir = await folder({
      'a.yaml': endpoint(ID_A, 'usage.counts'),
      'b.yaml': endpoint(ID_B, 'other'),
      'c.yaml': `# yaml-language-server: $schema=../schemas/endpoint.schema.json\n${endpoint(ID_C, 'usage.counts')}`,
    });
    const [, b, c] = (await loadEndpointFolder(dir)).files;
    expect(b!.problems).toEqual([]);
    expect(c!.definition).toBeUndefined();
    expect(c!.problems).toEqual([
      { file: join(dir, 'c.yaml'), line: 3, field: 'name', message: `name usage.counts is already used by ${join(dir, 'a.yaml')}:2` },
    ]);
  });

  test('a missing folder is an error naming the path', async () => {
    const dir = join(tmpdir(), 'cannery-no-such-folder', 'endpoints');
    await expect(loadEndpointFolder(dir)).rejects.toThrow(`endpoint folder ${dir} does not exist`);
  });

  test('a file where a folder is expected is an error naming the path', async () => {
    const dir = await folder({ 'a.yaml': endpoint(ID_A, 'a') });
    const file = join(dir, 'a.yaml');
    await expect(loadEndpointFolder(file)).rejects.toThrow(`endpoint folder ${file} is not a folder`);
  });
});
