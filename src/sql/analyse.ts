/**
 * Static analysis of an endpoint's SQL, from the AST only: which @params it references,
 * which CTEs it defines, which sources it reads, and that it is exactly one read-only SELECT.
 */
import { isNode, tableReferenceName, withClauses } from './ast.js';
import type { AstNode, SqlLocation } from './parse.js';
import { didYouMean } from '../config/spelling.js';
import { walk } from './walk.js';

export interface SqlProblem {
  message: string;
  location: SqlLocation | undefined;
  /** A declared parameter the problem is about, so it can be reported at its declaration. */
  declaredParam?: string;
}

export interface Reference {
  name: string;
  location: SqlLocation | undefined;
}

export interface SqlAnalysis {
  statement: AstNode | undefined;
  params: Reference[];
  ctes: Reference[];
  tables: Reference[];
  problems: SqlProblem[];
}

/** Checks the statement list is a single SELECT and collects its references. */
export function analyseStatements(statements: AstNode[], knownSources: readonly string[]): SqlAnalysis {
  const problems: SqlProblem[] = [];
  const empty = { params: [], ctes: [], tables: [] };
  if (statements.length !== 1) {
    problems.push({ message: `expected exactly one SELECT statement, found ${statements.length}`, location: undefined });
    return { statement: undefined, ...empty, problems };
  }
  const statement = statements[0]!;
  if (statement.type !== 'select') {
    const kind = String(statement.type ?? 'unknown').toUpperCase();
    problems.push({ message: `only a read-only SELECT is allowed, found ${kind}`, location: undefined });
    return { statement: undefined, ...empty, problems };
  }
  const references = collectReferences(statement);
  problems.push(...unknownTables(references.tables, references.ctes, knownSources));
  return { statement, ...references, problems };
}

function collectReferences(statement: AstNode): Pick<SqlAnalysis, 'params' | 'ctes' | 'tables'> {
  const params: Reference[] = [];
  const ctes: Reference[] = [];
  const tables: Reference[] = [];
  walk(statement, (node, location) => {
    if (node.type === 'param' && typeof node.value === 'string') params.push({ name: node.value, location });
    if (node.type !== 'select') return;
    for (const cte of withClauses(node)) ctes.push({ name: cte.name, location });
    if (!Array.isArray(node.from)) return;
    for (const item of node.from.filter(isNode)) {
      const name = tableReferenceName(item);
      if (name !== undefined) tables.push({ name, location: locationOfItem(item, location) });
    }
  });
  return { params, ctes, tables };
}

function locationOfItem(item: AstNode, fallback: SqlLocation | undefined): SqlLocation | undefined {
  const loc = item.loc;
  if (isNode(loc) && isNode(loc.start) && typeof loc.start.line === 'number') {
    return { line: loc.start.line, column: Number(loc.start.column) };
  }
  return fallback;
}

/** CTE names match case-insensitively (as in BigQuery); source names exactly. */
function unknownTables(tables: Reference[], ctes: Reference[], knownSources: readonly string[]): SqlProblem[] {
  const cteNames = new Set(ctes.map((cte) => cte.name.toLowerCase()));
  const sources = new Set(knownSources);
  return tables
    .filter((table) => !cteNames.has(table.name.toLowerCase()) && !sources.has(table.name))
    .map((table) => ({
      message:
        `table \`${table.name}\` is neither a known source nor a CTE` +
        didYouMean(table.name, [...knownSources, ...ctes.map((cte) => cte.name)]),
      location: table.location,
    }));
}

/** Declared parameters must be referenced and referenced ones declared. */
export function checkParameterUse(references: Reference[], declared: readonly string[]): SqlProblem[] {
  const problems: SqlProblem[] = [];
  const declaredSet = new Set(declared);
  const reported = new Set<string>();
  for (const reference of references) {
    if (declaredSet.has(reference.name) || reported.has(reference.name)) continue;
    reported.add(reference.name);
    problems.push({
      message: `@${reference.name} is used in the query but not declared in params${didYouMean(reference.name, declared)}`,
      location: reference.location,
    });
  }
  const used = new Set(references.map((reference) => reference.name));
  for (const name of declared) {
    if (used.has(name)) continue;
    problems.push({
      message: `param "${name}" is declared but the query never uses @${name}${didYouMean(name, used)}`,
      location: undefined,
      declaredParam: name,
    });
  }
  return problems;
}
