/**
 * The source-schema model, made from the shipped source files (sources/*.yaml), and docs/sql.md's
 * list of source fields, which is written from it: a field added to a source file and not to the
 * docs (or the reverse) fails here.
 * DOCS_UPDATE=1 rewrites the section between the markers from the schemas.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseSourceFile } from '../../src/config/source-files.js';
import {
  BUILT_IN_DECLARATIONS,
  BUILT_IN_SOURCES,
  COMMON_COLUMNS,
  listElement,
  logSourceDescriptor,
  topLevelColumns,
  type FieldShape,
  type ListType,
  type RecordShape,
  type ScalarType,
} from '../../src/config/sources.js';

const DOCS = fileURLToPath(new URL('../../docs/sql.md', import.meta.url));
const BEGIN = '<!-- source-fields:begin -->';
const END = '<!-- source-fields:end -->';

const BIGQUERY_TYPES: Record<ScalarType, string> = {
  string: 'STRING',
  integer: 'INT64',
  number: 'FLOAT64',
  boolean: 'BOOL',
  timestamp: 'TIMESTAMP',
};

function typeName(shape: FieldShape): string {
  if (typeof shape !== 'string') return 'RECORD';
  const element = listElement(shape);
  return element === undefined ? BIGQUERY_TYPES[shape as ScalarType] : `REPEATED ${BIGQUERY_TYPES[element]}`;
}

function fieldList(fields: Readonly<Record<string, FieldShape>>): string {
  return Object.entries(fields)
    .map(([name, shape]) => `\`${name}\` ${typeName(shape)}`)
    .join(', ');
}

/** One row per record: its path and its fields (a nested record is a repeated record too). */
function recordRows(record: RecordShape, path: string): string[] {
  const rows = [`| \`${path}\` | ${fieldList(record)} |`];
  for (const [name, shape] of Object.entries(record)) if (typeof shape !== 'string') rows.push(...recordRows(shape, `${path}.${name}`));
  return rows;
}

/** The section as the schemas say it should read. */
function sourcesSection(): string {
  const lines: string[] = [];
  for (const source of BUILT_IN_SOURCES) {
    lines.push(`**\`${source.name}\`**: ${fieldList({ ...topLevelColumns(source), metadata: source.metadata })}.`, '');
    lines.push('| record (repeated) | fields |', '|---|---|', ...recordRows(source.metadata, 'metadata'), '');
  }
  return lines.join('\n').trimEnd();
}

/** The descriptors as src/config/sources.ts declared them in TypeScript before the source files replaced them. */
const BEFORE_FILES = fileURLToPath(new URL('./built-in-sources.json', import.meta.url));

describe('source schemas', () => {
  it('made from the shipped source files, equal the TypeScript constants they replaced, in every name, type and order', () => {
    // JSON text, not toEqual: the order of keys is the order of columns and fields.
    expect(JSON.stringify(BUILT_IN_SOURCES, null, 1) + '\n').toBe(readFileSync(BEFORE_FILES, 'utf8'));
    expect(BUILT_IN_SOURCES.map((source) => source.name)).toEqual(BUILT_IN_DECLARATIONS.map((d) => d.name));
    expect(BUILT_IN_DECLARATIONS.every((d) => d.timeColumn === 'timestamp')).toBe(true);
  });

  it('refuses a declaration outside the log layout, naming its file and why', () => {
    const convert = (columns: string) => () => {
      const { declaration, problems } = parseSourceFile(`name: x\ncolumns:\n${columns}`, 'x.yaml');
      expect(problems).toEqual([]);
      return logSourceDescriptor(declaration!);
    };
    const common = `  - { name: id, type: STRING }
  - { name: timestamp, type: TIMESTAMP, mode: REQUIRED }
  - { name: event_message, type: STRING }
  - { name: project, type: STRING }
`;
    const metadata = (fields: string) => `  - { name: metadata, type: RECORD, mode: REPEATED, fields: [ ${fields} ] }\n`;
    expect(convert(common + metadata('{ name: n, type: INT64, mode: REPEATED }'))()).toEqual({ name: 'x', metadata: { n: 'integer[]' } });
    expect(convert(common)).toThrow('x.yaml: source x is not in the log layout: its last column must be metadata, a REPEATED RECORD');
    expect(convert(common.replace(', mode: REQUIRED', '') + metadata('{ name: n, type: STRING }'))).toThrow(
      'column 2 must be timestamp, REQUIRED, of type timestamp',
    );
    expect(convert(common + metadata('{ name: n, type: NUMERIC }'))).toThrow('metadata.n is NUMERIC, not one of STRING, INT64, FLOAT64, BOOL, TIMESTAMP');
    expect(convert(common + metadata('{ name: r, type: RECORD, fields: [ { name: a, type: STRING } ] }'))).toThrow(
      'metadata.r must be a REPEATED RECORD, as every nested object is',
    );
    expect(convert(common + '  - { name: tags, type: STRING, mode: REPEATED }\n' + metadata('{ name: n, type: STRING }'))).toThrow(
      'column tags must be a NULLABLE scalar',
    );
  });

  it('tells arrays of scalars from scalars', () => {
    expect(listElement('integer[]' satisfies ListType)).toBe('integer');
    expect(listElement('string')).toBeUndefined();
  });

  it("puts a source's own top-level columns after the common ones", () => {
    const edge = BUILT_IN_SOURCES.find((source) => source.name === 'cloudflare.logs.prod')!;
    expect(Object.keys(topLevelColumns(edge))).toEqual([...Object.keys(COMMON_COLUMNS), 'identifier']);
    for (const source of BUILT_IN_SOURCES) {
      for (const name of Object.keys(source.columns ?? {})) expect(Object.keys(COMMON_COLUMNS)).not.toContain(name);
    }
  });

  it('docs/sql.md lists exactly the fields of the schemas', () => {
    const text = readFileSync(DOCS, 'utf8');
    const begin = text.indexOf(BEGIN);
    const end = text.indexOf(END);
    expect(begin).toBeGreaterThan(-1);
    expect(end).toBeGreaterThan(begin);
    const expected = `${BEGIN}\n${sourcesSection()}\n${END}`;
    if (process.env.DOCS_UPDATE === '1') writeFileSync(DOCS, text.slice(0, begin) + expected + text.slice(end + END.length));
    else expect(text.slice(begin, end + END.length)).toBe(expected);
  });

  it('the section names every field (the check above is not vacuous)', () => {
    const section = sourcesSection();
    expect(section).toContain('| `metadata.request.sb.jwt.authorization.payload` | `algorithm` STRING');
    expect(section).toContain('`detectionIds` REPEATED INT64');
    expect(section).toContain('**`postgres.logs`**: `id` STRING, `timestamp` TIMESTAMP, `event_message` STRING, `project` STRING, `identifier` STRING');
  });
});
