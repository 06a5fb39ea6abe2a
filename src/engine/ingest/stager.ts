/**
 * Events read and checked on a worker thread. Parsing a request's JSON and checking each event
 * against its source's columns is most of the CPU an event costs before the writer: on the event
 * loop it held every other answer (`/health`, queries) for as long as a 1,000-event request took,
 * and under a stream of them, for most of the time. Here one thread does it, below the event loop's
 * priority (core/thread-priority.ts), requests in the order they came: their events reach the
 * writer in arrival order, as before.
 *
 * One thread: the machines this serves have few cores, and the writer (DuckDB's threads) needs
 * the rest. A thread that fails (a bug, not a bad event) fails the requests it held, and the next
 * request starts another.
 */
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { CanneryError, type ErrorCode } from '../../core/errors.js';
import type { BodyKind, EventDialect, IngestSource } from './events.js';

export interface StageTask {
  id: number;
  /** The body's bytes, copied to the thread (which decodes them). */
  body: Uint8Array;
  kind: BodyKind;
  dialect: EventDialect;
  source: IngestSource;
  /** The time received, in milliseconds since 1970. */
  now: number;
}

export type StageReply =
  | { id: number; lines: string[] }
  | { id: number; refused: { code: ErrorCode; message: string; param: string | undefined }; events: number }
  | { id: number; failed: string; events: number };

/** A request's events refused, and how many the body held (0 when it was not read that far). */
export class StagingRefused extends Error {
  readonly events: number;
  constructor(cause: unknown, events: number) {
    super(cause instanceof Error ? cause.message : String(cause), { cause });
    this.events = events;
  }
}

export interface EventStager {
  /** The staged lines of the body's events; rejects with StagingRefused (its cause the error to answer). */
  stage(source: IngestSource, body: Buffer, kind: BodyKind, dialect: EventDialect, now: Date): Promise<string[]>;
  /** Ends the thread; requests being read fail. */
  close(): Promise<void>;
}

/** The worker's module: beside this one, with the same extension (.js built, .ts under test). */
const WORKER = new URL(`./stage-thread${extname(fileURLToPath(import.meta.url))}`, import.meta.url);

interface Pending {
  resolve(lines: string[]): void;
  reject(error: unknown): void;
}

export function createEventStager(): EventStager {
  let worker: Worker | undefined;
  const pending = new Map<number, Pending>();
  let lastId = 0;

  const thread = (): Worker => {
    if (worker !== undefined) return worker;
    const started = new Worker(WORKER);
    // The thread keeps the process alive only while a request waits on it.
    started.unref();
    started.on('message', (reply: StageReply) => {
      const job = pending.get(reply.id);
      if (job === undefined) return;
      pending.delete(reply.id);
      if (pending.size === 0) started.unref();
      if ('lines' in reply) job.resolve(reply.lines);
      else if ('refused' in reply) job.reject(new StagingRefused(new CanneryError(reply.refused.code, reply.refused.message, { param: reply.refused.param }), reply.events));
      else job.reject(new StagingRefused(new Error(`reading the events failed: ${reply.failed}`), reply.events));
    });
    const failed = (error: unknown) => {
      if (worker === started) worker = undefined;
      const cause = error instanceof Error ? error : new Error(`the thread reading events exited (${String(error)})`);
      for (const job of pending.values()) job.reject(new StagingRefused(cause, 0));
      pending.clear();
    };
    started.once('error', failed);
    started.once('exit', failed);
    worker = started;
    return started;
  };

  return {
    stage(source, body, kind, dialect, now) {
      const id = (lastId += 1);
      const target = thread();
      return new Promise<string[]>((resolve, reject) => {
        pending.set(id, { resolve, reject });
        target.ref();
        const task: StageTask = { id, body, kind, dialect, source, now: now.getTime() };
        target.postMessage(task);
      });
    },
    async close() {
      const ending = worker;
      worker = undefined;
      await ending?.terminate();
    },
  };
}
