/**
 * Static analysis of an endpoint's SQL, from the query tree only: which @params it references,
 * which CTEs it defines, which sources it reads, and that it is exactly one read-only SELECT.
 */
import type { SqlLocation } from '../parse/errors.js';
import { didYouMean } from '../../config/spelling.js';
import type { Statement } from '../parse/to-tree.js';
import type { Query } from '../parse/tree.js';
import { walkTree } from '../parse/walk.js';

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
  statement: Query | undefined;
  params: Reference[];
  ctes: Reference[];
  tables: Reference[];
  problems: SqlProblem[];
}

/** Checks the statement list is a single SELECT and collects its references. */
export function analyseStatements(statements: readonly Statement[], knownSources: readonly string[]): SqlAnalysis {
  const problems: SqlProblem[] = [];
  const empty = { params: [], ctes: [], tables: [] };
  if (statements.length !== 1) {
    problems.push({ message: `expected exactly one SELECT statement, found ${statements.length}`, location: undefined });
    return { statement: undefined, ...empty, problems };
  }
  const statement = statements[0]!;
  if (statement.kind !== 'query') {
    problems.push({ message: `only a read-only SELECT is allowed, found ${statement.type.toUpperCase()}`, location: undefined });
    return { statement: undefined, ...empty, problems };
  }
  const references = collectReferences(statement);
  problems.push(...unknownTables(references.tables, references.ctes, knownSources));
  return { statement, ...references, problems };
}

/** The params, CTEs and tables a query names, each where it is named. */
export function collectReferences(statement: Query): Pick<SqlAnalysis, 'params' | 'ctes' | 'tables'> {
  const params: Reference[] = [];
  const ctes: Reference[] = [];
  const tables: Reference[] = [];
  walkTree(statement, (node) => {
    if (node.kind === 'param') params.push({ name: node.name, location: node.loc });
    if (node.kind === 'query') for (const cte of node.with) ctes.push({ name: cte.name, location: cte.loc ?? node.loc });
    if (node.kind === 'table') tables.push({ name: node.name, location: node.loc });
  });
  return { params, ctes, tables };
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
