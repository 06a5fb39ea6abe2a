/**
 * A POST body, read only as far as the body limit: a declared Content-Length over it is refused
 * before a byte is read (app.ts), and a body without one (chunked) stops being kept at the limit.
 * Either way the answer is a 413 at once, and what still arrives is dropped, so a 256 MiB body
 * costs what the limit does.
 *
 * node closes a connection whose request it has not read to the end once the answer is out, with
 * the caller's bytes still arriving: that resets the connection, and a reset can erase the answer
 * before the caller reads it (RFC 9112, 9.6). So such a connection is closed in stages instead:
 * our side first, then the caller's bytes are dropped until it closes too, or LINGER_MS pass.
 */
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { ServerRuntimeContext } from 'srvx';
import { CanneryError } from '../core/errors.js';
import { MAX_SANDBOX_SQL_LENGTH } from '../engine/serve/sandbox-compile.js';

/** Longest body accepted: room for a long sandbox query (100,000 characters), not for abuse. */
export const MAX_BODY_BYTES = 1 << 20;

/** How long a connection closed in stages waits for the caller to close its side (nginx: 5 s between reads). */
const LINGER_MS = 2_000;

/** nginx's status for a request whose caller went away first: never sent, only logged and counted. */
export const CLIENT_CLOSED_REQUEST = 499;

/**
 * The caller closed the connection before its body arrived: there is nobody to answer, and it
 * is not the server's failure (app.ts counts and logs it apart from errors).
 */
export class RequestAborted extends Error {
  constructor(cause?: unknown) {
    super('the caller closed the connection before its request body arrived', { cause });
    this.name = 'RequestAborted';
  }
}

/** node:http's request and response under an h3 event or a srvx request. */
export type NodeExchange = NonNullable<ServerRuntimeContext['node']>;

/** server.ts serves HTTP/1.1 with node:http; srvx's types allow HTTP/2's request too. */
function http1(exchange: NodeExchange): { req: IncomingMessage } {
  return exchange as { req: IncomingMessage };
}

/** `declared`: the Content-Length, when the body declared one. */
function bodyTooLarge(declared?: string): CanneryError {
  const size = declared === undefined ? '' : ` ${declared} bytes,`;
  return new CanneryError(
    'body_too_large',
    `the request body is${size} over the ${MAX_BODY_BYTES}-byte limit; a body holds only parameters, and the longest, sql, is at most ${MAX_SANDBOX_SQL_LENGTH} characters`,
  );
}

/** Whether a Content-Length header declares a body over the limit (a malformed one is node's to refuse). */
export function declaresTooLarge(contentLength: string | null | undefined): boolean {
  return contentLength !== null && contentLength !== undefined && /^\d+$/.test(contentLength) && Number(contentLength) > MAX_BODY_BYTES;
}

/**
 * The error for a request whose Content-Length is over the limit, whatever its route, with the
 * body dropped as it comes: checked before anything else is (app.ts), as a proxy's body limit
 * would be, so no route reads it.
 */
export function declaredBodyError(contentLength: string | null, exchange: NodeExchange | undefined): CanneryError | undefined {
  if (contentLength === null || !declaresTooLarge(contentLength)) return undefined;
  if (exchange) dropRest(http1(exchange).req);
  return bodyTooLarge(contentLength);
}

/**
 * The body as UTF-8 text; body_too_large once more than MAX_BODY_BYTES arrived (the rest is then
 * dropped); RequestAborted when the caller leaves first.
 */
export async function readBodyText(exchange: NodeExchange): Promise<string> {
  return (await readBodyBytes(exchange, MAX_BODY_BYTES, bodyTooLarge)).toString('utf8');
}

/** The body's bytes, at most `maxBytes`: past them `tooLarge()` is thrown and the rest dropped. */
export function readBodyBytes(exchange: NodeExchange, maxBytes: number, tooLarge: () => CanneryError): Promise<Buffer> {
  const { req } = http1(exchange);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const settle = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('close', onClose);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= maxBytes) return void chunks.push(chunk);
      settle();
      dropRest(req);
      reject(tooLarge());
    };
    const onEnd = () => {
      settle();
      resolve(Buffer.concat(chunks));
    };
    // Closed before it ended: the caller went away.
    const onClose = () => {
      settle();
      reject(new RequestAborted());
    };
    if (req.readableEnded) return resolve(Buffer.alloc(0));
    if (req.destroyed) return reject(new RequestAborted());
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('close', onClose);
  });
}

/** A body over a route's own limit, declared by its Content-Length: refused before it is read, the rest dropped. */
export function declaredOver(contentLength: string | null, maxBytes: number, exchange: NodeExchange | undefined): boolean {
  if (contentLength === null || !/^\d+$/.test(contentLength) || Number(contentLength) <= maxBytes) return false;
  if (exchange) dropRest(http1(exchange).req);
  return true;
}

/** Drops what still arrives of the body, and has node close the connection in stages. */
function dropRest(req: IncomingMessage): void {
  const { socket } = req;
  // node's way to close a connection after its last answer (and what it calls, if it has one).
  socket.destroySoon = () => closeInStages(socket);
  // Flowing with no reader: each chunk is dropped as it comes.
  req.resume();
}

/**
 * Our side first (a FIN after the answer, so the caller reads the 413 before it sees the end);
 * then whatever still comes is dropped until the caller closes too, or LINGER_MS pass.
 */
function closeInStages(socket: Socket): void {
  if (socket.destroyed) return;
  socket.end();
  const timer = setTimeout(() => socket.destroy(), LINGER_MS);
  timer.unref();
  socket.once('close', () => clearTimeout(timer));
  socket.once('end', () => socket.destroy());
}
