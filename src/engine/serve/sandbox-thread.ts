/**
 * A worker thread's side of sandbox-pool.ts: compiles the sandbox SQL it is sent and sends back
 * the SQL, or the caller's error as plain data (copied by structured clone).
 */
import { parentPort } from 'node:worker_threads';
import { isCanneryError } from '../../core/errors.js';
import { dialectFromSettings } from '../../sql/dialects/from-settings.js';
import type { Dialect } from '../../sql/generator/dialect.js';
import { compileSandboxQuery } from './sandbox-compile.js';
import type { SandboxReply, SandboxTask } from './sandbox-pool.js';

const port = parentPort!;
/** The dialects built so far, by their settings' key: a service has one or two. */
const dialects = new Map<string, Dialect>();

port.on('message', (task: SandboxTask) => {
  let reply: SandboxReply;
  try {
    let dialect = dialects.get(task.settingsKey);
    if (dialect === undefined) dialects.set(task.settingsKey, (dialect = dialectFromSettings(task.settings)));
    reply = { compiled: compileSandboxQuery(task, task.sql, dialect, { redact: task.redact }) };
  } catch (error) {
    reply = isCanneryError(error)
      ? { refused: { code: error.code, message: error.message, param: error.param } }
      : { failed: error instanceof Error ? (error.stack ?? error.message) : String(error) };
  }
  port.postMessage(reply);
});

// Ready: the pool starts a compile's budget from here.
port.postMessage({ ready: true });
