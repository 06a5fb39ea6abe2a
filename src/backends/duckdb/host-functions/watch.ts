/**
 * What the backend and the host functions of one DuckDB instance share about the query that calls
 * them. Such queries run one at a time (host-function-gate.ts), so there is one at most: its
 * deadline, which the functions check between rows (a block of 2,048 rows holds the event loop,
 * and with it the timer of the query's timeout), and what the functions met in it, which DuckDB
 * does not always pass on: a bound passed under SAFE. (whose TRY makes the error a NULL), and an
 * error in a streamed answer's later blocks (the stream then just ends, result-rows.ts).
 *
 * And whether the event loop still gets its turns. Blocks reach JavaScript through the bindings'
 * thread-safe function, whose queued calls node runs back to back, up to 1,000 in one turn of the
 * loop (nodejs/node#38506): with several DuckDB threads, one thread's next block is queued while
 * the other's runs, and the loop never turns until the query ends. So while such a query runs a
 * heartbeat counts the loop's turns, and the functions count the time their blocks take since the
 * last beat they saw (host-function-bounds.ts bounds it).
 */
export interface HostWatch {
  /** `performance.now()` past which the functions stop: the running query's timeout. */
  deadline: number;
  /** The first bound a function refused in the running query. */
  bound: string | undefined;
  /** A function stopped because the deadline had passed. */
  expired: boolean;
  /** The first error a function raised in the running query. */
  failure: string | undefined;
  /** The heartbeat's beats: the loop's turns, at most one in HEARTBEAT_MS; undefined with no heartbeat armed (no service is held). */
  beats: number | undefined;
  /** The beat the functions last saw. */
  beatSeen: number;
  /** Milliseconds of blocks run since the beat last seen: the loop's time held by the functions. */
  held: number;
  /** The blocks run since the beat last seen. */
  blocks: number;
}

/** How often the heartbeat may beat: a turn of the loop is seen within this, and it costs a hundred timer callbacks a second while a host-function query runs (measured 2026-11-29: 80 to 100 ms of CPU in 5 s, under 2% of a core, on a loaded machine). */
export const HEARTBEAT_MS = 10;

/** A watch with no query running: functions called outside the service (`cannery run`, tests) have no deadline. */
export function hostWatch(): HostWatch {
  return { deadline: Infinity, bound: undefined, expired: false, failure: undefined, beats: undefined, beatSeen: 0, held: 0, blocks: 0 };
}

/** Starts watching a query whose time is up at `deadline`, with the heartbeat armed; the function returned stops it. */
export function watchQuery(watch: HostWatch, deadline: number): () => void {
  Object.assign(watch, hostWatch(), { deadline, beats: 0 });
  const heartbeat = setInterval(() => (watch.beats! += 1), HEARTBEAT_MS);
  // The heartbeat alone never keeps the process up.
  heartbeat.unref();
  return () => {
    clearInterval(heartbeat);
    watch.deadline = Infinity;
    watch.beats = undefined;
  };
}

/** At a block's start: whether the functions have held the loop past `boundMs` since its last turn, over at least `blocks` blocks (host-function-bounds.ts says why both); the time held if so. */
export function heldPast(watch: HostWatch, boundMs: number, blocks: number): number | undefined {
  if (watch.beats === undefined) return undefined;
  if (watch.beats !== watch.beatSeen) {
    watch.beatSeen = watch.beats;
    watch.held = 0;
    watch.blocks = 0;
  }
  return watch.held > boundMs && watch.blocks >= blocks ? watch.held : undefined;
}

/** After a block: its time, held with the blocks before it since the last beat. */
export function blockRan(watch: HostWatch, ms: number): void {
  watch.held += ms;
  watch.blocks += 1;
}
