/**
 * The h3 app: one router. Auth runs before the endpoint is looked up, so an unauthenticated
 * caller cannot probe which endpoints exist.
 *
 * A plain cache hit is answered from node:http's request before srvx and h3 see it
 * (cache-hits.ts). Every other request passes `fetch` below, which bounds the URL and a declared
 * body, answers CORS preflights before h3 routes, and once the response is ready adds CORS
 * headers. Both count the answer in the metrics and write its log line.
 */
import { H3, type H3Event } from 'h3';
import type { ServerRequest } from 'srvx';
import { DEFAULTS } from '../config/settings.js';
import { CanneryError } from '../core/errors.js';
import { catalogEndpoint, sourceShapes } from '../engine/catalog.js';
import type { Service } from '../engine/service.js';
import { createLogger, type Logger } from '../core/logger.js';
import { VERSION } from '../core/version.js';
import { apiKeyCheck } from './auth.js';
import { cacheHitAnswerer, type CacheHitAnswerer } from './cache-hits.js';
import { CONSOLE_PREFIX, consoleFile, consolePage, type ConsoleAssets } from './console.js';
import { createCors } from './cors.js';
import { errorResponse, JSON_CONTENT_TYPE, toCanneryError } from './errors.js';
import { negotiate } from './formats.js';
import { urlLengthError } from './limits.js';
import { createMetrics, routeOf, type Metrics } from './metrics.js';
import { openApiDocument } from './openapi.js';
import { CATALOG_PATH, QUERY_PATH } from './paths.js';
import { requestsRedaction } from './redaction-header.js';
import { CLIENT_CLOSED_REQUEST, declaredBodyError, RequestAborted } from './request-body.js';
import { readParams } from './request-params.js';
import { requestLog } from './request-log.js';
import { newRecord, recordOf, recordOutcome, type RequestRecord } from './request-record.js';
import { requestUrl } from './request-url.js';
import { resultResponse } from './result-response.js';

export interface AppOptions {
  service: Service;
  apiKeys: readonly string[];
  /** Request log lines, server errors with their stack among them (default: stdout, at info). */
  logger?: Logger;
  /**
   * Request metrics go here. Give its `engine` observer to the service as well, for the backend
   * and warming series (default: this app's own metrics, without those).
   */
  metrics?: Metrics;
  /** Serve GET /metrics without a key (default: a key, like the endpoints). */
  metricsPublic?: boolean;
  /** Origins CORS allows, `*` for any (default: none, and no CORS headers). */
  corsOrigins?: readonly string[];
  /** The console's built files, served at `/` and under CONSOLE_PREFIX (default: none, and no console). */
  console?: ConsoleAssets;
}

export interface CanneryApp {
  /** Every route. */
  readonly h3: H3;
  /** Answers a plain cache hit from node:http's request, and says whether it did; h3 answers the rest. */
  readonly answerCacheHit: CacheHitAnswerer;
}

