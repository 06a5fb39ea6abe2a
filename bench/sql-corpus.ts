/**
 * The BigQuery SQL the repository already holds: every endpoint's query, and every string in the
 * tests that reads as a statement, except the parser's own tests (they hold what it reads
 * differently from node-sql-parser on purpose). The parser's equivalence test and its benchmark
 * share it, so both follow the tests as they grow instead of a copy that drifts.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { parse as parseYaml } from '#yaml';

export interface CorpusEntry {
  /** `endpoints/logs.all.yaml` or `test/sql/translate.test.ts:120`. */
  origin: string;
  sql: string;
}

const PARSER_TESTS = 'test/sql/parse/';

/** Strings that start the way a statement does; the parsers decide which of them are SQL. */
const STATEMENT_START = /^\s*(\(\s*)*(select|with)\b/i;

/** `endpoints` (default: the repository's endpoints/) is where the endpoint files are read; the suite reads its copy of the shipped ones. */
export function sqlCorpus(root: URL, endpoints = join(fileURLToPath(root), 'endpoints')): CorpusEntry[] {
  const base = fileURLToPath(root);
  const seen = new Set<string>();
  const entries: CorpusEntry[] = [];
  const add = (origin: string, sql: string): void => {
    if (seen.has(sql)) return;
    seen.add(sql);
    entries.push({ origin, sql });
  };
  for (const file of filesUnder(endpoints, '.yaml')) {
    const query = (parseYaml(readFileSync(file, 'utf8')) as { query?: unknown }).query;
    if (typeof query === 'string') add(`endpoints/${relative(endpoints, file)}`, query);
  }
  for (const file of filesUnder(join(base, 'test'), '.ts').filter((path) => !path.startsWith(join(base, PARSER_TESTS)))) {
    for (const { line, text } of statementStrings(file)) add(`${relative(base, file)}:${line}`, text);
  }
  return entries;
}

/** String literals and substitution-free template literals of a TypeScript file. */
function statementStrings(file: string): { line: number; text: string }[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, false);
  const found: { line: number; text: string }[] = [];
  const visit = (node: ts.Node): void => {
    if ((ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) && STATEMENT_START.test(node.text)) {
      found.push({ line: source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1, text: node.text });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

function filesUnder(dir: string, suffix: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith(suffix))
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
}

function relative(base: string, file: string): string {
  return file.slice(base.length).replace(/^\/+/, '');
}
