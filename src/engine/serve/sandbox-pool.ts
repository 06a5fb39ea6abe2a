/**
 * Sandbox SQL compiled on worker threads. Parsing and writing a caller's SQL can take long (two
 * thousand UNION ALLs, or scalar subqueries nested twenty deep, which the grammar parses in
 * exponential time), and on the event loop it would hold every other request. Here it holds one
 * thread of a small pool; a compile past its time budget, or past its thread's heap
 * (core/thread-memory.ts), ends its thread, which a later compile replaces, and the caller gets a
 * 400 naming the bound.
 */
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { CanneryError, type ErrorCode } from '../../core/errors.js';
import { outOfThreadMemory, THREAD_HEAP_MB, threadLimits } from '../../core/thread-memory.js';
import type { EndpointDefinition } from '../../core/types.js';
import type { DialectSettings } from '../../sql/generator/dialect.js';
import type { CompiledSql, Dialect } from '../../sql/generator/dialect.js';
import type { Query } from '../../sql/parse/tree.js';

export interface SandboxTask {
  sql: string;
  /** PII redaction is on: strings are redacted where the SQL reads them (sql/sandbox/redact-reads.ts). */
  redact: boolean;
  /** The endpoint and the dialect, by the numbers they were sent to the thread under. */
  endpoint: number;
  dialect: number;
  /** What the thread does not hold yet: endpoints and dialects (as data) by number; `forget` first drops all it holds. */
  forget?: true;
  endpoints?: [number, SandboxEndpoint][];
  dialects?: [number, DialectSettings][];
}

/** What compiling a caller's SQL needs of the endpoint. */
export type SandboxEndpoint = { statement: Query; definition: EndpointDefinition };

export type SandboxReply =
  | { compiled: CompiledSql }
  | { refused: { code: ErrorCode; message: string; param: string | undefined } }
  | { failed: string };

export interface SandboxCompilerOptions {
  /** Most threads (CANNERY_SANDBOX_THREADS). */
  threads: number;
  /** Milliseconds a compile may take (CANNERY_SANDBOX_COMPILE_MS). */
  budgetMs: number;
  /**
   * Compiles that may wait for a thread (CANNERY_MAX_QUEUED_QUERIES, as backend queries); past it,
   * too_many_requests. Unbounded, a burst of heavy SQL would queue without end, each caller
   * waiting for all the compiles before it.
   */
  maxQueued?: number | undefined;
  /** Most MiB of heap a thread may hold (default THREAD_HEAP_MB); past it, that compile is a 400 and its thread is replaced. */
  heapMb?: number | undefined;
}

export interface SandboxCompiler {
  compile(endpoint: SandboxEndpoint, sql: string, dialect: Dialect, options?: { redact?: boolean | undefined }): Promise<CompiledSql>;
  /** Ends the threads; compiles waiting or running fail. */
  close(): Promise<void>;
}

/** The worker's module: beside this one, with the same extension (.js built, .ts under test). */
const WORKER = new URL(`./sandbox-thread${extname(fileURLToPath(import.meta.url))}`, import.meta.url);

/**
 * Endpoints and dialects a thread keeps before it is told to drop them all (hot reloads make new
 * ones). Each is copied to a thread once rather than with every compile: a parsed endpoint and
 * the sources' columns are large, and copying them took a seventh of the event loop's time under
 * a burst of sandbox queries.
 */
const KEPT_PER_THREAD = 64;

interface Job {
  sql: string;
  redact: boolean;
  endpoint: SandboxEndpoint;
  dialect: Dialect;
  resolve(compiled: CompiledSql): void;
  reject(error: unknown): void;
}

