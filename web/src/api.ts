/**
 * The page's calls to the service it came from, by URLs relative to the page (so a proxy may
 * serve cannery under a path). The key travels in X-API-KEY, never in a URL.
 */
import type { CatalogEndpoint } from '../../src/core/types.js';
import { MAX_URL_LENGTH } from '../../src/http/limits.js';
import type { SentRequest } from './curl.js';

export interface ServiceError {
  code: string;
  message: string;
  param?: string;
}

export interface Answer {
  request: SentRequest;
  status: number;
  /** From sending to the whole body read, in milliseconds. */
  ms: number;
  xCache: string | null;
  age: string | null;
  /** The body as sent: what "download JSON" saves. */
  text: string;
  rows?: Record<string, any>[];
  error?: ServiceError;
}

export class CatalogRefused extends Error {
  constructor(readonly status: number, readonly error: ServiceError) {
    super(error.message);
  }
}

export async function fetchCatalog(key: string): Promise<CatalogEndpoint[]> {
  const response = await fetch(new URL('api/endpoints', document.baseURI), { headers: { 'x-api-key': key } });
  const text = await response.text();
  let body;
  try {
    body = JSON.parse(text);
  } catch {
    // Not cannery's answer: a proxy's error page, say.
    throw new CatalogRefused(response.status, { code: 'unreadable', message: `the answer is not JSON (${text.slice(0, 80)})` });
  }
  if (!response.ok) throw new CatalogRefused(response.status, body.error);
  return body.endpoints;
}

/**
 * GET with the parameters in the query string, as the endpoints are documented; POST with a JSON
 * body when that URL would pass the service's limit (a long sandbox query).
 */
export function queryRequest(key: string, endpoint: string, values: readonly [string, string][], redact: boolean): SentRequest {
  const url = new URL(`api/endpoints/query/${encodeURIComponent(endpoint)}`, document.baseURI);
  const headers: Record<string, string> = { 'X-API-KEY': key };
  if (redact) headers['SVC-ENDPOINT-REDACT-PII'] = 'true';
  const query = new URLSearchParams(values as [string, string][]).toString();
  if (url.pathname.length + query.length + 1 <= MAX_URL_LENGTH) return { method: 'GET', url: query ? `${url}?${query}` : url.href, headers };
  return { method: 'POST', url: url.href, headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(Object.fromEntries(values)) };
}

export async function send(request: SentRequest): Promise<Answer> {
  const started = performance.now();
  const response = await fetch(request.url, { method: request.method, headers: request.headers, body: request.body });
  const text = await response.text();
  const ms = performance.now() - started;
  const answer: Answer = { request, status: response.status, ms, xCache: response.headers.get('x-cache'), age: response.headers.get('age'), text };
  try {
    const body = JSON.parse(text);
    if (response.ok) answer.rows = body.result;
    else answer.error = body.error;
  } catch {
    answer.error = { code: 'unreadable', message: `the service answered ${response.status} with a body that is not JSON` };
  }
  return answer;
}
