/**
 * `cannery run` when a running `serve` holds the database for itself (it writes while it serves):
 * the same request over HTTP to that server, printed as `run` prints its own answer (the body on
 * stdout, exit 0; the error object on stderr, exit 1). The server answers with its cache and
 * limits, as any caller is answered; stderr says that it did.
 */
import { readFile, realpath } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { DatabaseBusy } from '../backends/duckdb/lock.js';
import type { Settings } from '../config/settings.js';
import { QUERY_PATH } from '../http/paths.js';
import type { ServerRecord } from './server-record.js';

export interface RunThroughServer {
  server: ServerRecord;
  settings: Settings;
  busy: DatabaseBusy;
  name: string;
  params: [string, string][];
  redactPii: boolean;
  /** --key or CANNERY_KEY. */
  key: string | undefined;
}

/** The folder as the file system names it, so `./endpoints` and a symlinked path compare equal. */
async function canonical(dir: string): Promise<string> {
  return realpath(dir).catch(() => resolve(dir));
}

/** The key the server generated and kept beside the database (the demo's); undefined when it has none or it cannot be read. */
async function keptKey(server: ServerRecord): Promise<string | undefined> {
  if (server.keyFile === undefined) return undefined;
  const text = await readFile(server.keyFile, 'utf8').then((content) => content.trim(), () => '');
  return text === '' ? undefined : text;
}

export async function runThroughServer(options: RunThroughServer): Promise<number> {
  const { server, settings, busy, name, params } = options;
  const holder = `${busy.path} is held by \`cannery serve\` (PID ${server.pid}), which writes to it while it serves`;
  const [ours, served] = await Promise.all([canonical(settings.endpointsDir), canonical(server.endpoints)]);
  if (ours !== served) {
    throw new Error(`${holder} the endpoints of ${served}, not ${ours}: run with --endpoints ${served} to ask it, or stop it to run these files on the database`);
  }
  // Without --key or CANNERY_KEY, the key this user can already read: the one the demo kept beside
  // the database, or an unscoped key of the environment (which the server was likely started in).
  const key = options.key ?? (await keptKey(server)) ?? settings.apiKeys?.[0];
  const query = new URLSearchParams(params).toString();
  const url = `${server.url}${QUERY_PATH}${encodeURIComponent(name)}${query === '' ? '' : `?${query}`}`;
  const headers: Record<string, string> = { accept: 'application/json' };
  if (key !== undefined) headers['x-api-key'] = key;
  if (options.redactPii) headers['svc-endpoint-redact-pii'] = 'true';
  let response: Response;
  let body: string;
  try {
    response = await fetch(url, { headers });
    body = await response.text();
  } catch (error) {
    throw new Error(`${holder}, and did not answer at ${server.url}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
  if (response.status === 401 && key === undefined) {
    throw new Error(`${holder}, and answers at ${server.url} only with a key: pass --key KEY (or set CANNERY_KEY=KEY), a key that may run ${name}`);
  }
  console.error(`cannery: ${holder}: answered by it at ${server.url}`);
  if (response.status === 200) {
    process.stdout.write(body);
    process.stdout.write('\n');
    return 0;
  }
  console.error(JSON.stringify({ error: errorOf(body, response) }));
  return 1;
}

/** The error object of the server's answer, as `run` prints its own: code, message, param. */
function errorOf(body: string, response: Response): { code: string; message: string; param?: string } {
  try {
    const { error } = JSON.parse(body) as { error: { code: string; message: string; param?: string } };
    return { code: error.code, message: error.message, param: error.param };
  } catch {
    return { code: 'internal', message: `the server answered ${response.status} ${response.statusText}` };
  }
}
