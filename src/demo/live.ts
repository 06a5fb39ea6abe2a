/**
 * Demo data that stays current: `serve --demo` tops up a demo database whose newest event is in
 * the past (a database seeded yesterday would otherwise answer the printed curls with `[]` once its
 * last hour had passed) and then keeps writing small batches while it serves, through the seed's
 * own generators, so the minutely charts move as they are watched.
 *
 * Rates follow the seed: the last hour at the rate of a full seed's last hour, anything older at the
 * rate of the rest of its week. Only a database with the demo marker (marker.ts) comes here.
 */
import type { DuckDBConnection } from '#duckdb-api';
import { quoteIdentifier } from '../sql/dialects/duckdb/quote.js';
import { SHARE_OF_EDGE, lastHourEvents, seedDemoData } from './seed.js';

const HOUR_MS = 3_600_000;
const WEEK_MS = 7 * 24 * HOUR_MS;
const EDGE_SOURCE = 'cloudflare.logs.prod';
/**
 * A batch every ten seconds: a few edge events each at the demo's rate, so a minutely chart moves
 * as it is watched; a batch costs about 0.2 s of CPU.
 */
export const LIVE_BATCH_MS = 10_000;

/** Edge events per millisecond: in the last hour, and over the rest of a seeded week. */
function rates(edgeEvents: number): { live: number; week: number } {
  const lastHour = lastHourEvents(edgeEvents);
  return { live: lastHour / HOUR_MS, week: (edgeEvents - lastHour) / (WEEK_MS - HOUR_MS) };
}

/** Events per source for `ms` at `edgePerMs`, with the fractions carried in `owed` to the next call. */
function eventsFor(edgePerMs: number, ms: number, owed: Map<string, number>): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const [source, share] of Object.entries(SHARE_OF_EDGE)) {
    const due = (owed.get(source) ?? 0) + edgePerMs * share * ms;
    counts[source] = Math.floor(due);
    owed.set(source, due - counts[source]);
  }
  return counts;
}

async function writeSpan(connection: DuckDBConnection, since: Date, now: Date, counts: Record<string, number>, rotation = 0): Promise<number> {
  const total = Object.values(counts).reduce((sum, count) => sum + count, 0);
  if (total === 0) return 0;
  await seedDemoData(connection, { edgeEvents: counts[EDGE_SOURCE] ?? 0, counts, since, now, rotation });
  return total;
}

/** The newest edge event's time, or undefined for an empty table. */
async function newestEvent(connection: DuckDBConnection): Promise<Date | undefined> {
  const reader = await connection.runAndReadAll(`SELECT epoch_ms(max("timestamp")) AS newest FROM ${quoteIdentifier(EDGE_SOURCE)}`);
  const newest = (reader.getRowObjectsJS()[0] as { newest: bigint | null }).newest;
  return newest === null ? undefined : new Date(Number(newest));
}

export interface TopUp {
  /** The newest event before the top-up. */
  newest: Date;
  /** Events written; 0 when the data was current. */
  events: number;
  /** Where the data now ends: the live feed starts there. */
  until: Date;
}

/**
 * Fills the time from the newest event (at most a week back) to `now`; undefined when the
 * database has no events to go on from.
 */
export async function topUpDemoData(connection: DuckDBConnection, edgeEvents: number, now = new Date()): Promise<TopUp | undefined> {
  const newest = await newestEvent(connection);
  if (newest === undefined) return undefined;
  if (newest >= now) return { newest, events: 0, until: newest };
  const { live, week } = rates(edgeEvents);
  const from = new Date(Math.max(newest.getTime(), now.getTime() - WEEK_MS));
  const hourAgo = new Date(now.getTime() - HOUR_MS);
  let events = 0;
  if (from < hourAgo) events += await writeSpan(connection, from, hourAgo, eventsFor(week, hourAgo.getTime() - from.getTime(), new Map()));
  const recent = from < hourAgo ? hourAgo : from;
  events += await writeSpan(connection, recent, now, eventsFor(live, now.getTime() - recent.getTime(), new Map()));
  return { newest, events, until: now };
}

export interface LiveFeed {
  /** Stops the feed, after the batch being written, if any. */
  close(): Promise<void>;
}

/** Writes a batch every LIVE_BATCH_MS covering the time since the last one, starting at `since`. */
export function startLiveFeed(options: {
  connect: () => Promise<DuckDBConnection>;
  edgeEvents: number;
  since: Date;
  /** Now, at each batch. */
  clock: () => Date;
  log: (line: string) => void;
}): LiveFeed {
  const { live } = rates(options.edgeEvents);
  const owed = new Map<string, number>();
  let last = options.since;
  let rotation = 0;
  let connection: DuckDBConnection | undefined;
  let writing: Promise<unknown> | undefined;
  let failed = false;
  const batch = async () => {
    connection ??= await options.connect();
    const now = options.clock();
    if (now <= last) return;
    const counts = eventsFor(live, now.getTime() - last.getTime(), owed);
    await writeSpan(connection, last, now, counts, rotation);
    rotation += counts[EDGE_SOURCE] ?? 0;
    last = now;
  };
  const timer = setInterval(() => {
    if (writing) return;
    writing = batch()
      .then(() => (failed = false))
      .catch((error: Error) => {
        // Said once per run of failures, not at every batch.
        if (!failed) options.log(`the demo's live events could not be written (${error.message}); trying again`);
        failed = true;
      })
      .finally(() => (writing = undefined));
  }, LIVE_BATCH_MS);
  timer.unref();
  return {
    async close() {
      clearInterval(timer);
      await writing;
      connection?.closeSync();
    },
  };
}
