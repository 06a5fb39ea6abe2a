import { FastURL, type ServerRequest } from 'srvx';

/**
 * The request's URL exactly as h3 takes it (H3Event's constructor): srvx's, parsed lazily from
 * node's request target, else parsed from the href.
 */
export function requestUrl(request: ServerRequest): URL {
  const { _url: url } = request as { _url?: unknown };
  return url instanceof URL ? url : new FastURL(request.url);
}