export function createApp(options: AppOptions): CanneryApp {
  const { service } = options;
  const checkKey = apiKeyCheck(options.apiKeys);
  const logger = options.logger ?? createLogger(DEFAULTS.logLevel);
  const logRequest = requestLog(logger);
  const metrics = options.metrics ?? createMetrics();
  const cors = createCors(options.corsOrigins ?? []);

  const failed = (record: RequestRecord, error: unknown): Response => {
    // Nobody is left to read an answer; its status says so in the log and the metrics.
    if (error instanceof RequestAborted) return new Response(null, { status: CLIENT_CLOSED_REQUEST });
    const canneryError = toCanneryError(error);
    record.error = canneryError;
    return errorResponse(canneryError);
  };

  /** 405 for a path's other methods, with the Allow header RFC 9110 asks for. */
  const notAllowed = (allow: string, message: string) => (event: H3Event) => {
    const response = failed(recordOf(event), new CanneryError('method_not_allowed', message));
    response.headers.set('allow', allow);
    return response;
  };

  /** A GET route that answers HEAD too (h3 tries GET for HEAD only when no route matches HEAD at all). */
  const getAndHead = (path: string, handler: (event: H3Event) => Promise<Response> | Response) => {
    app.get(path, handler);
    app.head(path, handler);
    app.all(path, notAllowed('GET, HEAD', `use GET (or HEAD) for ${path}`));
  };

  const guarded = (handler: (event: H3Event) => Promise<Response> | Response) => async (event: H3Event) => {
    try {
      return await handler(event);
    } catch (error) {
      return failed(recordOf(event), error);
    }
  };

  const app = new H3({
    // Errors h3 raises before our handlers run: unknown routes and malformed URLs.
    onError: (error, event) =>
      failed(
        recordOf(event),
        error.status === 404
          ? new CanneryError('not_found', 'no such route')
          : new CanneryError('invalid_parameter', `malformed request (${error.message}); check the URL's percent-encoding`),
      ),
  });

  // Always 200 while the process serves: a load balancer that took replicas out because the
  // shared cache store is down would take them all out at once. `status` says it for monitors.
  getAndHead('/health', () => {
    const shared = service.sharedCacheHealth();
    return json(200, {
      status: shared && !shared.up ? 'degraded' : 'ok',
      backend: service.backend.name,
      cache: shared
        ? { tier: 'shared', store: shared.kind, up: shared.up, since: new Date(shared.since).toISOString(), ...(shared.error ? { error: shared.error } : {}) }
        : { tier: 'in-process' },
      endpoints: service.registry.endpoints.map((endpoint) => endpoint.definition.name),
      problems: service.registry.problems,
    });
  });

  // The description lists every endpoint, so it takes a key like the endpoints themselves.
  getAndHead(
    '/openapi.json',
    guarded(async (event) => {
      checkKey(event.req.headers);
      const { endpoints } = service.registry;
      const contracts = await service.contracts?.of(endpoints);
      return json(200, openApiDocument(endpoints, VERSION, contracts));
    }),
  );

  // What the console (or any client) needs to call each endpoint; a key, like the endpoints.
  const sources = sourceShapes();
  getAndHead(
    CATALOG_PATH,
    guarded((event) => {
      checkKey(event.req.headers);
      return json(200, { endpoints: service.registry.endpoints.map((endpoint) => catalogEndpoint(endpoint, sources)) });
    }),
  );

  // Series name every endpoint and show its traffic, so by default they take a key too.
  getAndHead(
    '/metrics',
    guarded(async (event) => {
      if (!options.metricsPublic) checkKey(event.req.headers);
      const text = await metrics.registry.metrics();
      return new Response(text, { status: 200, headers: { 'content-type': metrics.registry.contentType } });
    }),
  );

  const consoleAssets = options.console;
  if (consoleAssets) {
    // No key: the page asks for one, and holds it in the browser, never in a URL.
    const page = () => consolePage(consoleAssets);
    app.get('/', page);
    app.head('/', page);
    const file = guarded((event) => {
      const response = consoleFile(consoleAssets, event.url.pathname);
      if (!response) throw new CanneryError('not_found', `no console file ${event.url.pathname}`);
      return response;
    });
    app.get(`${CONSOLE_PREFIX}**`, file);
    app.head(`${CONSOLE_PREFIX}**`, file);
  }

  const runQuery = guarded(async (event) => {
    const record = recordOf(event);
    checkKey(event.req.headers);
    const format = negotiate(event.req.headers.get('accept'));
    const endpoint = service.resolve(decodeURIComponent(event.context.params?.idOrName ?? ''));
    record.endpoint = endpoint.definition.name;
    const redactPii = requestsRedaction(event.req.headers);
    const params = await readParams(event);
    record.sql = params.find(([name]) => name === 'sql')?.[1];
    const outcome = await service.query(endpoint, params, { redactPii });
    recordOutcome(record, outcome);
    return resultResponse(outcome, event.req.headers.get('if-none-match'), format);
  });
  app.get(`${QUERY_PATH}:idOrName`, runQuery);
  // HEAD is GET without the body (RFC 9110 9.3.2; node:http leaves the body out): a caller can
  // read ETag, X-Cache and the length without the rows.
  app.head(`${QUERY_PATH}:idOrName`, runQuery);
  app.post(`${QUERY_PATH}:idOrName`, runQuery);
  app.all(`${QUERY_PATH}:idOrName`, notAllowed('GET, HEAD, POST', 'use GET (or HEAD, or POST with a JSON body) to run an endpoint'));
  app.all(
    '/**',
    guarded((event) => {
      throw new CanneryError('not_found', `no route ${event.req.method} ${event.url.pathname}; endpoints are run at ${QUERY_PATH}<id or name>`);
    }),
  );

  /** Counts an answer in the metrics and writes its log line. */
  const answered = (method: string, path: string, status: number, record: RequestRecord, route = routeOf(path)): void => {
    const ms = performance.now() - record.started;
    metrics.request(route, record.endpoint ?? '', status, ms / 1000, record.cache);
    logRequest(method, path, status, ms, record);
  };

  const finish = (request: ServerRequest, url: URL, record: RequestRecord, response: Response): Response => {
    cors?.decorate(request, response);
    answered(request.method, url.pathname, response.status, record);
    return response;
  };

  app.fetch = (request) => {
    const record = newRecord();
    const url = requestUrl(request);
    const tooLarge = urlLengthError(url) ?? declaredBodyError(request.headers.get('content-length'), request.runtime?.node);
    if (tooLarge) return finish(request, url, record, failed(record, tooLarge));
    // Preflights carry no key.
    const preflight = cors?.preflight(request);
    if (preflight) return finish(request, url, record, preflight);
    const routed = app.request(request, undefined, { record });
    return routed instanceof Promise ? routed.then((response) => finish(request, url, record, response)) : finish(request, url, record, routed);
  };
  return { h3: app, answerCacheHit: cacheHitAnswerer({ service, checkKey, cors: cors !== undefined, answered }) };
}

function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': JSON_CONTENT_TYPE } });
}
