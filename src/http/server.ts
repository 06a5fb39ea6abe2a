/**
 * Listening, with h3's own server (srvx, on node:http). listhen's extras (tunnels, QR codes,
 * dev certificates, auto-open) are for dev servers; a service needs only listen and close.
 */
import { serve, type H3 } from 'h3';
import { MAX_HEADER_BYTES } from './limits.js';

export interface RunningServer {
  url: string;
  /**
   * Stops accepting connections and waits for requests in flight, for at most `graceMs`;
   * then closes whatever is still open. Without `graceMs`, closes everything at once.
   */
  close(graceMs?: number): Promise<void>;
}

export async function listen(app: H3, options: { port: number; host: string }): Promise<RunningServer> {
  const server = serve(app, {
    port: options.port,
    hostname: options.host,
    silent: true,
    gracefulShutdown: false,
    // So URLs a little or much over MAX_URL_LENGTH get cannery's JSON 414 rather than node's bare 431.
    node: { maxHeaderSize: MAX_HEADER_BYTES },
  });
  await server.ready();
  const address = server.node?.server?.address();
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
      const node = server.node?.server;
      const idle = setInterval(() => {
        if (node && 'closeIdleConnections' in node) node.closeIdleConnections();
      }, 50);
      await Promise.race([server.close(false), forced]);
      clearInterval(idle);
      clearTimeout(timer);
    },
  };
}
