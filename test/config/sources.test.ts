/**
 * The source-schema model, and docs/sql.md's list of source fields, which is written from it: a
 * field added to src/config/sources.ts and not to the docs (or the reverse) fails here.
 * DOCS_UPDATE=1 rewrites the section between the markers from the schemas.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  BUILT_IN_SOURCES,
  COMMON_COLUMNS,
  listElement,
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

describe('source schemas', () => {
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
