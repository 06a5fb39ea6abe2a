/**
 * Listening, with h3's own server (srvx, on node:http). listhen's extras (tunnels, QR codes,
 * dev certificates, auto-open) are for dev servers; a service needs only listen and close.
 */
import { serve, type H3 } from 'h3';

export interface RunningServer {
  url: string;
  close(): Promise<void>;
}

export async function listen(app: H3, options: { port: number; host: string }): Promise<RunningServer> {
  const server = serve(app, { port: options.port, hostname: options.host, silent: true, gracefulShutdown: false });
  await server.ready();
  const address = server.node?.server?.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  return {
    url: `http://${host}:${port}`,
    close: () => server.close(true),
  };
}
