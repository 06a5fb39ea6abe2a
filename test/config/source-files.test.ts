/** Source files (src/config/source-files.ts, schemas/source.schema.json): what a file is read into, and each problem at its file and line. */
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { formatProblem } from '../../src/config/problem-line.js';
import { SourceFolderError, loadSourceFolder, parseSourceFile, readSourceFolder } from '../../src/config/source-files.js';

function problems(text: string): string[] {
  return parseSourceFile(text, 'shop.yaml').problems.map(formatProblem);
}

const ORDERS = `# yaml-language-server: $schema=../schemas/source.schema.json
name: shop.orders
description: One row per order.
time_column: created_at
columns:
  - { name: order_id, type: STRING, mode: REQUIRED }
  - { name: customer, type: STRING }
  - { name: total, type: NUMERIC }
  - { name: created_at, type: TIMESTAMP, mode: REQUIRED }
  - { name: tags, type: STRING, mode: REPEATED }
  - name: items
    type: RECORD
    mode: REPEATED
    fields: [ { name: sku, type: STRING }, { name: qty, type: INT64 } ]
bigquery:
  table: my-project.shop.orders
`;

describe('source file', () => {
  it("reads the issue's example: modes filled in, time column and BigQuery table, each field's line", () => {
    const result = parseSourceFile(ORDERS, 'sources/shop.orders.yaml');
    expect(result.problems).toEqual([]);
    expect(result.declaration).toEqual({
      name: 'shop.orders',
      description: 'One row per order.',
      timeColumn: 'created_at',
      bigqueryTable: 'my-project.shop.orders',
      file: 'sources/shop.orders.yaml',
      columns: [
        { name: 'order_id', type: 'STRING', mode: 'REQUIRED' },
        { name: 'customer', type: 'STRING', mode: 'NULLABLE' },
        { name: 'total', type: 'NUMERIC', mode: 'NULLABLE' },
        { name: 'created_at', type: 'TIMESTAMP', mode: 'REQUIRED' },
        { name: 'tags', type: 'STRING', mode: 'REPEATED' },
        {
          name: 'items',
          type: 'RECORD',
          mode: 'REPEATED',
          fields: [
            { name: 'sku', type: 'STRING', mode: 'NULLABLE' },
            { name: 'qty', type: 'INT64', mode: 'NULLABLE' },
          ],
        },
      ],
    });
    expect(result.fieldLines).toMatchObject({ name: 2, order_id: 6, created_at: 9, items: 11, 'items.sku': 14, 'items.qty': 14 });
  });

  it("reads BigQuery's legacy type names as the standard ones, nested too", () => {
    const { declaration, problems: found } = parseSourceFile(
      `name: legacy
columns:
  - { name: a, type: INTEGER }
  - { name: b, type: FLOAT }
  - { name: c, type: BOOLEAN }
  - { name: d, type: DECIMAL }
  - { name: e, type: BIGDECIMAL }
  - name: s
    type: STRUCT
    fields: [ { name: n, type: INTEGER, mode: REPEATED, description: counts } ]
`,
      'legacy.yaml',
    );
    expect(found).toEqual([]);
    expect(declaration?.columns.map((c) => c.type)).toEqual(['INT64', 'FLOAT64', 'BOOL', 'NUMERIC', 'BIGNUMERIC', 'RECORD']);
    expect(declaration?.columns[5]?.fields).toEqual([{ name: 'n', type: 'INT64', mode: 'REPEATED', description: 'counts' }]);
  });

  it('names the file and line of each schema problem, in words', () => {
    expect(
      problems(`name: shop orders
colums: []
`),
    ).toEqual([
      'shop.yaml:1: missing required field "columns"',
      'shop.yaml:1: name must be letters, digits and _ in segments joined by . or - (e.g. shop.orders) (got "shop orders")',
      'shop.yaml:2: unknown field "colums" (did you mean "columns"? allowed: id, name, description, time_column, columns, bigquery)',
    ]);
    expect(
      problems(`name: shop.orders
columns:
  - { name: id, type: STRING }
  - { name: total, type: MONEY, mod: NULLABLE }
`).sort(),
    ).toEqual([
      'shop.yaml:4: columns[1].type must be one of: STRING, BYTES, INT64, FLOAT64, NUMERIC, BIGNUMERIC, BOOL, TIMESTAMP, DATE, DATETIME, TIME, JSON, RECORD, INTEGER, FLOAT, BOOLEAN, STRUCT, DECIMAL, BIGDECIMAL (got "MONEY")',
      'shop.yaml:4: unknown field "columns[1].mod" (did you mean "mode"? allowed: name, type, mode, description, fields)',
    ]);
  });

  it('refuses a RECORD without fields, fields on a scalar, and a name twice in one record (ignoring case)', () => {
    expect(
      problems(`name: shop.orders
columns:
  - { name: id, type: STRING }
  - { name: ID, type: INT64 }
  - { name: items, type: RECORD, mode: REPEATED }
  - name: address
    type: STRING
    fields: [ { name: city, type: STRING } ]
  - name: buyer
    type: STRUCT
    fields:
      - { name: name, type: STRING }
      - { name: name, type: STRING }
`),
    ).toEqual([
      'shop.yaml:4: column ID is declared twice (first on line 3); names are unique within a record, ignoring case, as in BigQuery',
      'shop.yaml:5: column items is a RECORD and must list its fields',
      'shop.yaml:8: column address is a STRING: only a RECORD has fields',
      'shop.yaml:13: column buyer.name is declared twice (first on line 12); names are unique within a record, ignoring case, as in BigQuery',
    ]);
  });

  it('takes as time_column only a top-level TIMESTAMP, DATE or DATETIME column that is not REPEATED', () => {
    const at = (timeColumn: string) =>
      problems(`name: t
time_column: ${timeColumn}
columns:
  - { name: day, type: DATE }
  - { name: at, type: DATETIME, mode: REPEATED }
  - { name: label, type: STRING }
  - { name: nested, type: RECORD, fields: [ { name: ts, type: TIMESTAMP } ] }
`);
    expect(at('day')).toEqual([]);
    expect(at('label')).toEqual(['shop.yaml:2: time_column label must be a TIMESTAMP, DATE, DATETIME column (it is STRING)']);
    expect(at('at')).toEqual(['shop.yaml:2: time_column at must not be REPEATED: each row needs one time to be ordered by']);
    expect(at('nested.ts')).toEqual(['shop.yaml:2: time_column nested.ts is not a column of this source (columns: day, at, label, nested)']);
  });

  it('names YAML syntax errors and a malformed BigQuery table at their lines', () => {
    expect(problems('name: [unclosed\n')).toHaveLength(1);
    expect(problems('name: x\ncolumns: [ { name: a, type: STRING } ]\nbigquery: { table: "a`b" }\n')).toEqual([
      'shop.yaml:3: bigquery.table must be project.dataset.table or dataset.table (e.g. my-project.shop.orders) (got "a`b")',
    ]);
  });
});

