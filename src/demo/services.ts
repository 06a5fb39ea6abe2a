/**
 * Demo events of the services behind the gateways: Postgres, the function runtime, Auth,
 * Realtime, Storage, PostgREST and PgBouncer, each in the shape its real log pipeline writes
 * (see src/config/sources.ts).
 */
import * as pools from './pools.js';
import { DEPLOYMENT_ID_SQL, FUNCTION_CTE, REPLICA_PARAMS, hashSql, identifierSql, lineTextSql, noneSql, pickSql, uuidSql, weighted, type SourceSql } from './sql.js';

/** Picks each row's line of the weighted `$line_*` table. */
const LINE_CTE = ', chosen AS (SELECT *, 1 + h1 % len($line_message) AS line_index FROM common)';

function isoSql(instant: string, fraction = ''): string {
  return `strftime(${instant} AT TIME ZONE 'UTC', '%Y-%m-%dT%H:%M:%S${fraction}')`;
}

export const postgres = (): SourceSql => ({
  params: { ...weighted('line', pools.POSTGRES_LINES), ...REPLICA_PARAMS, users: pools.POSTGRES_USERS, queries: pools.POSTGRES_QUERIES },
  select: `${LINE_CTE}
, lines AS (
  SELECT *,
    $line_severity[line_index] AS severity,
    $line_backend[line_index] AS backend_type,
    ${noneSql('$line_tag[line_index]')} AS command_tag,
    ${identifierSql('(h3 >> 50) % 100 < 15')} AS identifier,
    1000 + (h0 >> 12) % 60000 AS process_id,
    ts - to_seconds((h0 >> 24) % 7200) AS session_start
  FROM chosen
)
SELECT id, ts AS "timestamp", project, identifier,
  severity || ':  ' || ${lineTextSql('message', pools.POSTGRES_LINES)} AS event_message,
  {
    'host': 'db-' || identifier,
    'parsed': {
      'application_name': ${noneSql('$line_app[line_index]')},
      'backend_type': backend_type,
      'command_tag': command_tag,
      'connection_from': CASE WHEN backend_type IN ('client backend', 'not initialized') THEN ip || ':' || port END,
      'context': ${noneSql(lineTextSql('context', pools.POSTGRES_LINES))},
      'database_name': 'postgres',
      'detail': ${noneSql(lineTextSql('detail', pools.POSTGRES_LINES))},
      'error_severity': severity,
      'hint': ${noneSql('$line_hint[line_index]')},
      'leader_pid': CASE WHEN backend_type = 'parallel worker' THEN process_id - 1 - (h1 >> 40) % 50 END,
      'process_id': process_id,
      'query': CASE WHEN h3 % 3 = 0 AND backend_type = 'client backend' THEN ${pickSql('$queries', '(h3 >> 8)')} END,
      'query_id': CASE WHEN command_tag IN ('SELECT', 'INSERT', 'UPDATE', 'DELETE') THEN ${hashSql("$line_message[line_index], 'cannery-demo-query'")} - 4611686018427387904 ELSE 0 END,
      'query_pos': nullif($line_pos[line_index], 0),
      'session_id': printf('%x.%x', epoch_us(session_start) // 1000000, process_id),
      'session_line_num': 1 + (h0 >> 20) % 5000,
      'session_start_time': strftime(session_start AT TIME ZONE 'UTC', '%Y-%m-%d %H:%M:%S UTC'),
      'sql_state_code': $line_code[line_index],
      'timestamp': strftime(ts AT TIME ZONE 'UTC', '%Y-%m-%d %H:%M:%S.%g UTC'),
      'transaction_id': CASE WHEN command_tag IN ('INSERT', 'UPDATE', 'DELETE', 'COMMIT', 'CREATE TABLE') THEN 7000 + i ELSE 0 END,
      'user_name': coalesce(${noneSql('$line_user[line_index]')}, ${pickSql('$users', '(h2 >> 16)')}),
      'virtual_transaction_id': printf('%d/%d', 1 + (h0 >> 8) % 40, (h0 >> 16) % 100000)
    }
  } AS metadata
FROM lines`,
});

