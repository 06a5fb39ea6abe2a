/**
 * A worker thread's side of sandbox-pool.ts: compiles the sandbox SQL it is sent and sends back
 * the SQL, or the caller's error as plain data (copied by structured clone).
 */
import { parentPort } from 'node:worker_threads';
import { isCanneryError } from '../../core/errors.js';
import { dialectFromSettings } from '../../sql/dialects/from-settings.js';
import type { Dialect } from '../../sql/generator/dialect.js';
import { compileSandboxQuery } from './sandbox-compile.js';
import type { SandboxEndpoint, SandboxReply, SandboxTask } from './sandbox-pool.js';
import { runBelowEventLoop } from '../../core/thread-priority.js';

runBelowEventLoop();

const port = parentPort!;
/** What the pool has sent this thread, by number: endpoints, and the dialects built from their settings. */
const endpoints = new Map<number, SandboxEndpoint>();
const dialects = new Map<number, Dialect>();

port.on('message', (task: SandboxTask) => {
  let reply: SandboxReply;
  try {
    if (task.forget) {
      endpoints.clear();
      dialects.clear();
    }
    for (const [number, endpoint] of task.endpoints ?? []) endpoints.set(number, endpoint);
    for (const [number, settings] of task.dialects ?? []) dialects.set(number, dialectFromSettings(settings));
    reply = { compiled: compileSandboxQuery(endpoints.get(task.endpoint)!, task.sql, dialects.get(task.dialect)!, { redact: task.redact }) };
  } catch (error) {
    reply = isCanneryError(error)
      ? { refused: { code: error.code, message: error.message, param: error.param } }
      : { failed: error instanceof Error ? (error.stack ?? error.message) : String(error) };
  }
  port.postMessage(reply);
});

// Ready: the pool starts a compile's budget from here.
port.postMessage({ ready: true });
