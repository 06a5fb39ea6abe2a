import type { EndpointDefinition, Problem } from '../core/types.js';
import { validateEndpointData } from './endpoint-schema.js';
import { schemaProblems } from './schema-problems.js';
import { readYaml } from './yaml-source.js';
import type { YamlSource } from './yaml-source.js';

export interface EndpointFileResult {
  /** Present exactly when `problems` is empty. Every param's `required` is filled in. */
  definition?: EndpointDefinition;
  problems: Problem[];
  /**
   * The 1-based file line holding the first line of the SQL text, so that later stages can turn
   * a line within the query into a line of the file. 0 when the file has no query.
   */
  queryLine: number;
  /**
   * Lines of the top-level fields (`max_rows`) and of each parameter (`params.project`), so that
   * later stages can report a problem where the author wrote the thing. Empty unless the file is valid.
   */
  fieldLines: Record<string, number>;
}

/** Parses and validates one endpoint file's text; `file` is only used to name it in problems. */
export function parseEndpointFile(text: string, file: string): EndpointFileResult {
  const source = readYaml(text, file);
  const queryLine = source.textLineOf(['query']) ?? 0;
  if (source.problems.length > 0) return { problems: source.problems, queryLine, fieldLines: {} };

  const errors = validateEndpointData(source.data);
  if (errors.length > 0) return { problems: schemaProblems(errors, source, file), queryLine, fieldLines: {} };

  const definition = source.data as EndpointDefinition;
  const problems = ruleProblems(definition, source, file);
  if (problems.length > 0) return { problems, queryLine, fieldLines: {} };
  return { definition, problems: [], queryLine, fieldLines: fieldLines(definition, source) };
}

/** Rules JSON Schema cannot state: they compare two values of the same file. */
function ruleProblems(definition: EndpointDefinition, source: YamlSource, file: string): Problem[] {
  const problems: Problem[] = [];
  const { cache } = definition;
  if (cache && cache.warm_every_seconds !== undefined && cache.warm_every_seconds > cache.ttl_seconds) {
    problems.push({
      file,
      line: source.lineOf(['cache', 'warm_every_seconds']),
      field: 'cache.warm_every_seconds',
      message:
        `cache.warm_every_seconds (${cache.warm_every_seconds}) must not exceed cache.ttl_seconds ` +
        `(${cache.ttl_seconds}): cached results would expire before they are warmed again`,
    });
  }
  return problems;
}

function fieldLines(definition: EndpointDefinition, source: YamlSource): Record<string, number> {
  const lines: Record<string, number> = {};
  for (const field of Object.keys(definition)) lines[field] = source.lineOf([field]);
  for (const param of Object.keys(definition.params)) lines[`params.${param}`] = source.lineOf(['params', param]);
  return lines;
}
