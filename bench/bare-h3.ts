/**
 * The cache-hit baseline: a bare h3 app on srvx (the versions cannery serves with), answering
 * each known path and query with the stored bytes of cannery's own hit: its body and headers.
 * What it does per request is what any h3 app does (srvx's request, h3's event and router, a
 * response) plus one Map lookup, so cannery's cost above it is cannery's own work.
 *
 * Run as a child process: it takes the routes over IPC and sends back its port.
 */
import { H3, serve } from 'h3';
import { FastResponse } from 'srvx';
import type { Route } from './hit-servers.js';

process.once('message', (routes) => {
  const byTarget = new Map((routes as Route[]).map((route) => [route.path, { headers: route.headers, body: Buffer.from(route.body) }]));
  const app = new H3();
  app.get('/**', (event) => {
    const route = byTarget.get(event.url.pathname + event.url.search);
    if (!route) return new FastResponse(null, { status: 404 });
    return new FastResponse(route.body, { headers: route.headers });
  });
  const server = serve(app, { port: 0, hostname: '127.0.0.1', silent: true, gracefulShutdown: false });
  void server.ready().then(() => {
    const address = server.node!.server!.address();
    process.send!(typeof address === 'object' && address ? address.port : 0);
  });
  process.once('disconnect', () => void server.close(true));
});
