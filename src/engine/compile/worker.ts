/**
 * A worker thread's side of pool.ts: compiles the files it is sent, for the settings
 * it was started with, and sends back each result (plain data, copied by structured clone).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { compileFile } from './file.js';
import { contextOf, type CompileSettings } from './settings.js';
import type { WorkerReply, WorkerTask } from './pool.js';

const context = contextOf(workerData as CompileSettings);
const port = parentPort!;

port.on('message', (task: WorkerTask) => {
  let reply: WorkerReply;
  try {
    reply = { results: task.files.map(({ file, text }) => compileFile(file, text, context)) };
  } catch (error) {
    // A compiler bug, not a problem of the file: the main thread raises it as it would its own.
    reply = { error: error instanceof Error ? (error.stack ?? error.message) : String(error) };
  }
  port.postMessage(reply);
});
