/**
 * Demo events of the two HTTP gateways: the API gateway (`cloudflare.logs.prod`, edge_logs) and
 * the edge-function relay (`deno-relay-logs`, function_edge_logs). Both record the request with
 * what they learned of the caller's credentials (`request.sb`) and the response.
 */
import { createHash } from 'node:crypto';
import * as pools from './pools.js';
import { DEPLOYMENT_ID_SQL, FUNCTION_CTE, REPLICA_PARAMS, fillSql, httpDateSql, identifierSql, noneSql, pickSql, weighted, type ParamValue, type SourceSql } from './sql.js';

function digest(text: string): string {
  return createHash('md5').update(text).digest('hex');
}

/**
 * Each project's API keys and session-signing key, as lists by project index: legacy JWT keys
 * (anon, service_role) are HS256 with a signature that starts the same for every request; new
 * keys (publishable, secret) are known by prefix and hash; sessions of even-numbered projects are
 * signed with an asymmetric key (ES256, with a key id).
 */
function keyParams(): Record<string, ParamValue> {
  const projects = pools.DEMO_PROJECTS;
  const hexUuid = (hex: string) => `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
  return {
    key_anon_signature: projects.map((project) => digest(`${project}|anon`).slice(0, 6)),
    key_service_signature: projects.map((project) => digest(`${project}|service_role`).slice(0, 6)),
    key_publishable_prefix: projects.map((project) => `sb_publishable_${digest(`${project}|publishable`).slice(0, 4)}`),
    key_publishable_hash: projects.map((project) => digest(`${project}|publishable|key`)),
    key_secret_prefix: projects.map((project) => `sb_secret_${digest(`${project}|secret`).slice(0, 4)}`),
    key_secret_hash: projects.map((project) => digest(`${project}|secret|key`)),
    session_key_id: projects.map((project, index) => (index % 2 === 0 ? hexUuid(digest(`${project}|signing-key`)) : '')),
  };
}

/**
 * `request.sb` of a row, from its visitor's credentials (pools.CREDENTIALS), the project's keys
 * and the response: a preflight carries no credentials; on a 401 either the API key or the
 * user's session was the invalid one; a few signed-in clients send the session JWT as the API
 * key too. Reads `credentials`, `user_id`, `session_id`, `project`, `project_index`, `method`,
 * `status_code`, `ts`, `h1`, `h2`.
 */
const CREDENTIALS_CTE = `
, credentialed AS (
  SELECT *,
    CASE WHEN method = 'OPTIONS' THEN 'none' ELSE credentials END AS mode,
    epoch_us(ts) // 1000000 - (h1 >> 30) % 3600 AS session_issued_at
  FROM chosen
), judged AS (
  SELECT *,
    mode IN ('anon_user', 'anon', 'service_role') AS legacy_key,
    mode IN ('anon_user', 'publishable_user') AS signed_in,
    mode IN ('publishable_user', 'secret') AS new_key,
    status_code = 401 AND (mode NOT IN ('anon_user', 'publishable_user') OR (h1 >> 12) % 2 = 0) AS bad_key,
    status_code = 401 AND mode IN ('anon_user', 'publishable_user') AND (h1 >> 12) % 2 = 1 AS bad_session,
    mode = 'anon_user' AND (h2 >> 40) % 50 = 0 AS session_as_key
  FROM credentialed
), keyed AS (
  SELECT *,
    {
      'algorithm': 'HS256',
      'expires_at': 1690000000 + project_index * 3196800 + 315360000,
      'issued_at': 1690000000 + project_index * 3196800,
      'issuer': 'supabase',
      'key_id': NULL::VARCHAR,
      'role': CASE WHEN mode = 'service_role' THEN 'service_role' ELSE 'anon' END,
      'session_id': NULL::VARCHAR,
      'signature_prefix': CASE WHEN mode = 'service_role' THEN $key_service_signature ELSE $key_anon_signature END[1 + project_index],
      'subject': NULL::VARCHAR
    } AS key_payload,
    {
      'algorithm': CASE WHEN project_index % 2 = 0 THEN 'ES256' ELSE 'HS256' END,
      'expires_at': session_issued_at + 3600,
      'issued_at': session_issued_at,
      'issuer': 'https://' || project || '.cannery.dev/auth/v1',
      'key_id': ${noneSql('$session_key_id[1 + project_index]')},
      'role': 'authenticated',
      'session_id': session_id,
      'signature_prefix': printf('%06x', (h2 >> 8) % 16777216),
      'subject': user_id
    } AS user_payload
  FROM judged
), authenticated AS (
  SELECT *,
    CASE WHEN mode <> 'none' THEN {
      'auth_user': CASE WHEN signed_in AND NOT bad_session THEN user_id END,
      'jwt': CASE WHEN legacy_key OR signed_in THEN {
        'apikey': CASE WHEN legacy_key THEN {
          'invalid': CASE WHEN bad_key THEN 'invalid signature' END,
          'payload': CASE WHEN NOT bad_key THEN CASE WHEN session_as_key THEN user_payload ELSE key_payload END END
        } END,
        'authorization': {
          'invalid': CASE WHEN bad_session THEN 'token has invalid claims: token is expired' END,
          'payload': CASE WHEN NOT bad_session THEN CASE WHEN signed_in THEN user_payload ELSE key_payload END END
        }
      } END,
      'apikey': CASE WHEN new_key THEN {'apikey': {
        'error': CASE WHEN bad_key THEN 'invalid api key' END,
        'hash': CASE WHEN mode = 'secret' THEN $key_secret_hash ELSE $key_publishable_hash END[1 + project_index],
        'prefix': CASE WHEN mode = 'secret' THEN $key_secret_prefix ELSE $key_publishable_prefix END[1 + project_index]
      }} END
    } END AS sb
  FROM keyed
)`;

/** The response's content type, from what was asked for. Reads `status_code`, `path`. */
const CONTENT_TYPE_SQL = `CASE
  WHEN status_code IN (204, 304) THEN NULL
  WHEN suffix(path, '.png') THEN 'image/png'
  WHEN suffix(path, '.jpg') THEN 'image/jpeg'
  WHEN suffix(path, '.pdf') THEN 'application/pdf'
  ELSE 'application/json; charset=utf-8'
END`;

export const edge = (): SourceSql => ({
  params: {
    ...keyParams(),
    ...REPLICA_PARAMS,
    searches: pools.SEARCH_GROUPS,
    workers: pools.LOGFLARE_WORKERS,
    ...weighted('path', pools.EDGE_PATHS),
    ...weighted('method', pools.EDGE_METHODS),
    ...weighted('status', pools.EDGE_STATUSES),
  },
  select: `
, indexed AS (
  SELECT *,
    1 + h1 % len($path_path) AS path_index,
    1 + (h1 >> 24) % len($method_method) AS method_index,
    1 + (h2 >> 28) % len($status_status) AS status_index,
    project || '.cannery.dev' AS host
  FROM common
), chosen AS (
  SELECT *,
    ${fillSql('$path_path[path_index]', pools.EDGE_PATHS.map((row) => row.path))} AS path,
    nullif(${fillSql(pickSql('$searches[1 + $path_searches[path_index]]', '(h3 >> 40)'), pools.SEARCH_GROUPS.flat())}, '') AS search,
    $method_method[method_index] AS method,
    $status_status[status_index] AS status_code,
    $status_cache[status_index] AS cache_status
  FROM indexed
)${CREDENTIALS_CTE}, located AS (
  SELECT *,
    'https://' || host || path || coalesce(search, '') AS url,
    ${CONTENT_TYPE_SQL} AS content_type,
    starts_with(path, '/rest/v1/') AS rest,
    starts_with(path, '/storage/v1/object/') AS stored_object,
    method IN ('POST', 'PATCH', 'PUT') AS with_body,
    (h1 >> 50) % 100 AS bot_roll
  FROM authenticated
), served AS (
  SELECT *,
    ${identifierSql("rest AND method = 'GET' AND (h3 >> 50) % 10 = 0")} AS identifier,
    content_type LIKE 'application/json%' AND status_code = 200 AND method = 'GET' AND (h0 >> 50) % 10 < 3 AS chunked,
    CASE WHEN ua LIKE 'curl/%' OR ua LIKE 'python-requests/%' OR ua LIKE 'PostmanRuntime/%' THEN 1 + bot_roll % 29 ELSE 30 + bot_roll % 70 END AS bot_score
  FROM located
)
SELECT id, ts AS "timestamp", project, identifier,
  concat_ws(' | ', method, status_code, ip, hex, url, ua) AS event_message,
  {
    'load_balancer_redirect_identifier': CASE WHEN identifier <> project THEN identifier END,
    'logflare_worker': {'worker_id': ${pickSql('$workers', '(h0 >> 20)')}},
    'request': {
      'cf': {
        'asOrganization': as_organization, 'asn': asn,
        'botManagement': {
          'corporateProxy': (h1 >> 40) % 50 = 0,
          'detectionIds': CASE WHEN bot_score < 30 THEN [33554817, 33554824] ELSE []::BIGINT[] END,
          'ja3Hash': ja3_hash,
          'score': bot_score,
          'staticResource': content_type LIKE 'image/%',
          'verifiedBot': false
        },
        'city': city, 'clientAcceptEncoding': accept_encoding,
        'clientTcpRtt': base_rtt + (h2 >> 40) % 20, 'clientTrustScore': bot_score,
        'colo': colo, 'continent': continent, 'country': country,
        'edgeRequestKeepAliveStatus': 1, 'httpProtocol': http_protocol, 'isEUCountry': is_eu_country,
        'latitude': latitude, 'longitude': longitude, 'metroCode': metro_code, 'postalCode': postal_code,
        'region': region, 'regionCode': region_code, 'timezone': timezone, 'tlsCipher': tls_cipher,
        -- Cloudflare sets tlsClientAuth only where mutual TLS is on: here, for server-side clients' own keys.
        'tlsClientAuth': CASE WHEN credentials = 'secret' THEN {'certPresented': '1', 'certRevoked': '0', 'certVerified': 'SUCCESS'} END,
        'tlsExportedAuthenticator': {
          'clientFinished': tls_client_finished, 'clientHandshake': tls_client_handshake,
          'serverFinished': tls_server_finished, 'serverHandshake': tls_server_handshake
        },
        'tlsVersion': tls_version
      },
      'headers': {
        'accept': accept, 'cf_connecting_ip': ip, 'cf_ipcountry': country, 'cf_ray': hex,
        'content_length': CASE WHEN with_body THEN (2 + (h0 >> 8) % 4000)::VARCHAR END,
        'content_type': CASE WHEN with_body THEN CASE WHEN stored_object OR starts_with(path, '/storage/v1/upload/') THEN 'image/png' ELSE 'application/json' END END,
        'host': host,
        'referer': CASE WHEN h0 % 4 = 0 THEN 'https://app.example.com/' END,
        'user_agent': ua, 'x_client_info': client_info, 'x_forwarded_proto': 'https', 'x_real_ip': ip
      },
      'host': host, 'method': method, 'path': path, 'protocol': 'https:', 'sb': sb, 'search': search, 'url': url
    },
    'response': {
      'headers': {
        'cf_cache_status': cache_status,
        'cf_ray': hex || '-' || colo,
        'content_disposition': CASE WHEN search = '?download=true' THEN 'attachment; filename="' || regexp_extract(path, '[^/]+$') || '"' END,
        'content_length': CASE WHEN content_type IS NULL OR chunked THEN NULL
          WHEN content_type LIKE 'application/json%' THEN (40 + (h2 >> 12) % 9000)::VARCHAR
          ELSE (20000 + (h2 >> 12) % 400000)::VARCHAR END,
        'content_location': CASE WHEN rest AND method = 'GET' AND status_code = 200 AND NOT starts_with(path, '/rest/v1/rpc/') THEN substr(path, 9) || coalesce(search, '') END,
        'content_range': CASE WHEN rest AND method = 'GET' AND status_code = 200 THEN '0-' || (h3 >> 8) % 50 || '/*' END,
        'content_type': content_type,
        'date': ${httpDateSql('ts')},
        'etag': CASE WHEN stored_object AND method = 'GET' AND status_code IN (200, 304) THEN '"' || hex || '"' END,
        'last_modified': CASE WHEN stored_object AND method = 'GET' AND status_code IN (200, 304) THEN ${httpDateSql('ts - to_days(((h3 >> 8) % 90)::INTEGER)')} END,
        'proxy_status': CASE WHEN rest AND status_code >= 400 THEN 'PostgREST; error=' || ${noneSql('$status_rest_error[status_index]')} END,
        'sb_gateway_mode': 'direct',
        'sb_gateway_version': '1',
        'transfer_encoding': CASE WHEN chunked THEN 'chunked' END,
        'x_kong_proxy_latency': ((h0 >> 40) % 4)::VARCHAR,
        'x_sb_error_code': CASE WHEN starts_with(path, '/auth/v1/') AND status_code >= 400 THEN $status_auth_error[status_index] END
      },
      'origin_time': CASE WHEN h2 % 100 < 95 THEN 2 + (h2 >> 8) % 180 ELSE 200 + (h2 >> 8) % 4800 END,
      'status_code': status_code
    }
  } AS metadata
FROM served`,
});

export const functionEdge = (): SourceSql => ({
  params: { ...keyParams(), functions: pools.FUNCTION_NAMES, regions: pools.FUNCTION_REGIONS, ...weighted('response', pools.FUNCTION_RESPONSES) },
  select: `${FUNCTION_CTE}
, chosen AS (
  SELECT *,
    $response_method[response_index] AS method,
    $response_status[response_index] AS status_code,
    project || '.cannery.dev' AS host,
    '/functions/v1/' || function_name AS pathname
  FROM (SELECT *, 1 + h1 % len($response_status) AS response_index FROM deployed)
)${CREDENTIALS_CTE}, located AS (
  SELECT *, CASE WHEN method = 'GET' THEN '?limit=' || (h3 >> 8) % 50 END AS search FROM authenticated
)
SELECT id, ts AS "timestamp",
  concat_ws(' | ', method, status_code, 'https://' || host || pathname || coalesce(search, '')) AS event_message,
  {
    'deployment_id': ${DEPLOYMENT_ID_SQL},
    'execution_id': execution_id,
    'execution_time_ms': CASE WHEN h0 % 100 < 90 THEN 5 + (h0 >> 8) % 400 ELSE 400 + (h0 >> 8) % 9000 END,
    'function_id': function_id,
    'project_ref': project,
    'request': {
      'headers': {
        'accept': accept, 'accept_encoding': accept_encoding,
        'content_length': CASE WHEN method = 'POST' THEN (2 + (h0 >> 8) % 4000)::VARCHAR END,
        'host': host, 'user_agent': ua, 'x_client_info': client_info
      },
      'host': host, 'method': method, 'pathname': pathname, 'protocol': 'https:', 'sb': sb, 'search': search,
      'url': 'https://' || host || pathname || coalesce(search, '')
    },
    'response': {
      'headers': {
        'content_length': CASE WHEN status_code <> 204 THEN (2 + (h2 >> 12) % 2000)::VARCHAR END,
        'content_type': CASE WHEN status_code = 204 THEN NULL WHEN status_code >= 400 THEN 'text/plain;charset=UTF-8' ELSE 'application/json' END,
        'date': ${httpDateSql('ts')},
        'server': 'deno/' || runtime_region,
        'vary': 'Accept-Encoding',
        'x_sb_edge_region': runtime_region
      },
      'status_code': status_code
    },
    'version': version
  } AS metadata
FROM located`,
});
