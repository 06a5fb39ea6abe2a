/** Parameters from the query string, and for POST also from a JSON object body. */
import type { H3Event } from 'h3';
import { CanneryError } from '../core/errors.js';

/** Longest JSON body accepted: room for a long sandbox query, not for abuse. */
const MAX_BODY_BYTES = 1 << 20;

export async function readParams(event: H3Event): Promise<[string, string][]> {
  const entries: [string, string][] = [...event.url.searchParams.entries()];
  if (event.req.method === 'POST') entries.push(...(await readJsonBody(event)));
  return entries;
}

async function readJsonBody(event: H3Event): Promise<[string, string][]> {
  const text = await event.req.text();
  if (text.trim() === '') return [];
  if (Buffer.byteLength(text) > MAX_BODY_BYTES) {
    throw new CanneryError('invalid_parameter', `request body is larger than ${MAX_BODY_BYTES} bytes`);
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new CanneryError('invalid_parameter', 'request body must be a JSON object of parameter names to values');
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new CanneryError('invalid_parameter', 'request body must be a JSON object of parameter names to values');
  }
  return Object.entries(body).map(([name, value]) => {
    if (value === null) return [name, ''];
    if (typeof value === 'string') return [name, value];
    if (typeof value === 'number' || typeof value === 'boolean') return [name, String(value)];
    throw new CanneryError('invalid_parameter', `parameter "${name}" must be a string, number or boolean in the JSON body`, { param: name });
  });
}