export function createSandboxCompiler(options: SandboxCompilerOptions): SandboxCompiler {
  const heapMb = options.heapMb ?? THREAD_HEAP_MB;
  const idle: Worker[] = [];
  const busy = new Set<Worker>();
  const queue: Job[] = [];
  /** The number each endpoint and dialect is sent under, and what each thread holds. */
  const numbers = new WeakMap<object, number>();
  let lastNumber = 0;
  const held = new WeakMap<Worker, Set<number>>();
  let closed = false;

  let starting = 0;

  /** A new thread, idle once its modules have loaded: a compile's budget does not pay for a start. */
  function start(): void {
    starting += 1;
    const worker = new Worker(WORKER, { resourceLimits: threadLimits(heapMb) });
    // An idle thread does not keep the process alive.
    worker.unref();
    const failed = (error: unknown) => {
      starting -= 1;
      // Other threads take the queue on; with none, nothing can be compiled and the queue learns why.
      if (idle.length + busy.size + starting > 0) return;
      for (const job of queue.splice(0)) job.reject(error instanceof Error ? error : new Error(`a sandbox compile thread exited (${String(error)})`));
    };
    worker.once('error', failed);
    worker.once('exit', failed);
    worker.once('message', () => {
      worker.off('error', failed);
      worker.off('exit', failed);
      starting -= 1;
      if (closed) return void worker.terminate();
      idle.push(worker);
      next();
    });
  }

  function run(worker: Worker, job: Job): void {
    busy.add(worker);
    const finish = () => {
      clearTimeout(timer);
      worker.off('message', onMessage);
      worker.off('error', onFailure);
      worker.off('exit', onFailure);
      busy.delete(worker);
    };
    const onMessage = (reply: SandboxReply) => {
      finish();
      idle.push(worker);
      if ('compiled' in reply) job.resolve(reply.compiled);
      else if ('refused' in reply) job.reject(new CanneryError(reply.refused.code, reply.refused.message, { param: reply.refused.param }));
      else job.reject(new Error(`sandbox compile failed: ${reply.failed}`));
      next();
    };
    const onFailure = (error: unknown) => {
      finish();
      void worker.terminate();
      if (outOfThreadMemory(error)) {
        // The thread is gone, and the next compile starts another: the caller's SQL is what took it.
        job.reject(new CanneryError('sandbox_violation', `sql took more than ${heapMb} MiB to compile (a compile thread's memory); simplify it`, { param: 'sql' }));
      } else job.reject(error instanceof Error ? error : new Error(`a sandbox compile thread exited (${String(error)})`));
      next();
    };
    const timer = setTimeout(() => {
      finish();
      // The parse cannot be interrupted: the thread goes, and the next compile starts another.
      void worker.terminate();
      job.reject(
        new CanneryError('sandbox_violation', `sql took longer than ${options.budgetMs} ms to compile (CANNERY_SANDBOX_COMPILE_MS); simplify it`, { param: 'sql' }),
      );
      next();
    }, options.budgetMs);
    worker.on('message', onMessage);
    worker.once('error', onFailure);
    worker.once('exit', onFailure);
    worker.postMessage(taskFor(worker, job));
  }

  function numberOf(item: object): number {
    let number = numbers.get(item);
    if (number === undefined) numbers.set(item, (number = ++lastNumber));
    return number;
  }

  /** The job as `worker` needs it: with the endpoint and the dialect when it does not hold them. */
  function taskFor(worker: Worker, job: Job): SandboxTask {
    const task: SandboxTask = { sql: job.sql, redact: job.redact, endpoint: numberOf(job.endpoint), dialect: numberOf(job.dialect) };
    let holds = held.get(worker);
    if (holds === undefined || holds.size + 2 > KEPT_PER_THREAD) {
      if (holds !== undefined) task.forget = true;
      held.set(worker, (holds = new Set()));
    }
    if (!holds.has(task.endpoint)) {
      task.endpoints = [[task.endpoint, { statement: job.endpoint.statement, definition: job.endpoint.definition }]];
      holds.add(task.endpoint);
    }
    if (!holds.has(task.dialect)) {
      task.dialects = [[task.dialect, job.dialect.settings]];
      holds.add(task.dialect);
    }
    return task;
  }

  function next(): void {
    while (queue.length > 0 && !closed) {
      const worker = idle.pop();
      if (worker === undefined) {
        while (busy.size + starting < options.threads && starting < queue.length) start();
        return;
      }
      run(worker, queue.shift()!);
    }
  }

  return {
    compile(endpoint, sql, dialect, compileOptions = {}) {
      if (closed) return Promise.reject(new Error('the sandbox compiler is closed'));
      // Jobs a starting thread will take are not waiting for one.
      const waiting = queue.length - starting;
      if (idle.length === 0 && busy.size + starting >= options.threads && waiting >= (options.maxQueued ?? Infinity)) {
        return Promise.reject(
          new CanneryError('too_many_requests', `the service is compiling sandbox SQL on all ${options.threads} threads with ${waiting} more waiting; retry shortly`),
        );
      }
      return new Promise<CompiledSql>((resolve, reject) => {
        queue.push({ sql, redact: compileOptions.redact === true, endpoint, dialect, resolve, reject });
        next();
      });
    },
    async close() {
      closed = true;
      for (const job of queue.splice(0)) job.reject(new Error('the sandbox compiler is closed'));
      await Promise.all([...idle.splice(0), ...busy].map((worker) => worker.terminate()));
    },
  };
}
