/**
 * `cannery sources infer FILE [--name NAME] [--format F]`: a source file for a sample file, on stdout.
 * `cannery sources pull PROJECT.DATASET.TABLE [--name NAME]`: a source file for a BigQuery table, from its schema.
 * `cannery sources drop NAME [--db FILE]`: a declared source's table and its imports gone, so a
 * declaration whose change would lose stored values (declared-tables.ts refuses it) can start afresh.
 * `cannery sources list [--endpoints DIR] [--sources DIR]`: every source's UUID and name, the shipped ones first: the
 * UUID is what a Logflare client sends as `source=` (docs/ingest.md).
 */
import { basename } from 'node:path';
import { openDuckDb } from '../backends/duckdb/backend.js';
import { dropDeclaredTable } from '../backends/duckdb/declared-tables.js';
import { fileFormat } from '../backends/duckdb/import/declared-import.js';
import { inferSource } from '../backends/duckdb/infer.js';
import { tableRef } from '../config/bigquery-settings.js';
import { formatProblem } from '../config/problem-line.js';
import { readSettings, sourcesDirOf } from '../config/settings.js';
import { SOURCE_SCHEMA_URL, parseSourceFile } from '../config/source-files.js';
import { sourceFileText } from '../config/source-text.js';
import { BUILT_IN_DECLARATIONS, BUILT_IN_SOURCES, sourceId, sourceNames } from '../config/sources.js';
import { tablePathText } from '../sql/dialects/bigquery/tables.js';
import { UsageError, type Command, type Flags } from './command.js';
import { settingsWithFlags } from './flags.js';
import { schemaReference } from './schema-reference.js';
import { declaredSources } from './source-folder.js';

export const sourcesCommand: Command = {
  options: {
    name: { type: 'string' },
    format: { type: 'string' },
    db: { type: 'string' },
    sources: { type: 'string' },
    endpoints: { type: 'string' },
  },
  async run(flags, positionals) {
    const [subcommand, argument, ...rest] = positionals;
    if (subcommand !== undefined && !['infer', 'pull', 'drop', 'list'].includes(subcommand)) throw new UsageError(`unknown subcommand "${subcommand}"`);
    if (subcommand === 'list' && argument === undefined) return list(flags);
    if (subcommand === undefined || subcommand === 'list' || argument === undefined || rest.length > 0) throw new UsageError();
    const name = typeof flags.name === 'string' ? flags.name : undefined;
    if (subcommand === 'infer') return infer(argument, name, flags.format);
    if (subcommand === 'pull') return pull(argument, name);
    return drop(argument, settingsWithFlags(flags).dbPath);
  },
};

/**
 * The schema path for the editor hint of a file printed to go in the project's sources/: in a
 * repository that installs cannery, the schema is in node_modules/cannery.
 */
function sourceSchemaPath(): string {
  const { endpointsDir, sourcesDir } = readSettings();
  return schemaReference(sourcesDirOf({ endpointsDir, sourcesDir }), endpointsDir, SOURCE_SCHEMA_URL);
}

async function infer(path: string, name: string | undefined, format: string | boolean | undefined): Promise<number> {
  const instance = await openDuckDb({ path: ':memory:' });
  const connection = await instance.connect();
  try {
    const source = await inferSource(connection, path, fileFormat(path, typeof format === 'string' ? format : undefined), name);
    process.stdout.write(sourceFileText(source, sourceSchemaPath(), [`Inferred by \`cannery sources infer\` from ${basename(path)}: check the types, and mark REQUIRED what is never missing.`]));
    return 0;
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

async function pull(table: string, name: string | undefined): Promise<number> {
  const { bigquery } = readSettings();
  const path = tableRef(table, table, bigquery.project, 'cannery sources pull: the table');
  // Loaded only here: infer and drop never need the client.
  const { createBigQueryBackend } = await import('../backends/bigquery/backend.js');
  const { pulledDeclaration } = await import('../backends/bigquery/table-schema.js');
  const backend = createBigQueryBackend({ project: bigquery.project ?? path.project, tables: new Map(), location: bigquery.location, apiEndpoint: bigquery.apiEndpoint });
  try {
    const lookup = await backend.readTable(path);
    if (!lookup.found) throw new Error(`BigQuery has no table ${tablePathText(path)}: ${lookup.reason}`);
    const { declaration, undeclarable } = pulledDeclaration(name ?? defaultName(path.dataset, path.table), path, lookup.metadata);
    const left = undeclarable.map((column) => `${column.path} (${column.type})`);
    if (declaration.columns.length === 0) throw new Error(`${tablePathText(path)} has no column a source file can declare${left.length ? `: ${left.join(', ')}` : ''}`);
    const note = [
      `Pulled by \`cannery sources pull\` from BigQuery's schema of ${tablePathText(path)}.`,
      ...(left.length ? [`Left out, as no source file can declare them (endpoints cannot read them): ${left.join(', ')}.`] : []),
    ];
    const file = sourceFileText(declaration, sourceSchemaPath(), note);
    // What is printed is a file `check` accepts: a --name it refuses, say, is said here, not later.
    const problems = parseSourceFile(file, 'the source file').problems;
    if (problems.length) throw new Error(`cannery sources pull: ${problems.map(formatProblem).join('; ')}`);
    for (const line of left) console.error(`cannery: left out ${line}: a source file cannot declare it`);
    process.stdout.write(file);
    return 0;
  } finally {
    await backend.close();
  }
}

/** DATASET.TABLE, with what a source's name cannot hold (BigQuery's table names allow spaces and any letter) written as `_`. */
function defaultName(dataset: string, table: string): string {
  return `${dataset}.${table.replace(/[^A-Za-z0-9_-]+/g, '_').replace(/^-+|-+$/g, '').replace(/-{2,}/g, '-') || '_'}`;
}

async function list(flags: Flags): Promise<number> {
  const endpointsDir = typeof flags.endpoints === 'string' ? flags.endpoints : readSettings().endpointsDir;
  const declared = await declaredSources(flags, endpointsDir);
  for (const declaration of BUILT_IN_DECLARATIONS) console.log(`${sourceId(declaration)}  ${declaration.name}  (shipped)`);
  for (const declaration of declared) console.log(`${sourceId(declaration)}  ${declaration.name}  ${declaration.file ?? ''}`.trimEnd());
  return 0;
}

async function drop(name: string, dbPath: string): Promise<number> {
  // The log sources' tables are the service's own: their data is removed by other means than a declaration change.
  if (sourceNames(BUILT_IN_SOURCES).includes(name)) throw new Error(`${name} is one of cannery's log sources; \`sources drop\` removes only a declared source's table`);
  const instance = await openDuckDb({ path: dbPath });
  const connection = await instance.connect();
  try {
    const dropped = await dropDeclaredTable(connection, name);
    console.error(dropped ? `dropped table ${name} and its imports from ${dbPath}` : `${dbPath} has no table ${name}; nothing to drop`);
    return 0;
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}
