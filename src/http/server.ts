/**
 * Listening, with h3's own server (srvx, on node:http). listhen's extras (tunnels, QR codes,
 * dev certificates, auto-open) are for dev servers; a service needs only listen and close.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { serve } from 'h3';
import type { CanneryApp } from './app.js';
import { admitInTurns } from './admission.js';
import { MAX_HEADER_BYTES } from './limits.js';
import { declaresTooLarge } from './request-body.js';

export interface RunningServer {
  url: string;
  /**
   * Stops accepting connections and waits for requests in flight, for at most `graceMs`;
   * then closes whatever is still open. Without `graceMs`, closes everything at once.
   */
  close(graceMs?: number): Promise<void>;
}

export async function listen(app: CanneryApp, options: { port: number; host: string }): Promise<RunningServer> {
  const server = serve(app.h3, {
    port: options.port,
    hostname: options.host,
    silent: true,
    gracefulShutdown: false,
    // So URLs a little or much over MAX_URL_LENGTH get cannery's JSON 414 rather than node's bare 431.
    node: { maxHeaderSize: MAX_HEADER_BYTES },
    // Not listening yet: the Expect handler below goes in first.
    manual: true,
  });
  const node = server.node!.server!;
  // srvx's handler, behind admission in turns (admission.ts).
  const admit = admitInTurns(server.node!.handler);
  node.removeAllListeners('request');
  node.on('request', admit);
  // A caller that sends `Expect: 100-continue` waits for the go-ahead before its body: one that
  // declares a body over the limit gets the 413 instead, and never sends it. (With a listener
  // here node no longer answers 100 Continue by itself; the request then goes to srvx's handler
  // as node would have sent it.)
  node.on('checkContinue', (request: IncomingMessage, response: ServerResponse) => {
    if (!declaresTooLarge(request.headers['content-length'])) response.writeContinue();
    admit(request, response);
  });
  await server.serve();
  const address = node.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  return {
    url: `http://${host}:${port}`,
    async close(graceMs = 0) {
      if (graceMs <= 0) return server.close(true);
      let timer: NodeJS.Timeout | undefined;
      const forced = new Promise<void>((resolve) => {
        timer = setTimeout(() => resolve(server.close(true)), graceMs);
      });
      // A keep-alive connection goes idle once its last response is sent; close it then rather
      // than waiting out its keep-alive timeout.
      const idle = setInterval(() => {
        if ('closeIdleConnections' in node) node.closeIdleConnections();
      }, 50);
      await Promise.race([server.close(false), forced]);
      clearInterval(idle);
      clearTimeout(timer);
    },
  };
}
