/** `cannery import --db FILE --source NAME [FILE.ndjson | -]`: NDJSON log events into a source's table. */
import { createReadStream } from 'node:fs';
import { openDuckDb } from '../backends/duckdb/backend.js';
import { BUILT_IN_SOURCES, sourceNames } from '../config/sources.js';
import { importNdjson } from '../backends/duckdb/import/import.js';
import type { Command } from './command.js';
import { settingsWithFlags } from './flags.js';
import { didYouMean } from '../config/spelling.js';

export const importCommand: Command = {
  options: { db: { type: 'string' }, source: { type: 'string' } },
  async run(flags, positionals) {
    const { dbPath } = settingsWithFlags(flags);
    const source = flags.source;
    const known = sourceNames(BUILT_IN_SOURCES);
    if (typeof source !== 'string') throw new Error(`--source is required (one of: ${known.join(', ')})`);
    // Endpoints can only read known sources, so a table under any other name would be unreachable.
    if (!known.includes(source)) throw new Error(`unknown source "${source}"${didYouMean(source, known)}; known sources: ${known.join(', ')}`);
    const [path = '-'] = positionals;
    const input = path === '-' ? process.stdin : createReadStream(path);
    const instance = await openDuckDb({ path: dbPath });
    const connection = await instance.connect();
    try {
      const { rows } = await importNdjson(connection, source, input, { sources: BUILT_IN_SOURCES });
      console.error(`imported ${rows.toLocaleString('en-US')} event(s) into ${source} in ${dbPath}`);
      return 0;
    } finally {
      connection.closeSync();
      instance.closeSync();
    }
  },
};
