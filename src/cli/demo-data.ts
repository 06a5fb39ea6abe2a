/**
 * The demo database of `serve --demo`: seeded on first run, topped up to now at every start and
 * fed while serving (src/demo/live.ts), and the generated key kept beside it. Only a database with
 * the demo marker is ever written to; any other is served as it is.
 */
import { existsSync } from 'node:fs';
import type { Settings } from '../config/settings.js';
import type { DuckDbBackend } from '../backends/duckdb/backend.js';
import { readDemoMarker, type DemoMarker } from '../demo/marker.js';
import { LIVE_BATCH_MS, startLiveFeed, topUpDemoData, type LiveFeed } from '../demo/live.js';
import { DEMO_EDGE_EVENTS, seedDatabase } from './seed.js';

/** The generated API key of the demo, kept beside its database (owner-only) and printed on every start. */
export function demoKeyFile(dbPath: string): string {
  return `${dbPath}.api-key`;
}

/** Seeds a missing database; the demo marker of the database, or undefined when it is not demo data. */
export async function prepareDemoDatabase(settings: Settings): Promise<DemoMarker | undefined> {
  if (!existsSync(settings.dbPath)) {
    console.log(`cannery: first run, seeding demo data into ${settings.dbPath} ...`);
    const started = performance.now();
    const total = await seedDatabase(settings.dbPath, DEMO_EDGE_EVENTS, settings.loadMemoryLimit, settings.now);
    console.log(`cannery: seeded ${total.toLocaleString('en-US')} events in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  }
  const marker = await readDemoMarker(settings.dbPath);
  if (!marker) console.error(`cannery: ${settings.dbPath} was not written by \`cannery seed\`; serving it as it is (no live demo events)`);
  return marker;
}

/** Tops the demo data up to now, then keeps it current until the feed is closed. */
export async function keepDemoCurrent(backend: DuckDbBackend, marker: DemoMarker, fixedNow: Date | undefined): Promise<LiveFeed> {
  const clock = () => fixedNow ?? new Date();
  const connection = await backend.connect();
  let topUp;
  try {
    topUp = await topUpDemoData(connection, marker.edgeEvents, clock());
  } finally {
    connection.closeSync();
  }
  const minutes = topUp ? (topUp.until.getTime() - topUp.newest.getTime()) / 60_000 : 0;
  // A gap of seconds (a restart, or the seed just now) is filled without a word.
  if (topUp && minutes >= 1) {
    const age = minutes < 60 ? `${Math.round(minutes)} min` : `${(minutes / 60).toFixed(1)} h`;
    console.log(`cannery: demo data ended ${age} ago; topped up with ${topUp.events.toLocaleString('en-US')} events to now`);
  }
  console.log(`cannery: demo events keep arriving while serving (at the rate of the seed's last hour, a batch every ${LIVE_BATCH_MS / 1000} s)`);
  return startLiveFeed({
    connect: () => backend.connect(),
    edgeEvents: marker.edgeEvents,
    since: topUp?.until ?? clock(),
    // Under CANNERY_NOW time stands still, so no new events are due.
    clock,
    log: (line) => console.error(`cannery: ${line}`),
  });
}
