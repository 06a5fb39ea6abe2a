/**
 * Structured logs: one JSON object per line, `time` and `level` first, on stdout by default.
 * No logging library: one line format, five levels and a buffered write are all that is needed.
 */

export const LOG_THRESHOLDS = ['debug', 'info', 'warn', 'error', 'silent'] as const;
/** The least severe level written; `silent` writes nothing. */
export type LogThreshold = (typeof LOG_THRESHOLDS)[number];
export type LogLevel = Exclude<LogThreshold, 'silent'>;

export interface Logger {
  /** Whether a line at `level` is written: callers skip building one otherwise. */
  enabled(level: LogLevel): boolean;
  /**
   * Writes one line: `{"time":…,"level":…,` then `members`, the object's other members already
   * encoded as JSON (`"msg":"request","status":200`), so a hot path can build them by hand.
   */
  write(level: LogLevel, members: string): void;
}

/** Takes one line, without its newline. */
type LineSink = (line: string) => void;

const RANK: Record<LogThreshold, number> = { debug: 0, info: 1, warn: 2, error: 3, silent: 4 };

export function createLogger(threshold: LogThreshold, sink: LineSink = stdoutSink()): Logger {
  const least = RANK[threshold];
  return {
    enabled: (level) => RANK[level] >= least,
    write(level, members) {
      if (RANK[level] >= least) sink(`{"time":"${isoNow()}","level":"${level}",${members}}`);
    },
  };
}

const isoNow = isoClock(Date.now);

/**
 * The time in ISO 8601, as Date#toISOString gives it, for a clock in ms. Under load many lines
 * share a millisecond and nearly all share a second, so the date and time to the second are
 * formatted once per second and only the milliseconds after that (toISOString costs about as
 * much as the rest of a request's line).
 */
export function isoClock(now: () => number): () => string {
  let lastMs = Number.NaN;
  let lastIso = '';
  let secondStart = Number.NaN;
  // Up to and including the decimal point: "2026-11-21T17:14:15."
  let secondPrefix = '';
  return () => {
    const ms = now();
    if (ms === lastMs) return lastIso;
    lastMs = ms;
    let milli = ms - secondStart;
    if (!(milli >= 0 && milli < 1000)) {
      secondStart = Math.floor(ms / 1000) * 1000;
      const iso = new Date(secondStart).toISOString();
      secondPrefix = iso.slice(0, iso.length - 4);
      milli = ms - secondStart;
    }
    lastIso = `${secondPrefix}${milli < 10 ? '00' : milli < 100 ? '0' : ''}${milli}Z`;
    return lastIso;
  };
}

/** Bytes of lines gathered before they are written: about a hundred and fifty request lines. */
const FLUSH_BYTES = 32 * 1024;
/** The longest a line waits to be written. */
const FLUSH_MS = 50;

/**
 * Lines for stdout, written together: when FLUSH_BYTES have gathered, FLUSH_MS after the first of
 * them, and at exit. A write to a pipe or a file is synchronous in Node, and a request's whole
 * cost is some microseconds: a system call per line would be a large part of it.
 *
 * Each line is encoded into the batch's buffer as it comes. Appending lines to one string instead
 * builds a rope of thousands of pieces that the write must flatten, and that cost three times as
 * much per line (1.2 µs against 0.4 µs, writing 230-character lines to a pipe).
 */
function stdoutSink(): LineSink {
  let batch = Buffer.allocUnsafe(FLUSH_BYTES);
  let used = 0;
  let timer: NodeJS.Timeout | undefined;
  const flush = () => {
    clearTimeout(timer);
    timer = undefined;
    if (used === 0) return;
    // The stream may hold on to what it is given (a TTY or a socket writes later), so the next
    // batch gets a buffer of its own.
    process.stdout.write(batch.subarray(0, used));
    batch = Buffer.allocUnsafe(FLUSH_BYTES);
    used = 0;
  };
  process.on('exit', flush);
  return (line) => {
    // A UTF-8 character is at most 3 bytes per UTF-16 code unit.
    const most = line.length * 3 + 1;
    if (used + most > FLUSH_BYTES) flush();
    if (most > FLUSH_BYTES) {
      process.stdout.write(`${line}\n`);
      return;
    }
    used += batch.write(line, used);
    batch[used++] = 0x0a;
    // Unref'd: a pending flush must not keep a finished process alive; exit writes what is left.
    timer ??= setTimeout(flush, FLUSH_MS).unref();
  };
}
