/**
 * Load -> analyse -> compile for one endpoint file. Everything here runs once, at load;
 * nothing is re-parsed per request.
 */
import { createHash } from 'node:crypto';
import { analyseStatements, checkParameterUse, type SqlProblem } from '../../sql/analyse/query-analysis.js';
import type { Columns } from '../../sql/analyse/shapes.js';
import { resolveNames } from '../../sql/dialects/duckdb/rewrites/resolve-names.js';
import type { Dialect } from '../../sql/generator/dialect.js';
import { generate } from '../../sql/generator/generate.js';
import { UnsupportedConstruct, unsupportedMessage } from '../../sql/generator/unsupported.js';
import { InvalidQuery, SqlSyntaxError } from '../../sql/parse/errors.js';
import { parseStatements, QueryTooDeep, type Statement } from '../../sql/parse/to-tree.js';
import type { Query } from '../../sql/parse/tree.js';
import type { LoadedEndpointFile } from '../../config/endpoint-folder.js';
import type { EndpointDefinition, Problem } from '../../core/types.js';
import type { CompiledEndpoint } from '../compiled-endpoint.js';

export interface CompileContext {
  /** The dialect of the backend that serves: the endpoint keeps the SQL written for it. */
  dialect: Dialect;
  /** Other backends' dialects the SQL must also compile for (`cannery check` gates every backend). */
  alsoCheck?: readonly Dialect[];
  sources: readonly string[];
  /**
   * Every source's declared columns (`cannery check`): a column or nested field the query reads
   * that no relation in scope has is a problem on every backend, found by BigQuery's own name
   * resolution (the one the DuckDB dialect makes explicit), as BigQuery and a served DuckDB refuse it.
   */
  columns?: (source: string) => Columns;
}

export interface CompileOutcome {
  endpoint?: CompiledEndpoint;
  problems: Problem[];
}

export function compileEndpoint(loaded: LoadedEndpointFile, context: CompileContext): CompileOutcome {
  const { file, definition } = loaded;
  if (!definition || loaded.problems.length) return { problems: loaded.problems };
  const atLine = (problem: SqlProblem): Problem => {
    if (problem.declaredParam !== undefined) {
      const field = `params.${problem.declaredParam}`;
      return { file, line: loaded.fieldLines[field] ?? loaded.queryLine, field, message: problem.message };
    }
    const line = problem.location ? loaded.queryLine + problem.location.line - 1 : loaded.queryLine;
    return { file, line, field: 'query', message: problem.message };
  };

  let statements: Statement[];
  try {
    statements = parseStatements(definition.query);
  } catch (error) {
    if (error instanceof SqlSyntaxError || error instanceof QueryTooDeep) return { problems: [atLine({ message: error.message, location: error.location })] };
    throw error;
  }
  const analysis = analyseStatements(statements, context.sources);
  const sqlProblems = [...analysis.problems];
  if (analysis.statement) sqlProblems.push(...checkParameterUse(analysis.params, Object.keys(definition.params)));
  if (!analysis.statement || sqlProblems.length) return { problems: sqlProblems.map(atLine) };
  const unknownName = context.columns && unknownNameIn(analysis.statement, context.columns);
  if (unknownName) return { problems: [atLine(unknownName)] };

  // Every backend's refusal is reported, once per construct and place, naming each backend that
  // refuses it; the serving backend's SQL is kept.
  const refusals: UnsupportedConstruct[] = [];
  let invalid: InvalidQuery | undefined;
  const compiled = [context.dialect, ...(context.alsoCheck ?? [])].map((dialect) => {
    try {
      return generate(analysis.statement!, dialect, { rowCap: definition.max_rows });
    } catch (error) {
      if (error instanceof InvalidQuery) invalid ??= error;
      else if (error instanceof UnsupportedConstruct) refusals.push(error);
      else throw error;
      return undefined;
    }
  });
  const served = compiled[0];
  if (invalid) return { problems: [atLine({ message: invalid.message, location: invalid.location })] };
  if (refusals.length || served === undefined) return { problems: refusalProblems(refusals).map(atLine) };
  return {
    problems: [],
    endpoint: {
      definition,
      file,
      analysis: {
        params: unique(analysis.params.map((param) => param.name)),
        ctes: analysis.ctes.map((cte) => cte.name),
        sources: unique(analysis.tables.map((table) => table.name).filter((name) => context.sources.includes(name))),
      },
      statement: analysis.statement,
      sql: served.sql,
      sqlParameters: served.parameters,
      sqlDerived: served.derived,
      sqlWriteBack: served.writeBack,
      version: definitionVersion(definition),
    },
  };
}

/** The first name `statement` reads that nothing in its scope has, by the declared columns. */
export function unknownNameIn(statement: Query, columns: (source: string) => Columns): SqlProblem | undefined {
  try {
    resolveNames({ sourceColumns: columns, strict: true })(statement);
    return undefined;
  } catch (error) {
    if (error instanceof InvalidQuery) return { message: error.message, location: error.location };
    throw error;
  }
}

function refusalProblems(refusals: readonly UnsupportedConstruct[]): SqlProblem[] {
  const byPlace = new Map<string, { refusal: UnsupportedConstruct; backends: string[] }>();
  for (const refusal of refusals) {
    const place = JSON.stringify([refusal.construct, refusal.location?.line, refusal.location?.column]);
    const entry = byPlace.get(place);
    if (entry) entry.backends.push(refusal.backend);
    else byPlace.set(place, { refusal, backends: [refusal.backend] });
  }
  return [...byPlace.values()].map(({ refusal, backends }) => ({ message: unsupportedMessage(refusal.construct, backends), location: refusal.location }));
}

function unique(names: string[]): string[] {
  return [...new Set(names)];
}

/** A stable hash of the definition, 16 hex digits: equal meaning, equal version, whatever the key order. */
export function definitionVersion(definition: EndpointDefinition): string {
  const canonical = JSON.stringify(definition, (_key, value: unknown) =>
    value && typeof value === 'object' && !Array.isArray(value)
      ? Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : 1)))
      : value,
  );
  return createHash('sha256').update(canonical).digest('hex').slice(0, 16);
}

/** The endpoint with its SQL written for another dialect's tables (a scratch database of other layout). */
export function compiledFor(endpoint: CompiledEndpoint, dialect: Dialect): CompiledEndpoint {
  const compiled = generate(endpoint.statement, dialect, { rowCap: endpoint.definition.max_rows });
  return { ...endpoint, sql: compiled.sql, sqlParameters: compiled.parameters, sqlDerived: compiled.derived, sqlWriteBack: compiled.writeBack };
}
