/**
 * Progress of long seeds and imports, on stderr (stdout may carry data). On a terminal, one line
 * redrawn in place: a bar when the total is known, events, bytes, events per second and the time
 * left. Elsewhere (a log file, CI) a plain line now and then, which neither fills the log with `\r`
 * frames nor leaves a long load silent.
 */
import { formatBytes } from '../backends/duckdb/import/bytes.js';

export interface Progress {
  events: number;
  /** The events there will be, when known (seed). */
  totalEvents?: number;
  /** Bytes read so far, and of the whole input when known (a file, not a pipe). */
  bytes?: number;
  totalBytes?: number;
}

export interface ProgressStream {
  isTTY?: boolean;
  write(text: string): unknown;
}

export interface ProgressOptions {
  width?: number;
  /** Milliseconds, for tests; `performance.now` otherwise. */
  now?: () => number;
  /** How often a plain line is written when the stream is not a terminal. */
  plainEveryMs?: number;
}

export interface ProgressReporter {
  update(progress: Progress): void;
  /** The load ended (the command prints its own summary): ends the terminal's line. */
  done(): void;
}

const REDRAW_MS = 100;
const PLAIN_EVERY_MS = 10_000;

export function renderProgressBar(fraction: number, width = 30): string {
  const clamped = Math.min(1, Math.max(0, fraction));
  const filled = Math.round(clamped * width);
  return `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${`${Math.floor(clamped * 100)}%`.padStart(4)}`;
}

/** `1:02:03`, `4:05`, `0:07`. */
export function formatDuration(seconds: number): string {
  const whole = Math.max(0, Math.round(seconds));
  const h = Math.floor(whole / 3600);
  const m = Math.floor((whole % 3600) / 60);
  const s = String(whole % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${s}` : `${m}:${s}`;
}

function count(value: number): string {
  return value.toLocaleString('en-US');
}

/** The fraction done, by bytes when the input's size is known, else by events when their number is. */
function fractionOf(progress: Progress): number | undefined {
  if (progress.totalBytes !== undefined && progress.bytes !== undefined) return progress.totalBytes === 0 ? 1 : progress.bytes / progress.totalBytes;
  if (progress.totalEvents !== undefined) return progress.totalEvents === 0 ? 1 : progress.events / progress.totalEvents;
  return undefined;
}

/** The figures of a progress line, without the label or the bar. */
export function describeProgress(progress: Progress, elapsedMs: number): string {
  const parts = [progress.totalEvents === undefined ? `${count(progress.events)} events` : `${count(progress.events)}/${count(progress.totalEvents)} events`];
  if (progress.bytes !== undefined) {
    parts.push(progress.totalBytes === undefined ? formatBytes(progress.bytes) : `${formatBytes(progress.bytes)} of ${formatBytes(progress.totalBytes)}`);
  }
  const seconds = elapsedMs / 1000;
  if (seconds > 0) parts.push(`${count(Math.round(progress.events / seconds))} events/s`);
  const fraction = fractionOf(progress);
  if (fraction !== undefined && fraction > 0 && fraction < 1 && seconds > 0) parts.push(`ETA ${formatDuration((seconds * (1 - fraction)) / fraction)}`);
  return parts.join(', ');
}

export function progressReporter(label: string, stream: ProgressStream = process.stderr, options: ProgressOptions = {}): ProgressReporter {
  const now = options.now ?? (() => performance.now());
  const started = now();
  let last: Progress | undefined;
  let drawnAt = Number.NEGATIVE_INFINITY;
  let drawn = false;

  const line = (progress: Progress) => {
    const fraction = fractionOf(progress);
    const bar = fraction === undefined ? '' : `${renderProgressBar(fraction, options.width)} `;
    return `${label} ${bar}${describeProgress(progress, now() - started)}`;
  };

  if (!stream.isTTY) {
    const every = options.plainEveryMs ?? PLAIN_EVERY_MS;
    let next = started + every;
    return {
      update(progress) {
        if (now() < next) return;
        next = now() + every;
        stream.write(`${line(progress)}\n`);
      },
      done() {},
    };
  }
  return {
    update(progress) {
      last = progress;
      if (now() - drawnAt < REDRAW_MS) return;
      drawnAt = now();
      drawn = true;
      // Clear to the end of the line: the new text may be shorter than the last.
      stream.write(`\r${line(progress)}\u001b[K`);
    },
    done() {
      if (last !== undefined) stream.write(`\r${line(last)}\u001b[K`);
      if (drawn || last !== undefined) stream.write('\n');
    },
  };
}
