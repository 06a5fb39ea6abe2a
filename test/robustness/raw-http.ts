/**
 * Requests exactly as written: node:http sends the path and header values it is given byte for
 * byte (fetch would normalise dot segments and re-encode), and the answer is checked against the
 * contract: a JSON error or a result, never a 5xx.
 */
import { Agent, request } from 'node:http';
import { expect } from 'vitest';

export interface RawRequest {
  method: string;
  /** Path and query string as sent: only characters node allows in a request target (0x21-0xff). */
  path: string;
  headers: Record<string, string>;
  /** Bytes as sent: a gzipped (or gzip-garbled) body is a Buffer. */
  body?: string | Buffer;
}

export interface RawResponse {
  status: number;
  contentType: string;
  text: string;
}

/** Few sockets, kept alive: a run of hundreds of requests does not exhaust ports. */
const agent = new Agent({ keepAlive: true, maxSockets: 4 });

export function send(baseUrl: string, raw: RawRequest): Promise<RawResponse> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        agent,
        host: hostname,
        port,
        method: raw.method,
        path: raw.path,
        headers: raw.body === undefined ? raw.headers : { ...raw.headers, 'content-length': String(Buffer.byteLength(raw.body)) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, contentType: String(res.headers['content-type'] ?? ''), text: Buffer.concat(chunks).toString() }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(raw.body);
  });
}

/** Result formats the service may answer in (JSON unless the Accept header asks for another). */
const RESULT_TYPES = /^(application\/json|application\/x-ndjson|text\/csv)\b/;

/**
 * The contract for input the caller controls: below 500; an error is JSON with a code and a
 * message; a success is a result (JSON `{"result": [...]}` unless another format was asked for).
 */
export function expectWellFormed(response: RawResponse, sent: RawRequest): void {
  const context = `${sent.method} ${sent.path.slice(0, 300)}\nheaders ${JSON.stringify(sent.headers).slice(0, 300)}\nbody ${String(sent.body).slice(0, 300)}\n-> ${response.status} ${response.text.slice(0, 500)}`;
  expect(response.status, context).toBeGreaterThanOrEqual(200);
  expect(response.status, context).toBeLessThan(500);
  // No content (a CORS preflight, a 304 revalidation): nothing to parse.
  if (response.status === 204 || response.status === 304) {
    expect(response.text, context).toBe('');
    return;
  }
  if (response.status >= 400) {
    expect(response.contentType, context).toMatch(/^application\/json/);
    const body = JSON.parse(response.text);
    expect(body, context).toEqual({ error: expect.objectContaining({ code: expect.any(String), message: expect.any(String) }) });
    return;
  }
  // /health, /openapi.json and the like answer documents of their own; a query answers a result.
  if (!new URL(sent.path, 'http://cannery').pathname.startsWith('/api/endpoints/query/')) return;
  expect(response.contentType, context).toMatch(RESULT_TYPES);
  if (response.contentType.startsWith('application/json')) expect(Array.isArray(JSON.parse(response.text).result), context).toBe(true);
}
