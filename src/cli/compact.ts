/**
 * `cannery compact [--db FILE]`: every log source's table rewritten in the current storage layout, in
 * time order; every declared source's with a time_column, in that column's order.
 */
import { existsSync } from 'node:fs';
import { openDuckDb } from '../backends/duckdb/backend.js';
import { compactSourceTable } from '../backends/duckdb/compact.js';
import { compactDeclaredTable } from '../backends/duckdb/declared-tables.js';
import { BUILT_IN_SOURCES, sourceNames } from '../config/sources.js';
import type { Command } from './command.js';
import { settingsWithFlags } from './flags.js';
import { declaredSources } from './source-folder.js';

export const compactCommand: Command = {
  options: { db: { type: 'string' }, sources: { type: 'string' } },
  async run(flags) {
    const { dbPath, endpointsDir } = settingsWithFlags(flags);
    const declared = await declaredSources(flags, endpointsDir);
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
      for (const source of declared) {
        const rows = await compactDeclaredTable(connection, source);
        if (rows !== undefined) console.error(`${source.name}: ${rows.toLocaleString('en-US')} row(s), in ${source.timeColumn} order`);
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
