/**
 * The vocabulary of the demo data: projects, people, paths and log lines, with weights.
 *
 * Kept apart from the SQL that samples them so the data can be made more realistic without
 * touching the generator. Message templates may use {ip} {email} {n} {hex} {port} {ua}, which
 * the generator fills per event; IPs and emails are there on purpose, for redaction to act on.
 */

/** Project refs in the shape of the system the spec describes: 20 lowercase letters. */
export const DEMO_PROJECTS = ['qzvmkdwtrjxhbnpalcoe', 'hfkwlbsxrydqzmvepnta', 'tnrcyaqzwjeogxmlbdkv', 'pmdoxkeqvtzjrfaclnwy'] as const;

/** The project the demo endpoints and the README point at; it gets most of the traffic. */
export const MAIN_DEMO_PROJECT = DEMO_PROJECTS[0];

/** Each project's read replica ('' for none): the main project's serves some of its reads. */
export const DEMO_READ_REPLICAS = [`${MAIN_DEMO_PROJECT}-rr-us-east-1-k2m9x`, '', '', ''];

/** One row of a weighted table: `weight` copies of it are sampled uniformly. */
export type Template = { weight: number } & Record<string, string | number>;

export const FIRST_NAMES = [
  'alice', 'bob', 'carol', 'dave', 'erin', 'frank', 'grace', 'heidi', 'ivan', 'judy',
  'mallory', 'niaj', 'olivia', 'peggy', 'rupert', 'sybil', 'trent', 'victor', 'walter', 'yusuf',
];
export const LAST_NAMES = [
  'smith', 'jones', 'garcia', 'nguyen', 'kowalski', 'okafor', 'tanaka', 'muller', 'rossi', 'silva',
  'dubois', 'ivanova', 'haddad', 'kim', 'larsen', 'obrien', 'patel', 'schmidt', 'weber', 'zhang',
];
export const EMAIL_DOMAINS = ['example.com', 'example.org', 'mail.example.net', 'acme.test', 'corp.example', 'uni.example.edu'];

/**
 * The programs that call the API, with what the gateway sees of each: its headers, its TLS and
 * HTTP versions, and the credentials it sends (see `CREDENTIALS`). A visitor is one of these.
 */