export const functionLogs = (): SourceSql => ({
  params: { functions: pools.FUNCTION_NAMES, regions: pools.FUNCTION_REGIONS, ...weighted('line', pools.FUNCTION_LINES) },
  select: `${FUNCTION_CTE}
, chosen AS (SELECT *, 1 + h1 % len($line_message) AS line_index FROM deployed)
SELECT id, ts AS "timestamp",
  ${lineTextSql('message', pools.FUNCTION_LINES)} AS event_message,
  {
    'deployment_id': ${DEPLOYMENT_ID_SQL},
    'event_type': $line_type[line_index],
    'execution_id': execution_id,
    'function_id': function_id,
    'level': $line_level[line_index],
    'project_ref': project,
    'region': runtime_region,
    -- The runtime writes nanoseconds; the clock here has microseconds.
    'timestamp': ${isoSql('ts', '.%f')} || '000+00:00',
    'version': version
  } AS metadata
FROM chosen`,
});

/**
 * Auth writes one JSON object per line (event_message) and the pipeline copies its fields into
 * metadata, nested objects as repeated records. `line` holds the object; json_merge_patch drops
 * its NULL members, as Auth omits fields it has no value for.
 */
export const auth = (): SourceSql => ({
  params: weighted('line', pools.AUTH_LINES),
  select: `${LINE_CTE}
, lines AS (
  SELECT *,
    $line_level[line_index] AS level,
    $line_component[line_index] AS component,
    nullif($line_status[line_index], 0) AS status,
    ${noneSql('$line_method[line_index]')} AS method,
    ${noneSql('$line_path[line_index]')} AS path,
    $line_message[line_index] AS msg,
    ${noneSql('$line_action[line_index]')} AS action,
    ${noneSql('$line_log_type[line_index]')} AS log_type,
    ${noneSql('$line_login_method[line_index]')} AS login_method,
    ${noneSql('$line_provider[line_index]')} AS provider,
    $line_extra[line_index] AS extra,
    ${isoSql('ts', 'Z')} AS time
  FROM chosen
), events AS (
  SELECT *,
    status IS NOT NULL AS request,
    CASE WHEN action IS NOT NULL THEN {
      'action': action, 'actor_id': user_id, 'actor_name': split_part(email, '@', 1), 'actor_username': email,
      'actor_via_sso': login_method = 'sso/saml', 'log_type': log_type,
      'traits': {
        'channel': CASE WHEN action = 'user_confirmation_requested' THEN 'email' END,
        'provider': provider, 'user_email': email, 'user_id': user_id,
        'user_phone': CASE WHEN (h0 >> 30) % 10 = 0 THEN '+1555' || lpad(n, 7, '0') END
      }
    } END AS auth_event
  FROM lines
), fields AS (
  SELECT *, {
    'action': CASE WHEN log_type = 'token' THEN action END,
    'args': CASE WHEN extra = 'args' THEN ['sessions', 'refresh_tokens'] END,
    'auth_event': auth_event,
    'client_id': CASE WHEN extra = 'client' THEN ${uuidSql(hashSql("project, 'cannery-demo-oauth'"), hashSql("project, 'cannery-demo-oauth-client'"))} END,
    'component': component,
    'duration': CASE WHEN request THEN (1 + (h2 >> 8) % 400) * 1000000 + (h2 >> 24) % 1000000 END,
    'error': ${noneSql('$line_error[line_index]')},
    'error_code': ${noneSql('$line_error_code[line_index]')},
    'factor_id': CASE WHEN extra = 'factor' THEN ${uuidSql(hashSql("user_id, 'cannery-demo-factor'"), hashSql("user_id, 'cannery-demo-totp'"))} END,
    'grant_type': ${noneSql('$line_grant_type[line_index]')},
    'header': CASE WHEN extra = 'header' THEN 'X-Forwarded-For' END,
    'host': 'db-' || project,
    'instance_id': '00000000-0000-0000-0000-000000000000',
    'issuer': CASE WHEN extra = 'issuer' THEN 'https://idp.example.com/saml/metadata' END,
    'level': level,
    'login_method': login_method,
    'message': CASE WHEN extra = 'message' THEN msg || ' on: :9999' END,
    'metering': CASE WHEN action = 'login' THEN true END,
    'method': method,
    'msg': msg,
    'path': path,
    'project': project,
    'provider': provider,
    'referer': CASE WHEN request AND h0 % 3 = 0 THEN 'https://app.example.com/' END,
    'remote_addr': CASE WHEN request THEN ip END,
    'request_id': CASE WHEN request THEN hex || '-' || colo END,
    'source_type': CASE WHEN extra = 'source' THEN 'postgres' END,
    'status': status,
    'time': time,
    'timestamp': time,
    'user_id': CASE WHEN log_type = 'token' THEN user_id END
  } AS line
  FROM events
)
SELECT id, ts AS "timestamp", project,
  json_merge_patch('{}', to_json(line))::VARCHAR AS event_message,
  {
    'action': line.action, 'args': line.args,
    'auth_event': CASE WHEN auth_event IS NOT NULL THEN {
      'action': auth_event.action, 'actor_id': auth_event.actor_id, 'actor_name': auth_event.actor_name,
      'actor_username': auth_event.actor_username, 'actor_via_sso': auth_event.actor_via_sso, 'log_type': auth_event.log_type,
      'traits': auth_event.traits
    } END,
    'client_id': line.client_id, 'component': line.component, 'duration': line.duration, 'error': line.error,
    'error_code': line.error_code, 'factor_id': line.factor_id, 'grant_type': line.grant_type, 'header': line.header,
    'host': line.host, 'instance_id': line.instance_id, 'issuer': line.issuer, 'level': line.level,
    'login_method': line.login_method, 'message': line.message, 'metering': line.metering, 'method': line.method,
    'msg': line.msg, 'path': line.path, 'project': line.project, 'provider': line.provider, 'referer': line.referer,
    'remote_addr': line.remote_addr, 'request_id': line.request_id, 'source_type': line.source_type,
    'status': line.status, 'time': line.time, 'timestamp': line.timestamp, 'user_id': line.user_id
  } AS metadata
FROM fields`,
});