describe('source folder', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'cannery-sources-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('loads every YAML file by file name, skipping dot files and subfolders; a missing folder declares nothing', async () => {
    await writeFile(join(dir, 'b.yaml'), 'name: b\ncolumns: [ { name: x, type: INT64 } ]\n');
    await writeFile(join(dir, 'a.yml'), 'name: a\ncolumns: [ { name: x, type: STRING } ]\n');
    await writeFile(join(dir, '.a.yaml.swp'), 'not yaml: [');
    await mkdir(join(dir, 'sub'));
    await writeFile(join(dir, 'sub', 'c.yaml'), 'name: c\ncolumns: [ { name: x, type: STRING } ]\n');
    const sources = await loadSourceFolder(dir);
    expect(sources.map((s) => [s.name, s.file])).toEqual([
      ['a', join(dir, 'a.yml')],
      ['b', join(dir, 'b.yaml')],
    ]);
    expect(await loadSourceFolder(join(dir, 'absent'))).toEqual([]);
  });

  it('refuses a second file declaring a name (ignoring case), naming both files; loading throws with every problem', async () => {
    await writeFile(join(dir, 'a.yaml'), '# orders\nname: shop.orders\ncolumns: [ { name: x, type: STRING } ]\n');
    await writeFile(join(dir, 'b.yaml'), 'name: Shop.Orders\ncolumns: [ { name: x, type: STRING } ]\n');
    await writeFile(join(dir, 'c.yaml'), 'name: broken\ncolumns: [ { name: x, type: RECORD } ]\n');
    const { sources, problems: found } = await readSourceFolder(dir);
    expect(sources.map((s) => s.name)).toEqual(['shop.orders']);
    expect(found.map(formatProblem)).toEqual([
      `${join(dir, 'b.yaml')}:1: source Shop.Orders is already declared by ${join(dir, 'a.yaml')}:2 (name)`,
      `${join(dir, 'c.yaml')}:2: column x is a RECORD and must list its fields`,
    ]);
    const error = await loadSourceFolder(dir).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SourceFolderError);
    expect((error as SourceFolderError).problems).toHaveLength(2);
  });
});
