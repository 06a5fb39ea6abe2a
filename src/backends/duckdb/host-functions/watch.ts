/**
 * What the backend and the host functions of one DuckDB instance share about the query that calls
 * them. Such queries run one at a time (host-function-gate.ts), so there is one at most: its
 * deadline, which the functions check between rows (a block of 2,048 rows holds the event loop,
 * and with it the timer of the query's timeout), and what the functions met in it, which DuckDB
 * does not always pass on: a bound passed under SAFE. (whose TRY makes the error a NULL), and an
 * error in a streamed answer's later blocks (the stream then just ends, result-rows.ts).
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
}

/** A watch with no query running: functions called outside the service (`cannery run`, tests) have no deadline. */
export function hostWatch(): HostWatch {
  return { deadline: Infinity, bound: undefined, expired: false, failure: undefined };
}

/** Starts watching a query whose time is up at `deadline`. */
export function watchQuery(watch: HostWatch, deadline: number): void {
  Object.assign(watch, hostWatch(), { deadline });
}