export const realtime = (): SourceSql => ({
  params: weighted('line', pools.REALTIME_LINES),
  select: `${LINE_CTE}
, lines AS (
  SELECT *, $line_module[line_index] AS module, $line_function[line_index] AS function_arity, 40 + (h2 >> 8) % 160 AS connected
  FROM chosen
)
SELECT id, ts AS "timestamp",
  ${lineTextSql('message', pools.REALTIME_LINES)} AS event_message,
  {
    'context': {
      'application': 'realtime',
      'domain': ['elixir'],
      'file': $line_file[line_index],
      'function': function_arity,
      'gl': printf('<0.%d.0>', 2000 + h0 % 3000),
      'line': $line_line[line_index],
      'mfa': [module, split_part(function_arity, '/', 1), split_part(function_arity, '/', 2)],
      'module': module,
      'pid': printf('<0.%d.%d>', 1000 + (h1 >> 8) % 9000, (h2 >> 4) % 100),
      'time': epoch_us(ts),
      'vm': {'node': 'realtime-prod@10.0.' || (h3 >> 8) % 4 || '.' || 10 + (h3 >> 16) % 4}
    },
    'external_id': project,
    'level': $line_level[line_index],
    'measurements': CASE WHEN $line_metrics[line_index] = 1 THEN {
      'connected': connected, 'connected_cluster': connected + (h3 >> 24) % 40, 'limit': 200, 'sum': connected * 3 + (h0 >> 4) % 50
    } END,
    'project': project
  } AS metadata
FROM lines`,
});