export const CLIENTS: Template[] = [
  { weight: 14, ua: 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36', client_info: 'supabase-js-web/2.45.4', accept: 'application/json', encoding: 'gzip, deflate, br, zstd', http: 'HTTP/2', tls: 'TLSv1.3', cipher: 'AEAD-AES128-GCM-SHA256', keys: 'anon_user' },
  { weight: 10, ua: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/125.0.0.0 Safari/537.36', client_info: 'supabase-ssr/0.5.1 createBrowserClient', accept: '*/*', encoding: 'gzip, deflate, br, zstd', http: 'HTTP/3', tls: 'TLSv1.3', cipher: 'AEAD-AES128-GCM-SHA256', keys: 'publishable_user' },
  { weight: 8, ua: 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1', client_info: 'supabase-js-web/2.43.4', accept: 'application/vnd.pgrst.object+json', encoding: 'gzip, deflate, br', http: 'HTTP/2', tls: 'TLSv1.3', cipher: 'AEAD-CHACHA20-POLY1305-SHA256', keys: 'anon_user' },
  { weight: 5, ua: 'Mozilla/5.0 (X11; Linux x86_64; rv:127.0) Gecko/20100101 Firefox/127.0', client_info: 'supabase-js-web/2.45.4', accept: 'application/json', encoding: 'gzip, deflate, br', http: 'HTTP/2', tls: 'TLSv1.3', cipher: 'AEAD-AES256-GCM-SHA384', keys: 'anon' },
  { weight: 8, ua: 'node', client_info: 'supabase-js-node/2.43.4', accept: 'application/json', encoding: 'gzip, deflate', http: 'HTTP/1.1', tls: 'TLSv1.3', cipher: 'AEAD-AES256-GCM-SHA384', keys: 'service_role' },
  { weight: 4, ua: 'python-httpx/0.27.0', client_info: 'supabase-py/2.5.0', accept: '*/*', encoding: 'gzip, deflate', http: 'HTTP/1.1', tls: 'TLSv1.3', cipher: 'AEAD-AES256-GCM-SHA384', keys: 'secret' },
  { weight: 6, ua: 'Dart/3.4 (dart:io)', client_info: 'supabase-flutter/2.5.6', accept: 'application/json', encoding: 'gzip', http: 'HTTP/1.1', tls: 'TLSv1.3', cipher: 'AEAD-AES128-GCM-SHA256', keys: 'anon_user' },
  { weight: 5, ua: 'okhttp/4.12.0', client_info: 'supabase-kt/2.5.0', accept: 'application/json', encoding: 'gzip', http: 'HTTP/2', tls: 'TLSv1.3', cipher: 'AEAD-AES128-GCM-SHA256', keys: 'publishable_user' },
  { weight: 3, ua: 'curl/8.6.0', client_info: '', accept: '*/*', encoding: '', http: 'HTTP/1.1', tls: 'TLSv1.3', cipher: 'AEAD-AES256-GCM-SHA384', keys: 'none' },
  { weight: 2, ua: 'python-requests/2.32.3', client_info: '', accept: '*/*', encoding: 'gzip, deflate', http: 'HTTP/1.1', tls: 'TLSv1.2', cipher: 'ECDHE-RSA-AES128-GCM-SHA256', keys: 'service_role' },
  { weight: 3, ua: 'Deno/1.44.4', client_info: 'supabase-js-deno/2.45.4', accept: 'application/json', encoding: 'gzip, br', http: 'HTTP/2', tls: 'TLSv1.3', cipher: 'AEAD-AES128-GCM-SHA256', keys: 'secret' },
  { weight: 2, ua: 'PostmanRuntime/7.39.0', client_info: '', accept: '*/*', encoding: 'gzip, deflate, br', http: 'HTTP/1.1', tls: 'TLSv1.3', cipher: 'AEAD-AES128-GCM-SHA256', keys: 'anon' },
];

/**
 * How a client authenticates, as the gateway records it under `request.sb`: a legacy JWT API key
 * (anon or service_role, `jwt.apikey`) with the user's session JWT or the key itself as the
 * Authorization bearer (`jwt.authorization`), or a new-style API key (`apikey.apikey`) with the
 * user's session JWT, or nothing at all.
 */
export const CREDENTIALS = ['anon_user', 'anon', 'service_role', 'publishable_user', 'secret', 'none'] as const;

/**
 * Where visitors are, with what Cloudflare reports of the place (cf.*) and the network they come
 * from; picked as a whole so a row never says Tokyo, BR.
 */
export const PLACES: Template[] = [
  { weight: 1, country: 'US', city: 'Ashburn', continent: 'NA', region: 'Virginia', region_code: 'VA', postal: '20147', metro: '511', lat: '39.04370', lon: '-77.48750', tz: 'America/New_York', colo: 'IAD', eu: '0', asn: 14618, org: 'Amazon.com, Inc.', rtt: 8 },
  { weight: 1, country: 'US', city: 'San Francisco', continent: 'NA', region: 'California', region_code: 'CA', postal: '94107', metro: '807', lat: '37.76970', lon: '-122.39330', tz: 'America/Los_Angeles', colo: 'SJC', eu: '0', asn: 7922, org: 'Comcast Cable Communications, LLC', rtt: 14 },
  { weight: 1, country: 'US', city: 'New York', continent: 'NA', region: 'New York', region_code: 'NY', postal: '10001', metro: '501', lat: '40.75060', lon: '-73.99720', tz: 'America/New_York', colo: 'EWR', eu: '0', asn: 701, org: 'Verizon Business', rtt: 11 },
  { weight: 1, country: 'DE', city: 'Frankfurt', continent: 'EU', region: 'Hesse', region_code: 'HE', postal: '60313', metro: '', lat: '50.11550', lon: '8.68420', tz: 'Europe/Berlin', colo: 'FRA', eu: '1', asn: 3320, org: 'Deutsche Telekom AG', rtt: 12 },
  { weight: 1, country: 'GB', city: 'London', continent: 'EU', region: 'England', region_code: 'ENG', postal: 'EC1A', metro: '', lat: '51.50740', lon: '-0.12780', tz: 'Europe/London', colo: 'LHR', eu: '0', asn: 2856, org: 'British Telecommunications PLC', rtt: 15 },
  { weight: 1, country: 'IN', city: 'Mumbai', continent: 'AS', region: 'Maharashtra', region_code: 'MH', postal: '400001', metro: '', lat: '19.07280', lon: '72.88260', tz: 'Asia/Kolkata', colo: 'BOM', eu: '0', asn: 55836, org: 'Reliance Jio Infocomm Limited', rtt: 48 },
  { weight: 1, country: 'BR', city: 'Sao Paulo', continent: 'SA', region: 'Sao Paulo', region_code: 'SP', postal: '01310', metro: '', lat: '-23.55050', lon: '-46.63330', tz: 'America/Sao_Paulo', colo: 'GRU', eu: '0', asn: 28573, org: 'Claro NXT Telecomunicacoes Ltda', rtt: 35 },
  { weight: 1, country: 'JP', city: 'Tokyo', continent: 'AS', region: 'Tokyo', region_code: '13', postal: '100-0001', metro: '', lat: '35.68950', lon: '139.69170', tz: 'Asia/Tokyo', colo: 'NRT', eu: '0', asn: 2516, org: 'KDDI CORPORATION', rtt: 21 },
  { weight: 1, country: 'FR', city: 'Paris', continent: 'EU', region: 'Ile-de-France', region_code: 'IDF', postal: '75001', metro: '', lat: '48.85660', lon: '2.35220', tz: 'Europe/Paris', colo: 'CDG', eu: '1', asn: 3215, org: 'Orange S.A.', rtt: 13 },
  { weight: 1, country: 'CA', city: 'Toronto', continent: 'NA', region: 'Ontario', region_code: 'ON', postal: 'M5H', metro: '', lat: '43.65320', lon: '-79.38320', tz: 'America/Toronto', colo: 'YYZ', eu: '0', asn: 812, org: 'Rogers Communications Canada Inc.', rtt: 18 },
  { weight: 1, country: 'AU', city: 'Sydney', continent: 'OC', region: 'New South Wales', region_code: 'NSW', postal: '2000', metro: '', lat: '-33.86880', lon: '151.20930', tz: 'Australia/Sydney', colo: 'SYD', eu: '0', asn: 1221, org: 'Telstra Limited', rtt: 26 },
  { weight: 1, country: 'SG', city: 'Singapore', continent: 'AS', region: 'Singapore', region_code: '01', postal: '018989', metro: '', lat: '1.28970', lon: '103.85010', tz: 'Asia/Singapore', colo: 'SIN', eu: '0', asn: 14061, org: 'DigitalOcean, LLC', rtt: 6 },
  { weight: 1, country: 'NL', city: 'Amsterdam', continent: 'EU', region: 'North Holland', region_code: 'NH', postal: '1012', metro: '', lat: '52.37400', lon: '4.88970', tz: 'Europe/Amsterdam', colo: 'AMS', eu: '1', asn: 24940, org: 'Hetzner Online GmbH', rtt: 9 },
  { weight: 1, country: 'NG', city: 'Lagos', continent: 'AF', region: 'Lagos', region_code: 'LA', postal: '100001', metro: '', lat: '6.45410', lon: '3.39470', tz: 'Africa/Lagos', colo: 'LOS', eu: '0', asn: 29465, org: 'MTN NIGERIA Communication limited', rtt: 64 },
  { weight: 1, country: 'MX', city: 'Mexico City', continent: 'NA', region: 'Mexico City', region_code: 'CMX', postal: '06000', metro: '', lat: '19.43260', lon: '-99.13320', tz: 'America/Mexico_City', colo: 'QRO', eu: '0', asn: 8151, org: 'UNINET', rtt: 29 },
  { weight: 1, country: 'KR', city: 'Seoul', continent: 'AS', region: 'Seoul', region_code: '11', postal: '04524', metro: '', lat: '37.56650', lon: '126.97800', tz: 'Asia/Seoul', colo: 'ICN', eu: '0', asn: 4766, org: 'Korea Telecom', rtt: 19 },
];

/** Ids of Logflare's Cloudflare workers, which stamp each edge event. */
export const LOGFLARE_WORKERS = ['0749QS', '1Q2R7X', '4KD9ZB', '7MT3LW', 'A2F8NV', 'C6H1PJ'];

/** Regions of the edge-function runtime. */
export const FUNCTION_REGIONS = ['us-east-1', 'us-east-1', 'us-west-1', 'eu-central-1', 'eu-west-2', 'ap-southeast-1', 'ap-northeast-1', 'sa-east-1'];

/** Query strings, grouped; an edge path template names its group. */
export const SEARCH_GROUPS = [
  // 0: none
  [''],
  // 1: PostgREST
  ['', '', '?select=*', '?select=*&limit=20', '?id=eq.{n}', '?email=eq.{email}', '?order=created_at.desc&limit=50',
    '?select=id,title,done&user_id=eq.{n}', '?select=*,author:profiles(email)&offset=40&limit=20'],
  // 2: auth
  ['', '?grant_type=password', '?grant_type=refresh_token', '?redirect_to=https://app.example.com/welcome', '?email={email}'],
  // 3: storage
  ['', '', '?width=200&height=200&resize=cover', '?download=true', '?token=eyJhbGciOiJIUzI1NiJ9.{hex}'],
  // 4: realtime
  ['?apikey=eyJhbGciOiJIUzI1NiJ9.{hex}&vsn=1.0.0', '?vsn=1.0.0'],
];

/**
 * Edge paths: one group per API prefix, plus a few paths that contain two prefixes (a function
 * proxying PostgREST...), which a usage query must classify by prefix, not by substring.
 */
export const EDGE_PATHS: Template[] = [
  { weight: 14, path: '/rest/v1/todos', searches: 1 },
  { weight: 9, path: '/rest/v1/profiles', searches: 1 },
  { weight: 7, path: '/rest/v1/messages', searches: 1 },
  { weight: 6, path: '/rest/v1/orders', searches: 1 },
  { weight: 4, path: '/rest/v1/products', searches: 1 },
  { weight: 5, path: '/rest/v1/rpc/get_dashboard_stats', searches: 0 },
  { weight: 3, path: '/rest/v1/rpc/search_products', searches: 0 },
  { weight: 2, path: '/rest/v1/', searches: 0 },
  { weight: 5, path: '/storage/v1/object/public/avatars/user-{n}.png', searches: 3 },
  { weight: 3, path: '/storage/v1/object/sign/documents/invoice-{n}.pdf', searches: 3 },
  { weight: 2, path: '/storage/v1/object/list/avatars', searches: 0 },
  { weight: 2, path: '/storage/v1/render/image/public/photos/{n}.jpg', searches: 3 },
  { weight: 1, path: '/storage/v1/bucket', searches: 0 },
  { weight: 2, path: '/storage/v1/upload/resumable', searches: 0 },
  { weight: 5, path: '/auth/v1/token', searches: 2 },
  { weight: 3, path: '/auth/v1/user', searches: 0 },
  { weight: 1, path: '/auth/v1/signup', searches: 0 },
  { weight: 1, path: '/auth/v1/otp', searches: 0 },
  { weight: 1, path: '/auth/v1/verify', searches: 2 },
  { weight: 1, path: '/auth/v1/logout', searches: 0 },
  { weight: 1, path: '/auth/v1/authorize', searches: 2 },
  { weight: 6, path: '/realtime/v1/websocket', searches: 4 },
  { weight: 2, path: '/realtime/v1/api/broadcast', searches: 0 },
  { weight: 4, path: '/functions/v1/hello-world', searches: 0 },
  { weight: 3, path: '/functions/v1/send-email', searches: 0 },
  { weight: 2, path: '/functions/v1/stripe-webhook', searches: 0 },
  { weight: 1, path: '/functions/v1/resize-image', searches: 3 },
  { weight: 1, path: '/functions/v1/openai-chat', searches: 0 },
  { weight: 1, path: '/functions/v1/rest-proxy/rest/v1/todos', searches: 1 },
  { weight: 1, path: '/functions/v1/storage-proxy/storage/v1/object/avatars/user-{n}.png', searches: 0 },
  { weight: 1, path: '/storage/v1/object/public/exports/auth/v1/users-{n}.json', searches: 0 },
];

export const EDGE_METHODS: Template[] = [
  { weight: 66, method: 'GET' },
  { weight: 18, method: 'POST' },
  { weight: 6, method: 'PATCH' },
  { weight: 3, method: 'DELETE' },
  { weight: 5, method: 'OPTIONS' },
  { weight: 2, method: 'HEAD' },
];

/**
 * Responses, with the cache status Cloudflare reports and the error code the service behind the
 * gateway sets on a failure: Auth's `x-sb-error-code` header and PostgREST's `proxy-status` code.
 */
export const EDGE_STATUSES: Template[] = [
  { weight: 780, status: 200, cache: 'DYNAMIC', auth_error: '', rest_error: '' },
  { weight: 50, status: 200, cache: 'HIT', auth_error: '', rest_error: '' },
  { weight: 50, status: 201, cache: 'DYNAMIC', auth_error: '', rest_error: '' },
  { weight: 30, status: 204, cache: 'DYNAMIC', auth_error: '', rest_error: '' },
  { weight: 10, status: 304, cache: 'REVALIDATED', auth_error: '', rest_error: '' },
  { weight: 15, status: 400, cache: 'DYNAMIC', auth_error: 'invalid_credentials', rest_error: 'PGRST100' },
  { weight: 10, status: 400, cache: 'DYNAMIC', auth_error: 'validation_failed', rest_error: '22P02' },
  { weight: 20, status: 401, cache: 'DYNAMIC', auth_error: 'bad_jwt', rest_error: 'PGRST301' },
  { weight: 8, status: 403, cache: 'DYNAMIC', auth_error: 'session_not_found', rest_error: '42501' },
  { weight: 15, status: 404, cache: 'MISS', auth_error: 'user_not_found', rest_error: 'PGRST205' },
  { weight: 4, status: 429, cache: 'DYNAMIC', auth_error: 'over_request_rate_limit', rest_error: '' },
  { weight: 6, status: 500, cache: 'DYNAMIC', auth_error: 'unexpected_failure', rest_error: 'XX000' },
  { weight: 2, status: 503, cache: 'DYNAMIC', auth_error: 'unexpected_failure', rest_error: 'PGRST001' },
];

/**
 * Postgres log lines (csvlog fields): severity, SQLSTATE, message, and who wrote them (backend
 * type, application, command tag; `user` picks from POSTGRES_USERS when empty). detail, hint,
 * context and query_pos are Postgres's own wording for that error; '' means none.
 */
export const POSTGRES_LINES: Template[] = [
  { weight: 20, severity: 'LOG', code: '00000', message: 'connection received: host={ip} port={port}', backend: 'not initialized', app: '', tag: '', user: '', detail: '', hint: '', context: '', pos: 0 },
  { weight: 14, severity: 'LOG', code: '00000', message: 'connection authorized: user=authenticator database=postgres application_name=postgrest', backend: 'client backend', app: 'postgrest', tag: 'authentication', user: 'authenticator', detail: '', hint: '', context: '', pos: 0 },
  { weight: 10, severity: 'LOG', code: '00000', message: 'statement: SELECT id, email FROM public.profiles WHERE email = \'{email}\'', backend: 'client backend', app: 'supabase/dashboard', tag: 'SELECT', user: '', detail: '', hint: '', context: '', pos: 0 },
  { weight: 8, severity: 'LOG', code: '00000', message: 'duration: {n}.412 ms  statement: SELECT * FROM public.todos WHERE user_id = $1 ORDER BY inserted_at DESC', backend: 'client backend', app: 'postgrest', tag: 'SELECT', user: '', detail: 'parameters: $1 = \'{n}\'', hint: '', context: '', pos: 0 },
  { weight: 6, severity: 'LOG', code: '00000', message: 'checkpoint complete: wrote {n} buffers (0.4%); 0 WAL file(s) added, 0 removed, 1 recycled', backend: 'checkpointer', app: '', tag: '', user: 'postgres', detail: '', hint: '', context: '', pos: 0 },
  { weight: 6, severity: 'LOG', code: '00000', message: 'disconnection: session time: 0:00:01.{n} user=authenticator database=postgres host={ip} port={port}', backend: 'client backend', app: 'postgrest', tag: 'idle', user: 'authenticator', detail: '', hint: '', context: '', pos: 0 },
  { weight: 4, severity: 'LOG', code: '00000', message: 'automatic vacuum of table "postgres.public.todos": index scans: 1, pages: 0 removed, {n} remain', backend: 'autovacuum worker', app: '', tag: '', user: 'postgres', detail: '', hint: '', context: '', pos: 0 },
  { weight: 3, severity: 'LOG', code: '00000', message: 'cron job {n} starting: SELECT net.http_post(url := \'https://hooks.example.com/nightly\')', backend: 'pg_cron', app: 'pg_cron', tag: '', user: 'postgres', detail: '', hint: '', context: '', pos: 0 },
  { weight: 2, severity: 'LOG', code: '00000', message: 'cron job {n} completed: 1 row', backend: 'pg_cron', app: 'pg_cron', tag: 'SELECT', user: 'postgres', detail: '', hint: '', context: '', pos: 0 },
  { weight: 1, severity: 'LOG', code: '00000', message: 'duration: {n}.905 ms  execute <unnamed>: SELECT count(*) FROM public.orders', backend: 'parallel worker', app: 'postgrest', tag: 'SELECT', user: '', detail: '', hint: '', context: '', pos: 0 },
  { weight: 4, severity: 'INFO', code: '00000', message: 'pg_cron: scheduled job {n} started', backend: 'pg_cron launcher', app: 'pg_cron', tag: '', user: 'postgres', detail: '', hint: '', context: '', pos: 0 },
  { weight: 3, severity: 'NOTICE', code: '42P07', message: 'relation "todos" already exists, skipping', backend: 'client backend', app: 'supabase/dashboard', tag: 'CREATE TABLE', user: 'postgres', detail: '', hint: '', context: '', pos: 0 },
  { weight: 3, severity: 'WARNING', code: '25P01', message: 'there is no transaction in progress', backend: 'client backend', app: 'Supavisor', tag: 'COMMIT', user: '', detail: '', hint: '', context: '', pos: 0 },
  { weight: 2, severity: 'WARNING', code: '01000', message: 'PgBouncer auth request: postgres', backend: 'client backend', app: '', tag: 'SELECT', user: 'pgbouncer', detail: '', hint: '', context: 'PL/pgSQL function pgbouncer.get_auth(text) line 3 at RAISE', pos: 0 },
  { weight: 5, severity: 'ERROR', code: '23505', message: 'duplicate key value violates unique constraint "profiles_email_key"', backend: 'client backend', app: 'postgrest', tag: 'INSERT', user: 'authenticator', detail: 'Key (email)=({email}) already exists.', hint: '', context: '', pos: 0 },
  { weight: 3, severity: 'ERROR', code: '42P01', message: 'relation "public.todo" does not exist at character 15', backend: 'client backend', app: 'supabase/dashboard', tag: 'SELECT', user: 'postgres', detail: '', hint: 'Perhaps you meant to reference the table "public.todos".', context: '', pos: 15 },
  { weight: 2, severity: 'ERROR', code: '42501', message: 'permission denied for table orders', backend: 'client backend', app: 'postgrest', tag: 'SELECT', user: 'authenticator', detail: '', hint: '', context: '', pos: 0 },
  { weight: 2, severity: 'ERROR', code: '57014', message: 'canceling statement due to statement timeout', backend: 'client backend', app: 'postgrest', tag: 'SELECT', user: 'authenticator', detail: '', hint: '', context: '', pos: 0 },
  { weight: 2, severity: 'ERROR', code: '42501', message: 'new row violates row-level security policy for table "messages"', backend: 'client backend', app: 'postgrest', tag: 'INSERT', user: 'authenticator', detail: '', hint: '', context: '', pos: 0 },
  { weight: 1, severity: 'ERROR', code: '22P02', message: 'invalid input syntax for type uuid: "{n}"', backend: 'client backend', app: 'postgrest', tag: 'SELECT', user: 'authenticator', detail: '', hint: '', context: 'unnamed portal parameter $1 = \'...\'', pos: 0 },
  { weight: 1, severity: 'ERROR', code: '42883', message: 'function public.get_stats(integer) does not exist', backend: 'client backend', app: 'postgrest', tag: 'SELECT', user: 'authenticator', detail: '', hint: 'No function matches the given name and argument types. You might need to add explicit type casts.', context: '', pos: 8 },
  { weight: 1, severity: 'ERROR', code: 'P0001', message: 'job {n} failed: could not connect to hooks.example.com', backend: 'pg_cron', app: 'pg_cron', tag: 'SELECT', user: 'postgres', detail: '', hint: '', context: 'PL/pgSQL function net.http_post(text) line 12 at RAISE', pos: 0 },
  { weight: 2, severity: 'FATAL', code: '28P01', message: 'password authentication failed for user "postgres"', backend: 'client backend', app: 'psql', tag: 'authentication', user: 'postgres', detail: 'Connection matched pg_hba.conf line 89: "host all all 0.0.0.0/0 scram-sha-256"', hint: '', context: '', pos: 0 },
  { weight: 1, severity: 'FATAL', code: '53300', message: 'remaining connection slots are reserved for non-replication superuser connections', backend: 'client backend', app: 'Supavisor', tag: 'startup', user: '', detail: '', hint: '', context: '', pos: 0 },
  { weight: 1, severity: 'PANIC', code: '53100', message: 'could not write to file "pg_wal/xlogtemp.{n}": No space left on device', backend: 'walwriter', app: '', tag: '', user: 'postgres', detail: '', hint: '', context: '', pos: 0 },
];

export const POSTGRES_USERS = ['authenticator', 'authenticator', 'authenticator', 'postgres', 'supabase_admin', 'supabase_auth_admin', 'supabase_storage_admin', 'pgbouncer'];

export const POSTGRES_QUERIES = [
  'SELECT * FROM public.todos WHERE user_id = $1',
  'INSERT INTO public.profiles (id, email) VALUES ($1, $2)',
  'UPDATE public.orders SET status = $1 WHERE id = $2',
  'DELETE FROM public.messages WHERE created_at < now() - interval \'30 days\'',
  'SELECT count(*) FROM public.products WHERE name ILIKE $1',
];

export const FUNCTION_NAMES = ['hello-world', 'send-email', 'stripe-webhook', 'resize-image', 'openai-chat'];

export const FUNCTION_RESPONSES: Template[] = [
  { weight: 83, method: 'POST', status: 200 },
  { weight: 8, method: 'GET', status: 200 },
  { weight: 2, method: 'OPTIONS', status: 204 },
  { weight: 2, method: 'POST', status: 400 },
  { weight: 3, method: 'POST', status: 401 },
  { weight: 2, method: 'POST', status: 500 },
];

export const FUNCTION_LINES: Template[] = [
  { weight: 8, level: 'log', type: 'Boot', message: 'booted (time: {n}ms)' },
  { weight: 4, level: 'log', type: 'Shutdown', message: 'shutdown' },
  { weight: 10, level: 'log', type: 'Log', message: 'Listening on http://localhost:9999/' },
  { weight: 12, level: 'log', type: 'Log', message: 'sending welcome email to {email}' },
  { weight: 8, level: 'info', type: 'Log', message: 'processing webhook evt_{hex} from {ip}' },
  { weight: 6, level: 'info', type: 'Log', message: 'resized image user-{n}.png to 200x200' },
  { weight: 4, level: 'warning', type: 'Log', message: 'slow upstream response: {n}ms' },
  { weight: 3, level: 'error', type: 'Log', message: 'Error: failed to send email to {email}: 550 mailbox unavailable' },
  { weight: 2, level: 'error', type: 'UncaughtException', message: "TypeError: Cannot read properties of undefined (reading 'email')" },
  { weight: 1, level: 'error', type: 'UncaughtException', message: 'event loop error: Error: connection refused {ip}:5432' },
];

/**
 * Auth's JSON log lines: the request (method, path, status; 0 and '' for a background line) and,
 * for the events Auth audits, the audit action with how the user signed in. `error` and
 * `error_code` are Auth's on a failure; `extra` names the rarer field the line carries (factor_id,
 * client_id, issuer, header, source_type, args or message). '' means none. Failed requests are
 * logged at level info, as Auth does.
 */
export const AUTH_LINES: Template[] = [
  { weight: 24, level: 'info', component: 'api', status: 200, method: 'POST', path: '/token', message: 'request completed', action: 'login', log_type: 'account', grant_type: 'password', login_method: 'password', provider: 'email', error: '', error_code: '', extra: '' },
  { weight: 12, level: 'info', component: 'api', status: 200, method: 'POST', path: '/token', message: 'request completed', action: 'token_refreshed', log_type: 'token', grant_type: 'refresh_token', login_method: '', provider: '', error: '', error_code: '', extra: '' },
  { weight: 20, level: 'info', component: 'api', status: 200, method: 'GET', path: '/user', message: 'request completed', action: '', log_type: '', grant_type: '', login_method: '', provider: '', error: '', error_code: '', extra: '' },
  { weight: 4, level: 'info', component: 'api', status: 200, method: 'POST', path: '/signup', message: 'request completed', action: 'user_signedup', log_type: 'team', grant_type: '', login_method: 'password', provider: 'email', error: '', error_code: '', extra: '' },
  { weight: 2, level: 'info', component: 'api', status: 302, method: 'GET', path: '/callback', message: 'request completed', action: 'login', log_type: 'account', grant_type: '', login_method: 'oauth', provider: 'google', error: '', error_code: '', extra: 'client' },
  { weight: 1, level: 'info', component: 'api', status: 302, method: 'GET', path: '/callback', message: 'request completed', action: 'user_signedup', log_type: 'team', grant_type: '', login_method: 'oauth', provider: 'github', error: '', error_code: '', extra: 'client' },
  { weight: 4, level: 'info', component: 'api', status: 200, method: 'POST', path: '/otp', message: 'request completed', action: 'user_confirmation_requested', log_type: 'user', grant_type: '', login_method: '', provider: 'email', error: '', error_code: '', extra: '' },
  { weight: 3, level: 'info', component: 'api', status: 303, method: 'GET', path: '/verify', message: 'request completed', action: 'login', log_type: 'account', grant_type: '', login_method: 'magiclink', provider: 'email', error: '', error_code: '', extra: '' },
  { weight: 2, level: 'info', component: 'api', status: 200, method: 'POST', path: '/recover', message: 'request completed', action: 'user_recovery_requested', log_type: 'user', grant_type: '', login_method: '', provider: '', error: '', error_code: '', extra: '' },
  { weight: 4, level: 'info', component: 'api', status: 204, method: 'POST', path: '/logout', message: 'request completed', action: 'logout', log_type: 'account', grant_type: '', login_method: '', provider: '', error: '', error_code: '', extra: '' },
  { weight: 1, level: 'info', component: 'api', status: 200, method: 'PUT', path: '/user', message: 'request completed', action: 'user_modified', log_type: 'user', grant_type: '', login_method: '', provider: '', error: '', error_code: '', extra: '' },
  { weight: 1, level: 'info', component: 'api', status: 200, method: 'POST', path: '/factors/verify', message: 'request completed', action: 'mfa_code_login', log_type: 'account', grant_type: '', login_method: 'mfa/totp', provider: '', error: '', error_code: '', extra: 'factor' },
  { weight: 1, level: 'info', component: 'api', status: 200, method: 'POST', path: '/sso/saml/acs', message: 'request completed', action: 'login', log_type: 'account', grant_type: '', login_method: 'sso/saml', provider: 'sso', error: '', error_code: '', extra: 'issuer' },
  { weight: 1, level: 'info', component: 'api', status: 200, method: 'POST', path: '/token', message: 'Invoking hook', action: '', log_type: '', grant_type: 'password', login_method: '', provider: '', error: '', error_code: '', extra: 'source' },
  { weight: 6, level: 'info', component: 'api', status: 400, method: 'POST', path: '/token', message: 'request completed', action: '', log_type: '', grant_type: 'password', login_method: '', provider: '', error: 'crypto/bcrypt: hashedPassword is not the hash of the given password', error_code: 'invalid_credentials', extra: '' },
  { weight: 2, level: 'warning', component: 'api', status: 429, method: 'POST', path: '/token', message: 'request completed', action: '', log_type: '', grant_type: 'password', login_method: '', provider: '', error: 'Request rate limit reached', error_code: 'over_request_rate_limit', extra: 'header' },
  { weight: 2, level: 'info', component: 'api', status: 422, method: 'POST', path: '/signup', message: 'request completed', action: 'user_repeated_signup', log_type: 'user', grant_type: '', login_method: '', provider: 'email', error: 'User already registered', error_code: 'user_already_exists', extra: '' },
  { weight: 2, level: 'error', component: 'api', status: 401, method: 'GET', path: '/admin/users', message: 'request completed', action: '', log_type: '', grant_type: '', login_method: '', provider: '', error: 'invalid JWT: unable to parse or verify signature, token has invalid claims: token is expired', error_code: 'bad_jwt', extra: '' },
  { weight: 1, level: 'error', component: 'api', status: 500, method: 'GET', path: '/callback', message: 'request completed', action: '', log_type: '', grant_type: '', login_method: 'oauth', provider: 'github', error: 'Error getting user email from external provider', error_code: 'unexpected_failure', extra: '' },
  { weight: 1, level: 'info', component: 'db', status: 0, method: '', path: '', message: 'Cleanup of expired sessions', action: '', log_type: '', grant_type: '', login_method: '', provider: '', error: '', error_code: '', extra: 'args' },
  { weight: 1, level: 'info', component: 'api', status: 0, method: '', path: '', message: 'GoTrue API started', action: '', log_type: '', grant_type: '', login_method: '', provider: '', error: '', error_code: '', extra: 'message' },
];

/**
 * Realtime (Elixir) log lines, with the logger metadata of the code that wrote them; metrics
 * lines carry the tenant's connection measurements.
 */
export const REALTIME_LINES: Template[] = [
  { weight: 20, level: 'info', message: 'Billing metrics: [:realtime, :channel_events]', module: 'Elixir.Realtime.Telemetry.Logger', function: 'handle_event/4', file: 'lib/realtime/telemetry/logger.ex', line: 37, metrics: 1 },
  { weight: 10, level: 'info', message: 'Subscribed to PostgreSQL', module: 'Elixir.Extensions.PostgresCdcRls.SubscriptionsChecker', function: 'handle_info/2', file: 'lib/extensions/postgres_cdc_rls/subscriptions_checker.ex', line: 71, metrics: 0 },
  { weight: 6, level: 'info', message: 'Starting Realtime tenant', module: 'Elixir.Realtime.Tenants.Connect', function: 'init/1', file: 'lib/realtime/tenants/connect.ex', line: 112, metrics: 0 },
  { weight: 6, level: 'info', message: 'Presence track from {ip}', module: 'Elixir.RealtimeWeb.RealtimeChannel.PresenceHandler', function: 'handle/3', file: 'lib/realtime_web/channels/realtime_channel/presence_handler.ex', line: 54, metrics: 0 },
  { weight: 4, level: 'info', message: 'Broadcast from {email} on channel room-{n}', module: 'Elixir.RealtimeWeb.RealtimeChannel.BroadcastHandler', function: 'handle/3', file: 'lib/realtime_web/channels/realtime_channel/broadcast_handler.ex', line: 31, metrics: 0 },
  { weight: 3, level: 'warning', message: 'ChannelRateLimitReached: Too many channels', module: 'Elixir.RealtimeWeb.RealtimeChannel', function: 'join/3', file: 'lib/realtime_web/channels/realtime_channel.ex', line: 88, metrics: 0 },
  { weight: 2, level: 'error', message: 'UnableToConnectToProject: connection to {ip}:5432 refused', module: 'Elixir.Realtime.Tenants.Connect', function: 'handle_continue/2', file: 'lib/realtime/tenants/connect.ex', line: 190, metrics: 0 },
  { weight: 1, level: 'error', message: 'ConnectionRateLimitReached: Too many connected users', module: 'Elixir.RealtimeWeb.UserSocket', function: 'connect/3', file: 'lib/realtime_web/channels/user_socket.ex', line: 64, metrics: 0 },
];

/**
 * Storage API log lines: a request's method, URL and status (none for a line about the server
 * itself), and the raw error of a failed one; '' and 0 mean none.
 */
export const STORAGE_LINES: Template[] = [
  { weight: 20, level: 'info', message: 'request completed', method: 'GET', url: '/object/public/avatars/user-{n}.png', status: 200, error: '' },
  { weight: 8, level: 'info', message: 'request completed', method: 'POST', url: '/object/avatars/user-{n}.png', status: 200, error: '' },
  { weight: 5, level: 'info', message: 'request completed', method: 'POST', url: '/object/sign/documents/invoice-{n}.pdf', status: 200, error: '' },
  { weight: 3, level: 'info', message: 'request completed', method: 'POST', url: '/object/list/avatars', status: 200, error: '' },
  { weight: 3, level: 'warning', message: 'request completed', method: 'GET', url: '/object/authenticated/documents/invoice-{n}.pdf', status: 400, error: 'InvalidJWT: jwt expired' },
  { weight: 2, level: 'warning', message: 'request completed', method: 'GET', url: '/object/public/avatars/user-{n}.png', status: 404, error: 'NoSuchKey: The specified key does not exist' },
  { weight: 1, level: 'error', message: 'request completed', method: 'GET', url: '/bucket', status: 500, error: 'Internal server error: connect ETIMEDOUT {ip}:5432' },
  { weight: 1, level: 'info', message: 'Server listening at http://0.0.0.0:5000', method: '', url: '', status: 0, error: '' },
];

export const POSTGREST_LINES: Template[] = [
  { weight: 30, message: '{ip} - authenticated [{n}] "GET /todos?select=* HTTP/1.1" 200 - "" "{ua}"' },
  { weight: 10, message: '{ip} - anon [{n}] "POST /rpc/get_dashboard_stats HTTP/1.1" 200 - "" "{ua}"' },
  { weight: 4, message: 'Schema cache loaded' },
  { weight: 2, message: 'Listening on port 3000' },
  { weight: 2, message: 'Connection successful' },
  { weight: 2, message: 'Attempting to reconnect to the database in 2 seconds...' },
  { weight: 2, message: '{ip} - authenticated [{n}] "PATCH /orders?id=eq.{n} HTTP/1.1" 500 - "" "{ua}"' },
  { weight: 1, message: 'Failed listening for notifications on the "pgrst" channel. connection to server lost' },
];

export const PGBOUNCER_LINES: Template[] = [
  { weight: 20, message: 'C-0x{hex}: postgres/authenticator@{ip}:{port} login attempt: db=postgres user=authenticator tls=no' },
  { weight: 10, message: 'stats: {n} xacts/s, {n} queries/s, in 20480 B/s, out 81920 B/s, xact 1234 us, query 567 us, wait 12 us' },
  { weight: 6, message: 'S-0x{hex}: postgres/authenticator@127.0.0.1:5432 closing because: server idle timeout (age=600s)' },
  { weight: 2, message: 'C-0x{hex}: (nodb)/(nouser)@{ip}:{port} pooler error: no more connections allowed (max_client_conn)' },
  { weight: 1, message: 'C-0x{hex}: (nodb)/(nouser)@{ip}:{port} closing because: client_login_timeout (server down) (age=60s)' },
];
