/**
 * A loopback HTTP proxy in front of the BigQuery stand-in that can misbehave the way a network
 * does: pass a request on, hold it without ever answering, or drop the connection.
 */
import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Fault = 'pass' | 'hang' | 'drop';

export interface FaultProxy {
  url: string;
  /** How each following request is treated. */
  behave(fault: Fault): void;
  /** Requests received, whatever happened to them. */
  received(): number;
  close(): Promise<void>;
}

export async function startFaultProxy(upstream: string): Promise<FaultProxy> {
  let fault: Fault = 'pass';
  let received = 0;
  const held = new Set<ServerResponse>();
  const target = new URL(upstream);

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    received += 1;
    if (fault === 'hang') {
      held.add(res);
      return;
    }
    if (fault === 'drop') {
      req.socket.destroy();
      return;
    }
    const forwarded = request(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: { ...req.headers, host: target.host } },
      (upstreamResponse) => {
        res.writeHead(upstreamResponse.statusCode ?? 502, upstreamResponse.headers);
        upstreamResponse.pipe(res);
      },
    );
    forwarded.on('error', () => res.destroy());
    req.pipe(forwarded);
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    behave(next) {
      fault = next;
    },
    received: () => received,
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of held) res.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
