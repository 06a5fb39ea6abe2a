/**
 * docs/sql.md's list of the supported language is written from the language table: a function,
 * cast type or date part added to the table and not to the docs (or the reverse) fails here. So is
 * its status of every function of the GoogleSQL reference (test/sql/function-reference.yaml), each
 * answered as BigQuery or refused by name. DOCS_UPDATE=1 rewrites the sections between the markers.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from '#yaml';
import { BINARY_OPERATORS, CAST_TYPES, CONSTRUCTS, EXTRACT_PARTS, FUNCTIONS, INTERVAL_UNITS, JOIN_TYPES, REFUSED_FUNCTIONS, SET_OPERATORS, type FunctionKind } from '../../src/sql/language.js';

const DOCS = fileURLToPath(new URL('../../docs/sql.md', import.meta.url));
const REFERENCE = fileURLToPath(new URL('./function-reference.yaml', import.meta.url));
const SECTIONS = {
  language: ['<!-- language-table:begin -->', '<!-- language-table:end -->'],
  status: ['<!-- function-status:begin -->', '<!-- function-status:end -->'],
} as const;

/** The reference's entries that are clauses of the grammar rather than calls, and the construct each is. */
const GRAMMAR_ENTRIES: Readonly<Record<string, string>> = {
  array: 'array subquery',
  case: 'case',
  'case expr': 'case with subject',
  cast: 'cast',
  extract: 'extract',
  safe_cast: 'safe_cast',
};

type Family = { title: string; functions: string[] };
const families = parse(readFileSync(REFERENCE, 'utf8')) as Record<string, Family>;

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
  lines.push('**Refused**: every function of the reference not above, by name and with the reason (the status table below).');
  return lines.join('\n');
}

/** A reference entry's status: undefined when cannery neither answers nor refuses it. */
function status(entry: string): { supported: true } | { supported: false; reason: string } | undefined {
  const name = entry.toLowerCase();
  const construct = GRAMMAR_ENTRIES[name];
  if (FUNCTIONS.has(name) || (construct !== undefined && construct in CONSTRUCTS)) return { supported: true };
  const refusal = REFUSED_FUNCTIONS[name];
  // A refusal reads `NAME (reason)`: the table has the name in its own column.
  return refusal === undefined ? undefined : { supported: false, reason: refusal.slice(entry.length + 2, -1) };
}

/** The status section: per family, how many answer and how many are refused, then every function. */
function statusSection(): string {
  const lines: string[] = ['| family | answer as BigQuery | refused by name |', '|---|---|---|'];
  const tables: string[] = [];
  for (const family of Object.values(families)) {
    let supported = 0;
    tables.push(`**${family.title}**`, '', '| function | status |', '|---|---|');
    for (const entry of family.functions) {
      const found = status(entry);
      if (found === undefined) throw new Error(`${entry} is neither answered nor refused`);
      if (found.supported) supported += 1;
      tables.push(`| \`${entry}\` | ${found.supported ? 'answers as BigQuery' : `refused: ${found.reason}`} |`);
    }
    tables.push('');
    lines.push(`| ${family.title} | ${supported} | ${family.functions.length - supported} |`);
  }
  return [...lines, '', ...tables].join('\n').trimEnd();
}

function checkSection(text: string, [begin, end]: readonly [string, string], body: string): string {
  const from = text.indexOf(begin);
  const to = text.indexOf(end);
  expect(from).toBeGreaterThan(-1);
  expect(to).toBeGreaterThan(from);
  const expected = `${begin}\n${body}\n${end}`;
  if (process.env.DOCS_UPDATE === '1') return text.slice(0, from) + expected + text.slice(to + end.length);
  expect(text.slice(from, to + end.length)).toBe(expected);
  return text;
}

describe('docs/sql.md', () => {
  it('lists exactly the language table and the status of every function of the reference', () => {
    const text = readFileSync(DOCS, 'utf8');
    const updated = checkSection(checkSection(text, SECTIONS.language, languageSection()), SECTIONS.status, statusSection());
    if (process.env.DOCS_UPDATE === '1') writeFileSync(DOCS, updated);
  });

  it('every function of the reference is answered or refused, never both, and nothing is refused that the reference lacks', () => {
    const entries = Object.values(families).flatMap((family) => family.functions.map((entry) => entry.toLowerCase()));
    for (const entry of entries) expect(status(entry), entry).toBeDefined();
    for (const name of FUNCTIONS.keys()) expect(REFUSED_FUNCTIONS[name], name).toBeUndefined();
    for (const name of Object.keys(REFUSED_FUNCTIONS)) expect(entries, name).toContain(name);
  });

  it('the section names every function and construct (the check above is not vacuous)', () => {
    const section = languageSection();
    for (const name of FUNCTIONS.keys()) expect(section).toContain(`\`${name.toUpperCase()}\``);
    for (const name of Object.keys(CONSTRUCTS)) expect(section).toContain(`| ${name} |`);
  });
});
