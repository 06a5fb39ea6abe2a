/**
 * `cannery describe NAME [--endpoints DIR] [--format text|json]`: an endpoint's contract, its
 * parameters and its result columns with their BigQuery types and how each travels on the wire.
 */
import { duckDbScratchEngine } from '../backends/duckdb/scratch.js';
import { readSettings } from '../config/settings.js';
import { BUILT_IN_SOURCES } from '../config/sources.js';
import { didYouMean } from '../config/spelling.js';
import type { ColumnField, EndpointContract } from '../core/types.js';
import type { CompiledEndpoint } from '../engine/compiled-endpoint.js';
import { typeText, wireSchema, wireText } from '../engine/contracts/column-types.js';
import { createContractBook } from '../engine/contracts/contract.js';
import { UsageError, type Command } from './command.js';
import { loadOfflineRegistry } from './offline-registry.js';
import { declaredSources } from './source-folder.js';
import { paramText, settingsText } from './contract-text.js';

export const describeCommand: Command = {
  options: { endpoints: { type: 'string' }, sources: { type: 'string' }, format: { type: 'string' } },
  async run(flags, positionals) {
    const [name] = positionals;
    if (!name) throw new UsageError();
    const format = flags.format ?? 'text';
    if (format !== 'text' && format !== 'json') throw new Error(`--format must be text or json (got "${String(format)}")`);
    const dir = typeof flags.endpoints === 'string' ? flags.endpoints : readSettings().endpointsDir;
    const declared = await declaredSources(flags, dir);
    const registry = await loadOfflineRegistry(dir, 'all', {}, declared);
    const endpoint = registry.find(name);
    if (!endpoint) {
      const names = registry.endpoints.map((candidate) => candidate.definition.name);
      throw new Error(`no endpoint "${name}" in ${dir}${didYouMean(name, names)}; endpoints: ${names.join(', ') || 'none'}`);
    }
    const outcome = (await createContractBook(duckDbScratchEngine(BUILT_IN_SOURCES, declared)).of([endpoint])).get(endpoint)!;
    if (!outcome.contract) throw new Error(`${endpoint.file}: ${outcome.problem}`);
    console.log(format === 'json' ? JSON.stringify(contractJson(endpoint, outcome.contract), null, 2) : contractText(endpoint, outcome.contract).join('\n'));
    return 0;
  },
};

function contractJson(endpoint: CompiledEndpoint, contract: EndpointContract): object {
  const { definition } = endpoint;
  return {
    name: definition.name,
    id: definition.id,
    file: endpoint.file,
    params: contract.params,
    columns: contract.columns.map((column) => ({ name: column.name, type: typeText(column.type), wire: wireSchema(column.type) })),
    settings: { max_rows: definition.max_rows, cache: definition.cache, sandbox: definition.sandbox, redact_pii: definition.redact_pii },
  };
}

function contractText(endpoint: CompiledEndpoint, contract: EndpointContract): string[] {
  const { definition } = endpoint;
  const params = Object.entries(contract.params);
  const columns = flatten(contract.columns, 0);
  const nameWidth = Math.max(...columns.map((row) => row.label.length), 6) + 2;
  const typeWidth = Math.max(...columns.map((row) => row.type.length), 8) + 2;
  return [
    `${definition.name} (${definition.id})`,
    endpoint.file,
    '',
    'parameters:',
    ...(params.length ? params.map(([name, spec]) => `  ${paramText(name, spec)}`) : ['  none']),
    '',
    `  ${'column'.padEnd(nameWidth)}${'type'.padEnd(typeWidth)}on the wire (JSON)`,
    ...columns.map((row) => `  ${row.label.padEnd(nameWidth)}${row.type.padEnd(typeWidth)}${row.wire}`),
    '',
    `settings: ${settingsText(definition)}`,
  ];
}

/** Columns and, indented under them, the fields of their records. */
function flatten(fields: readonly ColumnField[], depth: number): { label: string; type: string; wire: string }[] {
  return fields.flatMap((field) => {
    const row = { label: `${'  '.repeat(depth)}${field.name}`, type: typeText(field.type, 0), wire: wireText(field.type) };
    const record = field.type.kind === 'array' ? field.type.element : field.type;
    return record.kind === 'struct' ? [row, ...flatten(record.fields, depth + 1)] : [row];
  });
}
