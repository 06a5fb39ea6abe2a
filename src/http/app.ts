/**
 * The h3 app: one router. Auth runs before the endpoint is looked up, so an unauthenticated
 * caller cannot probe which endpoints exist.
 */
import { H3, type H3Event } from 'h3';
import { CanneryError } from '../engine/errors.js';
import type { Service } from '../engine/service.js';
import { apiKeyCheck } from './auth.js';
import { errorResponse, JSON_CONTENT_TYPE, toCanneryError } from './errors.js';
import { requestsRedaction } from './redaction-header.js';
import { readParams } from './request-params.js';
import { resultResponse } from './result-response.js';
import { cacheHitAnswerer } from './cache-hits.js';
import { QUERY_PATH } from './paths.js';
import { openApiDocument } from './openapi.js';
import { VERSION } from '../version.js';

export interface AppOptions {
  service: Service;
  apiKeys: readonly string[];
  /** Where unexpected errors go (the caller only sees "internal"). */
  logError?: (error: unknown) => void;
}



export function createApp(options: AppOptions): H3 {
  const { service } = options;
  const checkKey = apiKeyCheck(options.apiKeys);
  const logError = options.logError ?? ((error) => console.error(error));

  const guarded = (handler: (event: H3Event) => Promise<Response> | Response) => async (event: H3Event) => {
    try {
      return await handler(event);
    } catch (error) {
      const canneryError = toCanneryError(error);
      if (canneryError.code === 'internal') logError(error);
      const headers: Record<string, string> = canneryError.code === 'unauthorized' ? { 'www-authenticate': 'Bearer' } : {};
      return errorResponse(canneryError, headers);
    }
  };

  const app = new H3({
    // Errors h3 raises before our handlers run: unknown routes and malformed URLs.
    onError: (error) =>
      error.status === 404
        ? errorResponse(new CanneryError('not_found', 'no such route'))
        : errorResponse(new CanneryError('invalid_parameter', `malformed request (${error.message}); check the URL's percent-encoding`)),
  });

  app.get('/health', () =>
    json(200, {
      status: 'ok',
      backend: service.backend.name,
      endpoints: service.registry.endpoints.map((endpoint) => endpoint.definition.name),
      problems: service.registry.problems,
    }),
  );

  // The description lists every endpoint, so it takes a key like the endpoints themselves.
  app.get(
    '/openapi.json',
    guarded((event) => {
      checkKey(event.req.headers);
      return json(200, openApiDocument(service.registry.endpoints, VERSION));
    }),
  );

  const runQuery = guarded(async (event) => {
    checkKey(event.req.headers);
    const endpoint = service.resolve(decodeURIComponent(event.context.params?.idOrName ?? ''));
    const redactPii = requestsRedaction(event.req.headers);
    const params = await readParams(event);
    const outcome = await service.query(endpoint, params, { redactPii });
    return resultResponse(outcome, event.req.headers.get('if-none-match'));
  });
  app.get(`${QUERY_PATH}:idOrName`, runQuery);
  app.post(`${QUERY_PATH}:idOrName`, runQuery);
  app.all(
    `${QUERY_PATH}:idOrName`,
    guarded(() => {
      throw new CanneryError('method_not_allowed', 'use GET (or POST with a JSON body) to run an endpoint');
    }),
  );
  app.all(
    '/**',
    guarded((event) => {
      throw new CanneryError('not_found', `no route ${event.req.method} ${event.url.pathname}; endpoints are run at ${QUERY_PATH}<id or name>`);
    }),
  );

  // Cache hits are answered before h3 routes (see cache-hits.ts); everything else is routed.
  const answerCacheHit = cacheHitAnswerer(service, checkKey);
  const route = app.fetch;
  app.fetch = (request) => answerCacheHit(request) ?? route(request);
  return app;
}

function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': JSON_CONTENT_TYPE } });
}
