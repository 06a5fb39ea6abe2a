/**
 * A worker thread's side of stager.ts: reads a request's body into its events and checks them
 * (events.ts), sending back the staged lines, or the sender's error as plain data.
 */
import { parentPort } from 'node:worker_threads';
import { isCanneryError } from '../../core/errors.js';
import { runBelowEventLoop } from '../../core/thread-priority.js';
import { parseEvents, stageEvents } from './events.js';
import type { StageReply, StageTask } from './stager.js';

runBelowEventLoop();

const port = parentPort!;

port.on('message', (task: StageTask) => {
  let reply: StageReply;
  let events = 0;
  try {
    const body = Buffer.from(task.body.buffer, task.body.byteOffset, task.body.byteLength).toString('utf8');
    const parsed = parseEvents(body, task.kind, task.dialect);
    events = parsed.length;
    reply = { id: task.id, lines: stageEvents(task.source, parsed, task.dialect, new Date(task.now)) };
  } catch (error) {
    reply = isCanneryError(error)
      ? { id: task.id, refused: { code: error.code, message: error.message, param: error.param }, events }
      : { id: task.id, failed: error instanceof Error ? (error.stack ?? error.message) : String(error), events };
  }
  port.postMessage(reply);
});