export const storage = (): SourceSql => ({
  params: weighted('line', pools.STORAGE_LINES),
  select: `${LINE_CTE}
, lines AS (
  SELECT *,
    ${noneSql('$line_method[line_index]')} AS method,
    nullif($line_status[line_index], 0) AS status,
    ${lineTextSql('url', pools.STORAGE_LINES)} AS url
  FROM chosen
), requests AS (
  SELECT *,
    method = 'POST' AND url LIKE '/object/avatars/%' AS upload,
    CASE WHEN status >= 400 THEN 'application/json; charset=utf-8'
      WHEN method = 'GET' AND suffix(url, '.png') THEN 'image/png'
      WHEN method = 'GET' AND suffix(url, '.pdf') THEN 'application/pdf'
      ELSE 'application/json; charset=utf-8' END AS content_type
  FROM lines
)
SELECT id, ts AS "timestamp",
  $line_message[line_index] AS event_message,
  {
    'context': {'host': 'ip-10-0-' || (h0 >> 8) % 256 || '-' || (h0 >> 16) % 256 || '.ec2.internal', 'pid': 1},
    'level': $line_level[line_index],
    'project': project,
    'rawError': ${noneSql(lineTextSql('error', pools.STORAGE_LINES))},
    'req': CASE WHEN method IS NOT NULL THEN {
      'headers': {
        'accept': accept, 'cf_connecting_ip': ip, 'cf_ray': hex,
        'content_length': CASE WHEN upload THEN (20000 + (h2 >> 8) % 400000)::VARCHAR END,
        'content_type': CASE WHEN upload THEN 'image/png' WHEN method = 'POST' THEN 'application/json' END,
        'host': project || '.cannery.dev',
        'referer': CASE WHEN h0 % 4 = 0 THEN 'https://app.example.com/' END,
        'user_agent': ua, 'x_client_info': client_info, 'x_forwarded_proto': 'https'
      },
      'hostname': project || '.cannery.dev', 'method': method, 'remoteAddress': ip, 'remotePort': port::INTEGER, 'url': url
    } END,
    'reqId': CASE WHEN method IS NOT NULL THEN hex || '-' || colo END,
    'res': CASE WHEN method IS NOT NULL THEN {
      'headers': {'content_length': CASE WHEN content_type LIKE 'application/json%' THEN 20 + (h3 >> 8) % 2000 ELSE 20000 + (h3 >> 8) % 400000 END, 'content_type': content_type},
      'statusCode': status
    } END,
    'responseTime': CASE WHEN method IS NOT NULL THEN round(0.5 + ((h2 >> 30) % 400000) / 1000.0, 3) END,
    'tenantId': project,
    'timestamp': ${isoSql('ts', '.%gZ')}
  } AS metadata
FROM requests`,
});

export const postgrest = (): SourceSql => ({
  params: { ...weighted('line', pools.POSTGREST_LINES), ...REPLICA_PARAMS },
  select: `${LINE_CTE}
, lines AS (SELECT *, ${identifierSql('(h3 >> 50) % 100 < 15')} AS identifier FROM chosen)
SELECT id, ts AS "timestamp", project, identifier,
  ${lineTextSql('message', pools.POSTGREST_LINES)} AS event_message,
  {'host': 'db-' || identifier} AS metadata
FROM lines`,
});

export const pgbouncer = (): SourceSql => ({
  params: weighted('line', pools.PGBOUNCER_LINES),
  select: `${LINE_CTE}
SELECT id, ts AS "timestamp", project, 'pgbouncer.log' AS file,
  ${lineTextSql('message', pools.PGBOUNCER_LINES)} AS event_message,
  {'host': 'db-' || project} AS metadata
FROM chosen`,
});
