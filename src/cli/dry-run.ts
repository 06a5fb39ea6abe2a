/**
 * `cannery check --dry-run`: a BigQuery dry run of every endpoint, printing the bytes each
 * would scan, so a reviewer sees the cost of a query change before it merges. Dry runs are
 * free; parameters are bound as typed NULLs, which is all BigQuery needs to plan the query.
 */
import type { Settings } from '../config/settings.js';
import { BUILT_IN_SOURCES, sourceNames } from '../config/sources.js';
import { isCanneryError } from '../core/errors.js';
import type { CompiledEndpoint } from '../engine/compiled-endpoint.js';
import { generate } from '../sql/generator/generate.js';
import { UnsupportedConstruct } from '../sql/generator/unsupported.js';

/** Prints one line per endpoint; returns how many could not be dry-run. */
export async function dryRunEndpoints(endpoints: readonly CompiledEndpoint[], settings: Settings): Promise<number> {
  // Loaded only for a dry run: a plain check never needs the client.
  const { bigQueryBackendOptions, createBigQueryBackend } = await import('../backends/bigquery/backend.js');
  const backend = createBigQueryBackend(bigQueryBackendOptions(settings.bigquery, sourceNames(BUILT_IN_SOURCES)));
  let failures = 0;
  try {
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
  } finally {
    await backend.close();
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
