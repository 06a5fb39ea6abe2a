/**
 * `cannery sources infer FILE [--name NAME] [--format F]`: a source file for a sample file, on stdout.
 * `cannery sources drop NAME --db FILE`: a declared source's table and its imports gone, so a
 * declaration whose change would lose stored values (declared-tables.ts refuses it) can start afresh.
 */
import { openDuckDb } from '../backends/duckdb/backend.js';
import { dropDeclaredTable } from '../backends/duckdb/declared-tables.js';
import { fileFormat } from '../backends/duckdb/import/declared-import.js';
import { inferSource, sourceFileText } from '../backends/duckdb/infer.js';
import { BUILT_IN_SOURCES, sourceNames } from '../config/sources.js';
import { SOURCE_SCHEMA_URL } from '../config/source-files.js';
import { readSettings, sourcesDirOf } from '../config/settings.js';
import type { Command } from './command.js';
import { settingsWithFlags } from './flags.js';
import { schemaReference } from './schema-reference.js';

const SUBCOMMANDS = 'infer FILE [--name NAME] [--format ndjson|csv|parquet], or drop NAME --db FILE';

export const sourcesCommand: Command = {
  options: {
    name: { type: 'string' },
    format: { type: 'string' },
    db: { type: 'string' },
  },
  async run(flags, positionals) {
    const [subcommand, argument, ...rest] = positionals;
    if (argument === undefined || rest.length > 0) throw new Error(`usage: cannery sources ${SUBCOMMANDS}`);
    if (subcommand === 'infer') return infer(argument, flags.name, flags.format);
    if (subcommand === 'drop') return drop(argument, settingsWithFlags(flags).dbPath);
    throw new Error(`unknown subcommand "${subcommand}": cannery sources ${SUBCOMMANDS}`);
  },
};

async function infer(path: string, name: string | boolean | undefined, format: string | boolean | undefined): Promise<number> {
  const instance = await openDuckDb({ path: ':memory:' });
  const connection = await instance.connect();
  try {
    const source = await inferSource(connection, path, fileFormat(path, typeof format === 'string' ? format : undefined), typeof name === 'string' ? name : undefined);
    // Where the file is to go (the project's sources/), so the editor hint resolves there: in a
    // repository that installs cannery, the schema is in node_modules/cannery.
    const { endpointsDir, sourcesDir } = readSettings();
    const schema = schemaReference(sourcesDirOf({ endpointsDir, sourcesDir }), endpointsDir, SOURCE_SCHEMA_URL);
    process.stdout.write(sourceFileText(source, path, schema));
    return 0;
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
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
