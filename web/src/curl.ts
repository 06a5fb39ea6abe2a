/** The request the page sent, as a curl command a POSIX shell runs as it is. */

export interface SentRequest {
  method: 'GET' | 'POST';
  /** Absolute: the page's own origin. */
  url: string;
  headers: Record<string, string>;
  body?: string;
}

export function curlCommand(request: SentRequest): string {
  const parts = ['curl'];
  for (const [name, value] of Object.entries(request.headers)) parts.push('-H', shellQuote(`${name}: ${value}`));
  if (request.body !== undefined) parts.push('--data-raw', shellQuote(request.body));
  parts.push(shellQuote(request.url));
  return parts.join(' ');
}

/** Single quotes keep everything literal in a POSIX shell but a single quote, which is closed, escaped and reopened. */
export function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}
