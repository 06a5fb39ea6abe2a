/**
 * The h3 app: one router, one path for every request. Auth runs before the endpoint is looked
 * up, so an unauthenticated caller cannot probe which endpoints exist.
 *
 * Before routing, a middleware bounds the URL and a declared body and answers CORS preflights;
 * every answer, whatever gave it (a route, that middleware, an error h3 raised), passes
 * onResponse, which adds `X-Content-Type-Options: nosniff` and CORS headers, counts it in the
 * metrics and writes its log line. An
 * endpoint's route is auth (key or token -> grant, its rate) -> resolve -> scope -> parameters
 * (fixed values filled in) -> service -> response, for a cache hit too: the service answers hits
 * inside its one entry point.
 */
import { H3, type H3Event } from 'h3';
import { DEFAULTS } from '../config/settings.js';
import { CanneryError } from '../core/errors.js';
import { catalogEndpoint, sourceShapes } from '../engine/serve/catalog.js';
import type { SourceDeclaration } from '../config/source-declaration.js';
import { BUILT_IN_SOURCES, sourceId } from '../config/sources.js';
import type { ContractBook } from '../engine/contracts/contract.js';
import { SANDBOX_PARAM } from '../engine/serve/params.js';
import type { QueryOutcome, Service } from '../engine/serve/service.js';
import { createLogger, type Logger } from '../core/logger.js';
import { VERSION } from '../core/version.js';
import { createAccess, type Access } from '../access/access.js';
import { mayIngest, mayReadEverything, type Grant } from '../access/grant.js';
import { checkEndpoint, fixedValues, mayRun, scopedParams } from '../access/scopes.js';
import { presentedCredential } from './auth.js';
import { CONSOLE_PREFIX, consoleFile, consolePage, type ConsoleAssets } from './console.js';
import { createCors } from './cors.js';
import { errorResponse, JSON_CONTENT_TYPE, toCanneryError } from './errors.js';
import { negotiate } from './formats.js';
import { urlLengthError } from './limits.js';
import { createMetrics, routeOf, type Metrics } from './metrics.js';
import { openApiDocument } from './openapi.js';
import { ingestHandler, type IngestOptions } from './ingest.js';
import { CATALOG_PATH, LOGS_PATH, LOGS_SHORT_PATH, QUERY_PATH, SOURCES_PATH } from './paths.js';
import { requestsRedaction } from './redaction-header.js';
import { CLIENT_CLOSED_REQUEST, declaredBodyError, RequestAborted } from './request-body.js';
import { readParams } from './request-params.js';
import { requestLog } from './request-log.js';
import { recordOf, recordOutcome, type RequestRecord } from './request-record.js';
import { resultResponse } from './result-response.js';

export interface AppOptions {
  service: Service;
  /** Who may call, and what each caller may run (default: the unscoped `apiKeys` alone). */
  access?: Access;
  /** Unscoped keys, when `access` is not given. */
  apiKeys?: readonly string[];
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
  /** Describes the endpoints' result columns in /openapi.json (default: none, and rows are untyped there). */
  contracts?: ContractBook;
  /** The console's built files, served at `/` and under CONSOLE_PREFIX (default: none, and no console). */
  console?: ConsoleAssets;
  /**
   * The project's declared sources as served, asked at each catalog request (hot reload changes
   * them): the columns and fields of the CTEs over them (default: none, the log sources alone).
   */
  declaredSources?: () => readonly SourceDeclaration[];
  /** Events in (docs/ingest.md); absent: the ingest routes say the server takes none. */
  ingest?: IngestOptions;
}

export interface CanneryApp {
  /** Every route. */
  readonly h3: H3;
}

