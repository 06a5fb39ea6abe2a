/**
 * `cannery check --dry-run`: checks against BigQuery itself what a plain check cannot know.
 * Each project source's declaration is held against its table's schema (tables.get on the table
 * it maps to), naming every difference, so an endpoint does not meet a column BigQuery lacks only
 * in production. Then a dry run of every endpoint prints the bytes each would scan, so a reviewer
 * sees the cost of a query change before it merges. Both are free; parameters are bound as typed
 * NULLs, which is all BigQuery needs to plan a query.
 */
import { formatProblem } from '../config/problem-line.js';
import type { Settings } from '../config/settings.js';
import type { ProjectSources } from '../config/source-model.js';
import { BUILT_IN_SOURCES, sourceNames } from '../config/sources.js';
import { isCanneryError } from '../core/errors.js';
import type { CompiledEndpoint } from '../engine/compiled-endpoint.js';
import { tablePathText } from '../sql/dialects/bigquery/tables.js';
import type { TablePath } from '../sql/generator/dialect.js';
import { generate } from '../sql/generator/generate.js';
import { UnsupportedConstruct } from '../sql/generator/unsupported.js';
import type { BigQueryBackend } from '../backends/bigquery/backend.js';

export interface DryRunOutcome {
  /** Differences between the project's declared sources and their tables, a missing table included. */
  differences: number;
  /** Endpoints BigQuery could not dry-run. */
  failures: number;
}

/** Prints one line per difference (or per source that matches) and one per endpoint. */
export async function dryRunOnBigQuery(endpoints: readonly CompiledEndpoint[], project: ProjectSources, settings: Settings): Promise<DryRunOutcome> {
  // Loaded only for a dry run: a plain check never needs the client.
  const { bigQueryBackendOptions, createBigQueryBackend } = await import('../backends/bigquery/backend.js');
  const options = bigQueryBackendOptions(settings.bigquery, sourceNames(BUILT_IN_SOURCES), project.sources);
  const backend = createBigQueryBackend(options);
  try {
    const differences = await compareSources(backend, project, options.tables);
    const failures = await dryRunEndpoints(backend, endpoints, settings);
    return { differences, failures };
  } finally {
    await backend.close();
  }
}

/**
 * The project's own sources only: the shipped log sources name the fields cannery's endpoints
 * read, and a log table holds many more, so a difference there says nothing about a project.
 */
async function compareSources(backend: BigQueryBackend, project: ProjectSources, tables: ReadonlyMap<string, TablePath>): Promise<number> {
  const { schemaDifferences } = await import('../backends/bigquery/table-schema.js');
  let count = 0;
  for (const source of project.sources) {
    const path = tables.get(source.name)!;
    const table = tablePathText(path);
    const file = source.file ?? source.name;
    const lines = project.fieldLines.get(source.name) ?? {};
    const at = (declared: string) => lines[declared] ?? lines.name ?? 1;
    const lookup = await backend.readTable(path);
    if (!lookup.found) {
      count += 1;
      console.log(formatProblem({ file, line: at(''), message: `source ${source.name}: BigQuery has no table ${table} (${lookup.reason})` }));
      continue;
    }
    const { differences, undeclarable } = schemaDifferences(source.columns, lookup.metadata, table);
    count += differences.length;
    for (const difference of differences) console.log(formatProblem({ file, line: at(difference.declared), field: difference.path, message: `source ${source.name}: ${difference.message}` }));
    for (const column of undeclarable) console.log(`${file}: source ${source.name}: ${table} has column ${column.path} (${column.type}), which no source file can declare; not a difference`);
    if (differences.length === 0) console.log(`${file}: source ${source.name} matches ${table}`);
  }
  return count;
}

async function dryRunEndpoints(backend: BigQueryBackend, endpoints: readonly CompiledEndpoint[], settings: Settings): Promise<number> {
  let failures = 0;
  for (const { definition, file, statement } of endpoints) {
    try {
      const compiled = generate(statement, backend.dialect, { rowCap: definition.max_rows });
      const { totalBytesProcessed } = await backend.dryRun({
        sql: compiled.sql,
        parameters: compiled.parameters,
        values: Object.fromEntries(compiled.parameters.map((name) => [name, null])),
        specs: definition.params,
        now: new Date(),
        maxRows: definition.max_rows,
        maxBytes: settings.maxResultBytes,
        timeoutMs: settings.queryTimeoutMs,
        endpointName: definition.name,
      });
      console.log(`${file}: ${definition.name} would scan ${formatBytes(totalBytesProcessed)} (${totalBytesProcessed} bytes)`);
    } catch (error) {
      if (!isCanneryError(error) && !(error instanceof UnsupportedConstruct)) throw error;
      failures += 1;
      console.log(`${file}: BigQuery dry run failed: ${error.message}`);
    }
  }
  return failures;
}

const UNITS = ['bytes', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];

function formatBytes(bytes: number): string {
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return unit === 0 ? `${value} bytes` : `${value.toFixed(1)} ${UNITS[unit]}`;
}
