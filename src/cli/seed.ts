/**
 * `cannery seed [--db FILE] [--events N] [--now ISO] [--memory-limit SIZE]`: realistic demo data for
 * all nine sources, and the marker that lets `serve --demo` keep it current (src/demo/marker.ts).
 */
import { openDuckDb } from '../backends/duckdb/backend.js';
import { progressReporter } from './progress.js';
import { seedDemoData } from '../demo/seed.js';
import { writeDemoMarker } from '../demo/marker.js';
import type { Command } from './command.js';
import { positiveInteger, settingsWithFlags } from './flags.js';

/** Edge events `serve --demo` seeds on first run: a lively week in a few seconds. */
export const DEMO_EDGE_EVENTS = 50_000;

export async function seedDatabase(dbPath: string, edgeEvents: number, memoryLimit: string, now?: Date): Promise<number> {
  const instance = await openDuckDb({ path: dbPath, memoryLimit });
  const connection = await instance.connect();
  const progress = progressReporter('seeding');
  try {
    const result = await seedDemoData(connection, { edgeEvents, now, onProgress: (events, totalEvents) => progress.update({ events, totalEvents }) });
    await writeDemoMarker(dbPath, { edgeEvents });
    return result.total;
  } finally {
    progress.done();
    connection.closeSync();
    instance.closeSync();
  }
}

export const seedCommand: Command = {
  options: { db: { type: 'string' }, events: { type: 'string' }, now: { type: 'string' }, 'memory-limit': { type: 'string' } },
  async run(flags) {
    const { dbPath, loadMemoryLimit, now: fixedNow } = settingsWithFlags(flags);
    const edgeEvents = positiveInteger('events', flags.events, DEMO_EDGE_EVENTS);
    const now = flags.now === undefined ? fixedNow : new Date(String(flags.now));
    if (now !== undefined && Number.isNaN(now.getTime())) throw new Error(`--now must be a date and time such as 2026-11-20T12:00:00Z (got "${flags.now}")`);
    const started = performance.now();
    const total = await seedDatabase(dbPath, edgeEvents, loadMemoryLimit, now);
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    console.error(`seeded ${total.toLocaleString('en-US')} events (${edgeEvents.toLocaleString('en-US')} edge) into ${dbPath} in ${seconds} s`);
    return 0;
  },
};
