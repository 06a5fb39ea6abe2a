/**
 * Load -> analyse -> compile for one endpoint file. Everything here runs once, at load;
 * nothing is re-parsed per request.
 */
import { createHash } from 'node:crypto';
import { analyseStatements, checkParameterUse, type SqlProblem } from '../sql/analyse.js';
import type { SqlDialect } from '../sql/dialect.js';
import { UnsupportedConstruct } from '../sql/duckdb/unsupported.js';
import { parseBigQuery, SqlSyntaxError, type AstNode } from '../sql/parse.js';
import type { CompiledEndpoint, EndpointDefinition, Problem } from '../core/types.js';

/** An endpoint file after YAML parsing and schema validation. */
export interface LoadedEndpointFile {
  file: string;
  definition?: EndpointDefinition;
  problems: Problem[];
  /** File line of the SQL's first line, to report SQL problems at file lines. */
  queryLine: number;
  /** File line of each top-level field and of each `params.<name>`. */
  fieldLines?: Record<string, number>;
}

export interface CompileContext {
  dialect: SqlDialect;
  sources: readonly string[];
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
      return { file, line: loaded.fieldLines?.[field] ?? loaded.queryLine, field, message: problem.message };
    }
    const line = problem.location ? loaded.queryLine + problem.location.line - 1 : loaded.queryLine;
    return { file, line, field: 'query', message: problem.message };
  };

  let statements: AstNode[];
  try {
    statements = parseBigQuery(definition.query);
  } catch (error) {
    if (error instanceof SqlSyntaxError) return { problems: [atLine({ message: error.message, location: error.location })] };
    throw error;
  }
  const analysis = analyseStatements(statements, context.sources);
  const sqlProblems = [...analysis.problems];
  if (analysis.statement) sqlProblems.push(...checkParameterUse(analysis.params, Object.keys(definition.params)));
  if (!analysis.statement || sqlProblems.length) return { problems: sqlProblems.map(atLine) };

  try {
    const compiled = context.dialect.compile(analysis.statement, { rowCap: definition.max_rows });
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
        sql: compiled.sql,
        sqlParameters: compiled.parameters,
        version: definitionVersion(definition),
      },
    };
  } catch (error) {
    if (error instanceof UnsupportedConstruct) {
      return { problems: [atLine({ message: `${error.message} (the ${context.dialect.name} backend cannot run it)`, location: error.location })] };
    }
    throw error;
  }
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