export function createApp(options: AppOptions): CanneryApp {
  const { service } = options;
  const access = options.access ?? createAccess({ apiKeys: options.apiKeys ?? [] });
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

  /** The handler's answer, or its error's; a handler that answers at once is not made to wait a tick. */
  const guarded = (handler: (event: H3Event) => Promise<Response> | Response) => (event: H3Event) => {
    try {
      const answer = handler(event);
      return answer instanceof Promise ? answer.catch((error: unknown) => failed(recordOf(event), error)) : answer;
    } catch (error) {
      return failed(recordOf(event), error);
    }
  };

  /** The caller's grant (401, 429); the request's record names it from here on. */
  const admit = (event: H3Event): Grant | Promise<Grant> => {
    const record = recordOf(event);
    return access.admit(presentedCredential(event.req.headers), (grant) => {
      record.key = grant.name;
    });
  };

  /** Counts an answer in the metrics and writes its log line. */
  const answered = (method: string, path: string, status: number, record: RequestRecord): void => {
    const ms = performance.now() - record.started;
    metrics.request(routeOf(path), record.endpoint ?? '', status, ms / 1000, record.cache, record.key ?? '');
    logRequest(method, path, status, ms, record);
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
    onResponse(response, event) {
      // Every answer is typed exactly (JSON, NDJSON, CSV, the console's files): a browser must
      // never read one as another type, as a rows' value that looks like HTML would be.
      response.headers.set('x-content-type-options', 'nosniff');
      cors?.decorate(event.req, response);
      answered(event.req.method, event.url.pathname, response.status, recordOf(event));
    },
  });

  // Before routing: the record that the log line and metrics read (its clock starts here), the
  // bounds on the URL and a declared body, and CORS preflights, which carry no key.
  app.use((event) => {
    const record = recordOf(event);
    // Ingest routes bound their bodies by their own setting (http/ingest.ts).
    const { pathname } = event.url;
    const ingestPath = pathname.startsWith(SOURCES_PATH) || pathname === LOGS_PATH || pathname === LOGS_SHORT_PATH;
    const tooLarge = urlLengthError(event.url) ?? (ingestPath ? undefined : declaredBodyError(event.req.headers.get('content-length'), event.runtime?.node));
    if (tooLarge) return failed(record, tooLarge);
    return cors?.preflight(event.req);
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

  // The description lists the endpoints, so it takes a key like the endpoints themselves, and
  // lists those the key may run, with the values fixed for it.
  getAndHead(
    '/openapi.json',
    guarded((event) =>
      after(admit(event), async (grant) => {
        const endpoints = service.registry.endpoints.filter((endpoint) => mayRun(grant, endpoint.definition));
        const contracts = await options.contracts?.of(endpoints);
        const ingestSources = options.ingest
          ? [...options.ingest.sources.values()].filter(({ declaration }) => mayIngest(grant, declaration.name)).map(({ declaration }) => ({ name: declaration.name, id: sourceId(declaration) }))
          : [];
        return json(200, openApiDocument(endpoints, VERSION, contracts, (endpoint) => fixedValues(grant, endpoint.definition), ingestSources));
      }),
    ),
  );

  // What the console (or any client) needs to call each endpoint the key may run; a key, like the endpoints.
  // Made again only when the declarations served are others.
  let shapesOf: readonly SourceDeclaration[] = [];
  let sources = sourceShapes();
  const currentShapes = () => {
    const declared = options.declaredSources?.() ?? shapesOf;
    if (declared !== shapesOf) [shapesOf, sources] = [declared, sourceShapes(BUILT_IN_SOURCES, declared)];
    return sources;
  };
  getAndHead(
    CATALOG_PATH,
    guarded((event) =>
      after(admit(event), (grant) => {
        const endpoints = service.registry.endpoints.filter((endpoint) => mayRun(grant, endpoint.definition));
        const shapes = currentShapes();
        return json(200, { endpoints: endpoints.map((endpoint) => catalogEndpoint(endpoint, shapes, fixedValues(grant, endpoint.definition))) });
      }),
    ),
  );

  // Series name every endpoint and every key and show their traffic, so by default they take a
  // key that may run every endpoint with any value.
  const metricsText = async () => new Response(await metrics.registry.metrics(), { status: 200, headers: { 'content-type': metrics.registry.contentType } });
  getAndHead(
    '/metrics',
    guarded((event) => {
      if (options.metricsPublic) return metricsText();
      return after(admit(event), (grant) => {
        if (!mayReadEverything(grant)) throw new CanneryError('forbidden', `${grant.name} is scoped; the metrics show every endpoint's and every key's traffic`);
        return metricsText();
      });
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

  // Each step answers at once where it has nothing to wait for (a GET's parameters, a fresh
  // cache hit), so a hit is answered on the request's own tick.
  const runQuery = guarded((event) =>
    after(admit(event), (grant) => {
      const record = recordOf(event);
      const format = negotiate(event.req.headers.get('accept'));
      const endpoint = service.resolve(decodeURIComponent(event.context.params?.idOrName ?? ''), (definition) => mayRun(grant, definition));
      record.endpoint = endpoint.definition.name;
      checkEndpoint(grant, endpoint.definition);
      const redactPii = requestsRedaction(event.req.headers);
      const respond = (outcome: QueryOutcome) => {
        recordOutcome(record, outcome);
        return resultResponse(outcome, event.req.headers.get('if-none-match'), format);
      };
      const run = (params: [string, string][]) => {
        record.sql = params.find(([name]) => name === SANDBOX_PARAM)?.[1];
        return after(service.query(endpoint, scopedParams(grant, endpoint.definition, params), { redactPii }), respond);
      };
      return after(readParams(event), run);
    }),
  );
  app.get(`${QUERY_PATH}:idOrName`, runQuery);
  // HEAD is GET without the body (RFC 9110 9.3.2; node:http leaves the body out): a caller can
  // read ETag, X-Cache and the length without the rows.
  app.head(`${QUERY_PATH}:idOrName`, runQuery);
  app.post(`${QUERY_PATH}:idOrName`, runQuery);
  app.all(`${QUERY_PATH}:idOrName`, notAllowed('GET, HEAD, POST', 'use GET (or HEAD, or POST with a JSON body) to run an endpoint'));
  const ingest = ingestHandler(options.ingest, metrics);
  app.post(
    `${SOURCES_PATH}:name/events`,
    guarded((event) => after(admit(event), (grant) => ingest(event, grant, { name: decodeURIComponent(event.context.params?.name ?? '') }, 'events'))),
  );
  app.all(`${SOURCES_PATH}:name/events`, notAllowed('POST', 'send events with POST (docs/ingest.md)'));
  // Logflare's clients name the source in the query string (by name, or by UUID), and its older ones the key too (`api_key`).
  const logflareKey = (event: H3Event): Grant | Promise<Grant> => {
    const presented = presentedCredential(event.req.headers) ?? (event.url.searchParams.get('api_key') || undefined);
    return access.admit(presented, (grant) => {
      recordOf(event).key = grant.name;
    });
  };
  const logflare = guarded((event) =>
      after(logflareKey(event), (grant) => {
        const name = event.url.searchParams.get('source_name');
        const id = event.url.searchParams.get('source');
        if (name && id) throw new CanneryError('invalid_parameter', 'name the source once: source_name=<name> or source=<uuid>, not both', { param: 'source' });
        if (id) return ingest(event, grant, { id }, 'logflare');
        if (!name) throw new CanneryError('missing_parameter', `name the source: ${LOGS_PATH}?source_name=<name> or ?source=<uuid>`, { param: 'source_name' });
        return ingest(event, grant, { name }, 'logflare');
      }),
  );
  for (const path of [LOGS_PATH, LOGS_SHORT_PATH]) {
    app.post(path, logflare);
    app.all(path, notAllowed('POST', 'send log events with POST (docs/ingest.md)'));
  }
  app.all(
    '/**',
    guarded((event) => {
      throw new CanneryError('not_found', `no route ${event.req.method} ${event.url.pathname}; endpoints are run at ${QUERY_PATH}<id or name>`);
    }),
  );

  return { h3: app };
}

/** `next` of the value, at once when it is there: a step that has nothing to wait for does not make the request wait a tick. */
function after<T, R>(value: T | Promise<T>, next: (value: T) => R | Promise<R>): R | Promise<R> {
  return value instanceof Promise ? value.then(next) : next(value);
}

function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': JSON_CONTENT_TYPE } });
}
