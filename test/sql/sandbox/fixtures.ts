/**
 * Fixture events for the sandbox tests: two projects, "alpha" and "beta", in five sources, all on
 * 2024-05-01 (UTC). Every expectation in the sandbox tests is worked out by hand from this table.
 *
 * Wire timestamps (Unix microseconds): 2024-05-01T00:00:00Z is 1714521600 s, so hh:mm:ss that day
 * is 1714521600 + 3600 hh + 60 mm + ss seconds; each event's value is written beside it.
 */
import type { Fixtures } from '../../support/service.js';
import { queryPath } from '../../endpoints/edge-fixtures.js';

export const LOGS_ALL = 'logs.all';

/** The path of a GET to logs.all with `sql` and the other parameters in the query string. */
export function sandboxPath(params: Record<string, string>): string {
  return queryPath(LOGS_ALL, params);
}

interface EdgeRequest {
  method: string;
  path: string;
  ua: string;
  ip: string;
  country: string;
  status: number;
  originTime: number;
  /** Omitted: the response has no headers record (stored as NULL). */
  cache?: string;
}

function edge(id: string, timestamp: string, project: string, r: EdgeRequest): object {
  return {
    id,
    timestamp,
    event_message: `${r.method} ${r.path} ${r.status}`,
    project,
    metadata: {
      request: {
        method: r.method,
        path: r.path,
        url: `https://${project}.cannery.dev${r.path}`,
        host: `${project}.cannery.dev`,
        headers: { user_agent: r.ua, x_real_ip: r.ip },
        cf: { country: r.country },
      },
      response: {
        status_code: r.status,
        origin_time: r.originTime,
        ...(r.cache === undefined ? {} : { headers: { cf_cache_status: r.cache } }),
      },
    },
  };
}

function postgres(id: string, timestamp: string, project: string, message: string, parsed: object): object {
  return { id, timestamp, event_message: message, project, metadata: { host: `db-${project}`, parsed } };
}

function functionLog(id: string, timestamp: string, project: string, message: string, fields: object): object {
  return { id, timestamp, event_message: message, metadata: { project_ref: project, ...fields } };
}

function auth(id: string, timestamp: string, project: string, fields: { level: string; status: number; path: string; method: string; msg: string; remote_addr?: string }): object {
  return { id, timestamp, event_message: fields.msg, project, metadata: fields };
}

