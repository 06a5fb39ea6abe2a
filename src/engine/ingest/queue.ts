/**
 * One writer, group commit: requests wait in a bounded queue, and the writer takes the requests
 * waiting when it is free (up to MAX_GROUP_EVENTS events) and commits each source's events of them in one transaction (one
 * staged file, one ledger row), so N concurrent senders cost one commit, not N. A request is
 * answered once the transaction holding its events has committed, never before.
 *
 * A group that fails (a value DuckDB refuses that the checks let through, the disk full) is written
 * again request by request, so one bad request never fails the others queued beside it.
 *
 * The queue is bounded by events waiting: a request that would pass the bound is refused at once
 * (429 with Retry-After), so a writer that falls behind costs senders a retry, not the server memory.
 */
import { randomUUID } from 'node:crypto';
import { CanneryError } from '../../core/errors.js';

/** Where the writer commits: one source's events in one transaction, all or nothing. */
export interface IngestTarget {
  write(source: string, lines: readonly string[], batchId: string): Promise<void>;
  close(): Promise<void>;
}

/** Told what the writer does, for the metrics. */
export interface IngestObserver {
  /** One transaction of the writer: a source's events of every request it took. */
  committed(source: string, seconds: number): void;
  queueDepth(events: number): void;
}

export interface IngestReceipt {
  accepted: number;
  /** The committed batch (ledger row) that holds the request's events. */
  batch: string;
}

export interface IngestQueue {
  /** Resolves once `lines` (staged events of one request) are committed; too_many_requests when the queue is full. */
  submit(source: string, lines: readonly string[]): Promise<IngestReceipt>;
  /** Events waiting, and being written. */
  readonly depth: number;
  /** Refuses new requests, finishes what is queued, then closes the target. */
  close(): Promise<void>;
}

interface Pending {
  source: string;
  lines: readonly string[];
  resolve: (receipt: IngestReceipt) => void;
  reject: (error: unknown) => void;
}

/** How long a refused sender is told to wait: about one group commit. */
const RETRY_AFTER_SECONDS = 1;

/**
 * Events one transaction takes at most (a request larger than this is still one transaction): a
 * backlog is written in groups of about this size, so no group's work holds the server for long and
 * the first requests waiting are answered without waiting for the whole backlog.
 */
const MAX_GROUP_EVENTS = 5_000;

/** The requests at the head of `waiting` that make one group: up to MAX_GROUP_EVENTS events, at least one request. */
function takeGroup(waiting: Pending[]): Pending[] {
  let events = 0;
  let count = 0;
  while (count < waiting.length && (count === 0 || events + waiting[count]!.lines.length <= MAX_GROUP_EVENTS)) {
    events += waiting[count]!.lines.length;
    count += 1;
  }
  return waiting.splice(0, count);
}

export function createIngestQueue(options: {
  target: IngestTarget;
  /** Events that may wait (and be in the batch being written) at once. */
  maxQueuedEvents: number;
  observer?: IngestObserver;
}): IngestQueue {
  const { target, maxQueuedEvents, observer } = options;
  const waiting: Pending[] = [];
  let depth = 0;
  let writing: Promise<void> | undefined;
  let closed = false;

  const commit = async (source: string, group: readonly Pending[]) => {
    const batch = randomUUID();
    const lines = group.length === 1 ? group[0]!.lines : group.flatMap((pending) => pending.lines);
    const started = performance.now();
    await target.write(source, lines, batch);
    observer?.committed(source, (performance.now() - started) / 1000);
    for (const pending of group) pending.resolve({ accepted: pending.lines.length, batch });
  };

  const writeAll = async () => {
    while (waiting.length > 0) {
      const taken = takeGroup(waiting);
      // Each source's events in arrival order, one transaction each.
      const bySource = new Map<string, Pending[]>();
      for (const pending of taken) bySource.set(pending.source, [...(bySource.get(pending.source) ?? []), pending]);
      for (const [source, group] of bySource) {
        try {
          await commit(source, group);
        } catch (error) {
          if (group.length === 1) group[0]!.reject(error);
          else for (const pending of group) await commit(source, [pending]).catch(pending.reject);
        }
        depth -= group.reduce((sum, pending) => sum + pending.lines.length, 0);
        observer?.queueDepth(depth);
      }
    }
  };

  const pump = () => {
    writing ??= writeAll().finally(() => {
      writing = undefined;
      if (waiting.length > 0) pump();
    });
  };

  return {
    submit(source, lines) {
      if (closed) return Promise.reject(new CanneryError('too_many_requests', 'the server is stopping; send the events again to its next start', { retryAfterSeconds: RETRY_AFTER_SECONDS }));
      if (lines.length === 0) return Promise.resolve({ accepted: 0, batch: randomUUID() });
      // One request larger than the whole queue is still taken when nothing waits: it could never be otherwise.
      if (depth > 0 && depth + lines.length > maxQueuedEvents) {
        return Promise.reject(
          new CanneryError('too_many_requests', `the writer is behind (${depth} events waiting, at most ${maxQueuedEvents}); send again after Retry-After`, {
            retryAfterSeconds: RETRY_AFTER_SECONDS,
          }),
        );
      }
      depth += lines.length;
      observer?.queueDepth(depth);
      const receipt = new Promise<IngestReceipt>((resolve, reject) => waiting.push({ source, lines, resolve, reject }));
      pump();
      return receipt;
    },
    get depth() {
      return depth;
    },
    async close() {
      closed = true;
      while (writing) await writing;
      await target.close();
    },
  };
}
