/** `cannery compact --db FILE`: every source table rewritten in the current storage layout, in time order. */
import { existsSync } from 'node:fs';
import { openDuckDb } from '../backends/duckdb/backend.js';
import { compactSourceTable } from '../backends/duckdb/compact.js';
import { BUILT_IN_SOURCES, sourceNames } from '../config/sources.js';
import type { Command } from './command.js';
import { settingsWithFlags } from './flags.js';

export const compactCommand: Command = {
  options: { db: { type: 'string' } },
  async run(flags) {
    const { dbPath } = settingsWithFlags(flags);
    // Opening would create an empty database, and compact nothing.
    if (dbPath === ':memory:' || !existsSync(dbPath)) throw new Error(`no DuckDB database at ${dbPath}`);
    const instance = await openDuckDb({ path: dbPath });
    const connection = await instance.connect();
    try {
      for (const source of sourceNames(BUILT_IN_SOURCES)) {
        const started = performance.now();
        const outcome = await compactSourceTable(connection, source);
        if (outcome === undefined) continue;
        const lists = outcome.listsAfter.length === 0 ? 'every record a STRUCT' : `lists: ${outcome.listsAfter.join(', ')}`;
        const seconds = ((performance.now() - started) / 1000).toFixed(1);
        console.error(`${source}: ${outcome.rows.toLocaleString('en-US')} row(s), layout ${outcome.layoutBefore} -> current, ${lists} (${seconds} s)`);
      }
      // Space the old copies held is reused by later writes; the file shrinks only by the free blocks at its end.
      await connection.run('CHECKPOINT');
      return 0;
    } finally {
      connection.closeSync();
      instance.closeSync();
    }
  },
};
