/**
 * Small builders for the fixture events of the endpoint tests, and for the URLs that call them.
 * A timestamp is what the importer accepts: an ISO string with `Z` or an offset, or integer Unix
 * microseconds (used where a test needs one microsecond either side of a bound).
 */

export const EDGE = 'cloudflare.logs.prod';

export type Timestamp = string | number;

export interface FixtureEvent {
  id: string;
  timestamp: Timestamp;
  event_message: string;
  project?: string;
  metadata?: object;
}

/** An edge (HTTP gateway) log row of `project`, with optional extra metadata. */
export function edgeLog(id: string, timestamp: Timestamp, project: string, metadata: object = { request: { method: 'GET', path: '/rest/v1/items' } }): FixtureEvent {
  return { id, timestamp, event_message: `edge ${id}`, project, metadata };
}

/**
 * An edge log row of one API request to `https://<host>.cannery.dev<path>?select=*`, as the
 * usage endpoint reads it: metadata.request.{path,url,method}.
 */
export function apiRequest(id: string, timestamp: Timestamp, host: string, path: string): FixtureEvent {
  const url = `https://${host}.cannery.dev${path}?select=*`;
  return { id, timestamp, event_message: `GET ${path}`, project: host, metadata: { request: { path, url, method: 'GET' } } };
}

/** Unix microseconds of a whole-millisecond ISO instant, as TIMESTAMP values appear on the wire. */
export function micros(iso: string): number {
  return Date.parse(iso) * 1000;
}

/** The path of a GET to endpoint `idOrName` with `params` in the query string (properly encoded: `+` stays `+`). */
export function queryPath(idOrName: string, params: Record<string, string>): string {
  const search = new URLSearchParams(params).toString();
  return `/api/endpoints/query/${encodeURIComponent(idOrName)}${search ? `?${search}` : ''}`;
}
