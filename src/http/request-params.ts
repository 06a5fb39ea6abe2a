/**
 * Parameters from the query string, and for POST also from a JSON object body (which only then is
 * waited for). A body is read as JSON only when its Content-Type says it is JSON: a form (what
 * `curl -d` sends), text/plain or a body with no type is refused with a 415 that says which type
 * to send, never guessed at. An empty body has no type to check: its parameters are in the URL.
 */
import type { H3Event } from 'h3';
import { CanneryError } from '../core/errors.js';
import { SANDBOX_PARAM } from '../engine/serve/params.js';
import { readBodyText, type NodeExchange } from './request-body.js';

export function readParams(event: H3Event): [string, string][] | Promise<[string, string][]> {
  const entries: [string, string][] = [...new URLSearchParams(event.url.search)];
  if (event.req.method !== 'POST') return entries;
  const contentType = event.req.headers.get('content-type');
  return readBodyText(nodeExchange(event)).then((text) => {
    if (text.trim() === '') return entries;
    if (!isJson(contentType)) throw notJson(contentType);
    return [...entries, ...jsonBodyParams(text)];
  });
}

/**
 * application/json or a JSON suffix type (application/problem+json, RFC 6839), with any
 * parameters; a charset, when given, is UTF-8, the only encoding JSON has (RFC 8259, 8.1).
 */
function isJson(contentType: string | null): boolean {
  if (contentType === null) return false;
  const [type = '', ...parameters] = contentType.toLowerCase().split(';').map((part) => part.trim());
  if (type !== 'application/json' && !/^application\/[^/]+\+json$/.test(type)) return false;
  return parameters.every((parameter) => !parameter.startsWith('charset=') || /^charset="?utf-?8"?$/.test(parameter));
}

function notJson(contentType: string | null): CanneryError {
  const sent = contentType === null ? 'no Content-Type' : `Content-Type ${JSON.stringify(contentType.slice(0, 100))}`;
  return new CanneryError('unsupported_media_type', `a POST body is read as JSON only: send it with Content-Type: application/json (got ${sent})`);
}

/** The body is read from node:http's own request, which is what lets its rest be dropped (request-body.ts). */
function nodeExchange(event: H3Event): NodeExchange {
  const exchange = event.runtime?.node;
  if (!exchange) throw new Error('cannery serves over node:http, and this request did not come from it');
  return exchange;
}

const NOT_AN_OBJECT = 'request body must be a JSON object of parameter names to values';

/** The body's parameters; an empty body has none. */
function jsonBodyParams(text: string): [string, string][] {
  if (text.trim() === '') return [];
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new CanneryError('invalid_parameter', NOT_AN_OBJECT);
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new CanneryError('invalid_parameter', NOT_AN_OBJECT);
  const entries = Object.entries(body).map(([name, value]): [string, string] => {
    // null is an absent value, as an empty one is; but sql is the caller's whole query, and a
    // null there is more likely a bug than a wish for the endpoint's own final selection.
    if (value === null && name !== SANDBOX_PARAM) return [name, ''];
    if (typeof value === 'string') return [name, value];
    if (typeof value === 'number' || typeof value === 'boolean') {
      if (name !== SANDBOX_PARAM) return [name, String(value)];
    }
    const allowed = name === SANDBOX_PARAM ? 'a string' : 'a string, number, boolean or null';
    throw new CanneryError('invalid_parameter', `parameter "${name}" must be ${allowed} in the JSON body`, { param: name });
  });
  // JSON.parse keeps the last of a repeated name; a repeated query-string parameter is a 400, so this is too.
  const names = topLevelNames(text);
  if (names.length > entries.length) {
    const repeated = names.find((name, index) => names.indexOf(name) !== index)!;
    throw new CanneryError('invalid_parameter', `parameter "${repeated}" was given more than once in the JSON body; give it once`, { param: repeated });
  }
  return entries;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * The member names of a JSON object's text, in order, repeats kept (JSON.parse keeps only the
 * last). `text` is known to be a valid JSON object: a name is the string that follows `{` or a
 * `,` at depth one.
 */
function topLevelNames(text: string): string[] {
  const names: string[] = [];
  let depth = 0;
  let expectName = false;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code === QUOTE) {
      const start = index;
      for (index++; text.charCodeAt(index) !== QUOTE; index++) if (text.charCodeAt(index) === BACKSLASH) index++;
      if (expectName) names.push(JSON.parse(text.slice(start, index + 1)) as string);
      expectName = false;
    } else if (text[index] === '{' || text[index] === '[') {
      depth++;
      expectName = depth === 1;
    } else if (text[index] === '}' || text[index] === ']') {
      depth--;
    } else if (text[index] === ',') {
      expectName = depth === 1;
    }
  }
  return names;
}
