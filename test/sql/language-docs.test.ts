/**
 * docs/sql.md's list of the supported language is written from the language table: a function,
 * cast type or date part added to the table and not to the docs (or the reverse) fails here.
 * DOCS_UPDATE=1 rewrites the section between the markers from the table.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { BINARY_OPERATORS, CAST_TYPES, CONSTRUCTS, EXTRACT_PARTS, FUNCTIONS, INTERVAL_UNITS, JOIN_TYPES, REFUSED_FUNCTIONS, SET_OPERATORS, type FunctionKind } from '../../src/sql/language.js';

const DOCS = fileURLToPath(new URL('../../docs/sql.md', import.meta.url));
const BEGIN = '<!-- language-table:begin -->';
const END = '<!-- language-table:end -->';

const HEADINGS: Record<FunctionKind, string> = {
  scalar: 'Functions',
  aggregate: 'Aggregate functions',
  window: 'Analytic functions (with `OVER (...)`)',
};

function upper(names: readonly string[]): string {
  return names.map((name) => `\`${name.toUpperCase()}\``).join(', ');
}

/** The section as the table says it should read. */
function languageSection(): string {
  const lines: string[] = ['**Clauses and constructs**', '', '| construct | example |', '|---|---|'];
  for (const [name, example] of Object.entries(CONSTRUCTS)) lines.push(`| ${name} | \`${example.replace(/\|/g, '\\|')}\` |`);
  lines.push('');
  lines.push(`**Joins**: ${JOIN_TYPES.map((type) => (type === 'comma' ? 'comma joins' : `\`${type}\``)).join(', ')}.`, '');
  lines.push(`**Set operations**: ${Object.keys(SET_OPERATORS).map((operator) => `\`${operator}\``).join(', ')}.`, '');
  lines.push(`**Operators**: ${BINARY_OPERATORS.map((operator) => `\`${operator}\``).join(' ')}, \`NOT\`, unary \`-\`, \`IS [NOT] NULL\`, \`[NOT] BETWEEN\`, \`[NOT] IN\`.`, '');
  for (const kind of Object.keys(HEADINGS) as FunctionKind[]) {
    lines.push(`**${HEADINGS[kind]}**`, '', '| function | BigQuery meaning |', '|---|---|');
    for (const [name, spec] of FUNCTIONS) if (spec.kind === kind) lines.push(`| \`${name.toUpperCase()}\` | ${spec.summary} |`);
    lines.push('');
  }
  lines.push(`**CAST / SAFE_CAST types**: ${upper(Object.keys(CAST_TYPES))}.`, '');
  // Functions that accept the same date parts share a line.
  const byParts = new Map<string, string[]>();
  for (const [name, spec] of FUNCTIONS) {
    if (!spec.parts?.length) continue;
    const key = upper(spec.parts);
    byParts.set(key, [...(byParts.get(key) ?? []), name]);
  }
  for (const [parts, names] of byParts) lines.push(`**Date parts** of ${upper(names)}: ${parts}.`, '');
  lines.push(`**INTERVAL units**: ${upper(INTERVAL_UNITS)}.`, '');
  lines.push(`**EXTRACT parts**: ${upper(Object.keys(EXTRACT_PARTS))}.`, '');
  lines.push('**Refused, with the reason**: ' + Object.values(REFUSED_FUNCTIONS).join('; ') + '.');
  return lines.join('\n');
}

describe('docs/sql.md', () => {
  it('lists exactly the language table', () => {
    const text = readFileSync(DOCS, 'utf8');
    const begin = text.indexOf(BEGIN);
    const end = text.indexOf(END);
    expect(begin).toBeGreaterThan(-1);
    expect(end).toBeGreaterThan(begin);
    const expected = `${BEGIN}\n${languageSection()}\n${END}`;
    if (process.env.DOCS_UPDATE === '1') writeFileSync(DOCS, text.slice(0, begin) + expected + text.slice(end + END.length));
    else expect(text.slice(begin, end + END.length)).toBe(expected);
  });

  it('the section names every function and construct (the check above is not vacuous)', () => {
    const section = languageSection();
    for (const name of FUNCTIONS.keys()) expect(section).toContain(`\`${name.toUpperCase()}\``);
    for (const name of Object.keys(CONSTRUCTS)) expect(section).toContain(`| ${name} |`);
  });
});