export const FIXTURES: Fixtures = {
  'cloudflare.logs.prod': [
    // alpha
    edge('e1', '2024-05-01T10:00:00Z', 'alpha', { method: 'GET', path: '/rest/v1/items', ua: 'curl/8.5.0', ip: '10.0.0.1', country: 'NZ', status: 200, originTime: 120, cache: 'HIT' }), // 1714557600
    edge('e2', '2024-05-01T10:05:00Z', 'alpha', { method: 'POST', path: '/rest/v1/items', ua: 'Mozilla/5.0', ip: '10.0.0.2', country: 'NZ', status: 201, originTime: 300, cache: 'MISS' }), // 1714557900
    edge('e3', '2024-05-01T10:30:00Z', 'alpha', { method: 'GET', path: '/auth/v1/user', ua: 'curl/8.5.0', ip: '10.0.0.1', country: 'US', status: 401, originTime: 50, cache: 'DYNAMIC' }), // 1714559400
    edge('e4', '2024-05-01T11:15:00Z', 'alpha', { method: 'GET', path: '/storage/v1/object/a.png', ua: 'Mozilla/5.0', ip: '10.0.0.3', country: 'US', status: 404, originTime: 80 }), // 1714562100
    edge('e5', '2024-05-01T12:00:00Z', 'alpha', { method: 'DELETE', path: '/rest/v1/items', ua: 'python-requests/2.31', ip: '10.0.0.4', country: 'DE', status: 500, originTime: 900, cache: 'BYPASS' }), // 1714564800
    // beta
    edge('be1', '2024-05-01T10:10:00Z', 'beta', { method: 'GET', path: '/rest/v1/orders', ua: 'curl/8.5.0', ip: '10.1.0.1', country: 'FR', status: 200, originTime: 100, cache: 'HIT' }), // 1714558200
    edge('be2', '2024-05-01T11:00:00Z', 'beta', { method: 'GET', path: '/rest/v1/orders', ua: 'curl/8.5.0', ip: '10.1.0.1', country: 'FR', status: 500, originTime: 700, cache: 'MISS' }), // 1714561200
  ],
  'postgres.logs': [
    postgres('p1', '2024-05-01T10:01:00Z', 'alpha', 'connection authorized: user=postgres database=postgres', { error_severity: 'LOG', user_name: 'postgres', database_name: 'postgres' }), // 1714557660
    postgres('p2', '2024-05-01T10:20:00Z', 'alpha', 'ERROR: relation "foo" does not exist', { error_severity: 'ERROR', user_name: 'authenticator', database_name: 'postgres', query: 'select * from foo', sql_state_code: '42P01' }), // 1714558800
    postgres('p3', '2024-05-01T11:40:00Z', 'alpha', 'ERROR: permission denied for table secrets', { error_severity: 'ERROR', user_name: 'anon', database_name: 'postgres', query: 'select * from secrets', sql_state_code: '42501' }), // 1714563600
    postgres('p4', '2024-05-01T12:10:00Z', 'alpha', 'checkpoint complete: wrote 12 buffers', { error_severity: 'LOG' }), // 1714565400
    postgres('bp1', '2024-05-01T10:25:00Z', 'beta', 'ERROR: deadlock detected', { error_severity: 'ERROR', user_name: 'postgres', database_name: 'postgres', sql_state_code: '40P01' }), // 1714559100
  ],
  'deno-subhosting-events': [
    functionLog('f1', '2024-05-01T10:02:00Z', 'alpha', 'booted (time: 21ms)', { function_id: 'fn-hello', execution_id: 'exec-1', level: 'info', event_type: 'Boot' }), // 1714557720
    functionLog('f2', '2024-05-01T10:40:00Z', 'alpha', 'Unhandled error: boom', { function_id: 'fn-hello', execution_id: 'exec-2', level: 'error', event_type: 'UncaughtException' }), // 1714560000
    functionLog('f3', '2024-05-01T11:05:00Z', 'alpha', 'warming cache', { function_id: 'fn-mail', execution_id: 'exec-3', level: 'warning', event_type: 'Log' }), // 1714561500
    functionLog('bf1', '2024-05-01T10:03:00Z', 'beta', 'booted (time: 30ms)', { function_id: 'fn-other', execution_id: 'exec-9', level: 'info', event_type: 'Boot' }), // 1714557780
  ],
  'deno-relay-logs': [
    functionLog('fe1', '2024-05-01T10:02:30Z', 'alpha', 'POST | 200 | https://alpha.functions.dev/hello', {
      function_id: 'fn-hello',
      execution_id: 'exec-1',
      execution_time_ms: 35,
      request: { method: 'POST', url: 'https://alpha.functions.dev/hello', pathname: '/hello' },
      response: { status_code: 200 },
    }), // 1714557750
    functionLog('fe2', '2024-05-01T10:41:00Z', 'alpha', 'POST | 500 | https://alpha.functions.dev/hello', {
      function_id: 'fn-hello',
      execution_id: 'exec-2',
      execution_time_ms: 120,
      request: { method: 'POST', url: 'https://alpha.functions.dev/hello', pathname: '/hello' },
      response: { status_code: 500 },
    }), // 1714560060
    functionLog('bfe1', '2024-05-01T10:04:00Z', 'beta', 'GET | 200 | https://beta.functions.dev/other', {
      function_id: 'fn-other',
      execution_id: 'exec-9',
      execution_time_ms: 10,
      request: { method: 'GET', url: 'https://beta.functions.dev/other', pathname: '/other' },
      response: { status_code: 200 },
    }), // 1714557840
  ],
  'gotrue.logs.prod': [
    auth('a1', '2024-05-01T10:06:00Z', 'alpha', { level: 'info', status: 200, path: '/token', method: 'POST', msg: 'Login', remote_addr: '10.0.0.1' }), // 1714557960
    auth('a2', '2024-05-01T10:07:00Z', 'alpha', { level: 'error', status: 400, path: '/token', method: 'POST', msg: 'Invalid login credentials', remote_addr: '10.0.0.9' }), // 1714558020
    auth('a3', '2024-05-01T10:50:00Z', 'alpha', { level: 'info', status: 200, path: '/user', method: 'GET', msg: 'request completed', remote_addr: '10.0.0.3' }), // 1714560600
    auth('a4', '2024-05-01T11:30:00Z', 'alpha', { level: 'warning', status: 429, path: '/otp', method: 'POST', msg: 'rate limit exceeded' }), // 1714563000
    auth('ba1', '2024-05-01T10:08:00Z', 'beta', { level: 'error', status: 500, path: '/token', method: 'POST', msg: 'database error', remote_addr: '10.1.0.1' }), // 1714558080
  ],
};
