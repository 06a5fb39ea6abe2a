/**
 * Connections are accepted ahead of admitting work. Node accepts one connection per turn of its
 * event loop (libuv 1.45 on), and a turn ran the handlers of every request that had arrived in
 * it: under 300 callers sending back to back, a turn took a tenth of a second or more, so a new
 * connection (a load balancer's probe) waited seconds to be accepted while requests on open
 * connections were served. Here a turn starts at most PER_TURN requests; the others wait, in
 * order, for the turns after, and every turn accepts a connection. `/health` is answered at once:
 * a probe has nothing to wait for, and an answer late by seconds restarts a healthy replica.
 *
 * On an idle server nothing waits: a request is handled in the turn it arrives, as before.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

type Handler = (request: IncomingMessage, response: ServerResponse) => unknown;

/** Requests admitted per turn: a few milliseconds of handlers at the most, then a connection is accepted. */
export const PER_TURN = 4;

export function admitInTurns(handler: Handler): Handler {
  const waiting: [IncomingMessage, ServerResponse][] = [];
  let admitted = 0;
  let turnPending = false;

  // setImmediate runs once the turn's I/O has been handled: the next requests go in, the count starts again.
  const nextTurn = () => {
    turnPending = false;
    admitted = 0;
    while (waiting.length > 0 && admitted < PER_TURN) {
      admitted += 1;
      const [request, response] = waiting.shift()!;
      handler(request, response);
    }
    if (admitted > 0) awaitTurn();
  };
  const awaitTurn = () => {
    if (turnPending) return;
    turnPending = true;
    setImmediate(nextTurn);
  };

  return (request, response) => {
    if (isHealth(request.url)) return handler(request, response);
    if (waiting.length === 0 && admitted < PER_TURN) {
      admitted += 1;
      awaitTurn();
      return handler(request, response);
    }
    waiting.push([request, response]);
    awaitTurn();
    return undefined;
  };
}

function isHealth(url: string | undefined): boolean {
  return url === '/health' || url?.startsWith('/health?') === true;
}
