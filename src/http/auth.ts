/** The credential a request presents: `X-API-KEY: <key>` or `Authorization: Bearer <key or token>`. */

/** The part of a request's fetch Headers the check reads. */
export interface HeaderReader {
  /** The header named `name`, given in lowercase; null when absent. */
  get(name: string): string | null;
}

/** The key or token sent; undefined when none was (an empty X-API-KEY, a Basic Authorization). */
export function presentedCredential(headers: HeaderReader): string | undefined {
  const apiKey = headers.get('x-api-key');
  if (apiKey) return apiKey.trim();
  const authorization = headers.get('authorization');
  const bearer = authorization ? /^Bearer\s+(.+)$/i.exec(authorization.trim()) : null;
  return bearer ? bearer[1]!.trim() : undefined;
}
