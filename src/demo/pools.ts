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

export const USER_AGENTS = [
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36',
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/125.0.0.0 Safari/537.36',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1',
  'Mozilla/5.0 (X11; Linux x86_64; rv:127.0) Gecko/20100101 Firefox/127.0',
  'supabase-js/2.43.4',
  'supabase-py/2.5.0',
  'Dart/3.4 (dart:io)',
  'okhttp/4.12.0',
  'curl/8.6.0',
  'python-requests/2.32.3',
  'Deno/1.44.4',
  'PostmanRuntime/7.39.0',
];

/** Countries with a city each, sampled together so a row never says Tokyo, BR. */
export const COUNTRIES = ['US', 'US', 'US', 'DE', 'GB', 'IN', 'BR', 'JP', 'FR', 'CA', 'AU', 'SG', 'NL', 'NG', 'MX', 'KR'];
export const CITIES = [
  'Ashburn', 'San Francisco', 'New York', 'Frankfurt', 'London', 'Mumbai', 'Sao Paulo', 'Tokyo', 'Paris', 'Toronto',
  'Sydney', 'Singapore', 'Amsterdam', 'Lagos', 'Mexico City', 'Seoul',
];

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

export const EDGE_STATUSES: Template[] = [
  { weight: 780, status: 200, cache: 'DYNAMIC' },
  { weight: 50, status: 200, cache: 'HIT' },
  { weight: 50, status: 201, cache: 'DYNAMIC' },
  { weight: 30, status: 204, cache: 'DYNAMIC' },
  { weight: 10, status: 304, cache: 'REVALIDATED' },
  { weight: 25, status: 400, cache: 'DYNAMIC' },
  { weight: 20, status: 401, cache: 'DYNAMIC' },
  { weight: 8, status: 403, cache: 'DYNAMIC' },
  { weight: 15, status: 404, cache: 'MISS' },
  { weight: 4, status: 429, cache: 'DYNAMIC' },
  { weight: 6, status: 500, cache: 'DYNAMIC' },
  { weight: 2, status: 503, cache: 'DYNAMIC' },
];

export const POSTGRES_LINES: Template[] = [
  { weight: 20, severity: 'LOG', code: '00000', message: 'connection received: host={ip} port={port}' },
  { weight: 14, severity: 'LOG', code: '00000', message: 'connection authorized: user=authenticator database=postgres application_name=postgrest' },
  { weight: 10, severity: 'LOG', code: '00000', message: 'statement: SELECT id, email FROM public.profiles WHERE email = \'{email}\'' },
  { weight: 8, severity: 'LOG', code: '00000', message: 'duration: {n}.412 ms  statement: SELECT * FROM public.todos WHERE user_id = $1 ORDER BY inserted_at DESC' },
  { weight: 6, severity: 'LOG', code: '00000', message: 'checkpoint complete: wrote {n} buffers (0.4%); 0 WAL file(s) added, 0 removed, 1 recycled' },
  { weight: 6, severity: 'LOG', code: '00000', message: 'disconnection: session time: 0:00:01.{n} user=authenticator database=postgres host={ip} port={port}' },
  { weight: 4, severity: 'LOG', code: '00000', message: 'automatic vacuum of table "postgres.public.todos": index scans: 1, pages: 0 removed, {n} remain' },
  { weight: 4, severity: 'INFO', code: '00000', message: 'pg_cron: scheduled job {n} started' },
  { weight: 3, severity: 'NOTICE', code: '42P07', message: 'relation "todos" already exists, skipping' },
  { weight: 3, severity: 'WARNING', code: '25P01', message: 'there is no transaction in progress' },
  { weight: 2, severity: 'WARNING', code: '01000', message: 'could not send signal to process {n}: No such process' },
  { weight: 5, severity: 'ERROR', code: '23505', message: 'duplicate key value violates unique constraint "profiles_email_key": Key (email)=({email}) already exists.' },
  { weight: 3, severity: 'ERROR', code: '42P01', message: 'relation "public.todo" does not exist at character 15' },
  { weight: 2, severity: 'ERROR', code: '42501', message: 'permission denied for table orders' },
  { weight: 2, severity: 'ERROR', code: '57014', message: 'canceling statement due to statement timeout' },
  { weight: 2, severity: 'ERROR', code: '42501', message: 'new row violates row-level security policy for table "messages"' },
  { weight: 1, severity: 'ERROR', code: '22P02', message: 'invalid input syntax for type uuid: "{n}"' },
  { weight: 2, severity: 'FATAL', code: '28P01', message: 'password authentication failed for user "postgres" (connection from {ip})' },
  { weight: 1, severity: 'FATAL', code: '53300', message: 'remaining connection slots are reserved for non-replication superuser connections' },
  { weight: 1, severity: 'PANIC', code: '53100', message: 'could not write to file "pg_wal/xlogtemp.{n}": No space left on device' },
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
  { weight: 85, method: 'POST', status: 200 },
  { weight: 8, method: 'GET', status: 200 },
  { weight: 2, method: 'OPTIONS', status: 204 },
  { weight: 2, method: 'POST', status: 400 },
  { weight: 1, method: 'POST', status: 401 },
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

export const AUTH_LINES: Template[] = [
  { weight: 30, level: 'info', status: 200, method: 'POST', path: '/token', message: 'Login' },
  { weight: 20, level: 'info', status: 200, method: 'GET', path: '/user', message: 'request completed' },
  { weight: 10, level: 'info', status: 200, method: 'POST', path: '/token', message: 'token refreshed' },
  { weight: 5, level: 'info', status: 200, method: 'POST', path: '/signup', message: 'user signed up: {email}' },
  { weight: 4, level: 'info', status: 200, method: 'POST', path: '/otp', message: 'sending magic link to {email}' },
  { weight: 3, level: 'info', status: 303, method: 'GET', path: '/verify', message: 'request completed' },
  { weight: 2, level: 'info', status: 200, method: 'POST', path: '/recover', message: 'sending password recovery email to {email}' },
  { weight: 4, level: 'info', status: 204, method: 'POST', path: '/logout', message: 'Logout' },
  { weight: 6, level: 'error', status: 400, method: 'POST', path: '/token', message: 'Invalid login credentials for {email}' },
  { weight: 2, level: 'warning', status: 429, method: 'POST', path: '/token', message: 'rate limit exceeded for {ip}' },
  { weight: 2, level: 'error', status: 422, method: 'POST', path: '/signup', message: 'User already registered: {email}' },
  { weight: 2, level: 'error', status: 401, method: 'GET', path: '/admin/users', message: 'invalid JWT: unable to parse or verify signature, token is expired' },
  { weight: 1, level: 'error', status: 500, method: 'GET', path: '/callback', message: 'Error getting user email from external provider' },
];

export const REALTIME_LINES: Template[] = [
  { weight: 20, level: 'info', message: 'Billing metrics: [:realtime, :channel_events]' },
  { weight: 10, level: 'info', message: 'Subscribed to PostgreSQL' },
  { weight: 6, level: 'info', message: 'Starting Realtime tenant' },
  { weight: 6, level: 'info', message: 'Presence track from {ip}' },
  { weight: 4, level: 'info', message: 'Broadcast from {email} on channel room-{n}' },
  { weight: 3, level: 'warning', message: 'ChannelRateLimitReached: Too many channels' },
  { weight: 2, level: 'error', message: 'UnableToConnectToProject: connection to {ip}:5432 refused' },
  { weight: 1, level: 'error', message: 'ConnectionRateLimitReached: Too many connected users' },
];

export const STORAGE_LINES: Template[] = [
  { weight: 20, level: 'info', message: 'Request completed: GET /object/public/avatars/user-{n}.png 200' },
  { weight: 8, level: 'info', message: 'Object uploaded: avatars/user-{n}.png' },
  { weight: 5, level: 'info', message: 'Signed URL created for documents/invoice-{n}.pdf by {email}' },
  { weight: 3, level: 'warning', message: 'Slow request: GET /object/list/avatars {n}ms' },
  { weight: 3, level: 'error', message: 'InvalidJWT: jwt expired' },
  { weight: 2, level: 'error', message: 'NoSuchKey: The specified key does not exist: avatars/user-{n}.png' },
  { weight: 1, level: 'error', message: 'Internal server error: connect ETIMEDOUT {ip}:5432' },
];

export const POSTGREST_LINES: Template[] = [
  { weight: 30, level: 'info', message: '{ip} - authenticated [{n}] "GET /todos?select=* HTTP/1.1" 200 - "" "{ua}"' },
  { weight: 10, level: 'info', message: '{ip} - anon [{n}] "POST /rpc/get_dashboard_stats HTTP/1.1" 200 - "" "{ua}"' },
  { weight: 4, level: 'info', message: 'Schema cache loaded' },
  { weight: 2, level: 'info', message: 'Listening on port 3000' },
  { weight: 2, level: 'info', message: 'Connection successful' },
  { weight: 2, level: 'warning', message: 'Attempting to reconnect to the database in 2 seconds...' },
  { weight: 2, level: 'error', message: '{ip} - authenticated [{n}] "PATCH /orders?id=eq.{n} HTTP/1.1" 500 - "" "{ua}"' },
  { weight: 1, level: 'error', message: 'Failed listening for notifications on the "pgrst" channel. connection to server lost' },
];

export const PGBOUNCER_LINES: Template[] = [
  { weight: 20, level: 'info', message: 'C-0x{hex}: postgres/authenticator@{ip}:{port} login attempt: db=postgres user=authenticator tls=no' },
  { weight: 10, level: 'info', message: 'stats: {n} xacts/s, {n} queries/s, in 20480 B/s, out 81920 B/s, xact 1234 us, query 567 us, wait 12 us' },
  { weight: 6, level: 'info', message: 'S-0x{hex}: postgres/authenticator@127.0.0.1:5432 closing because: server idle timeout (age=600s)' },
  { weight: 2, level: 'warning', message: 'C-0x{hex}: (nodb)/(nouser)@{ip}:{port} pooler error: no more connections allowed (max_client_conn)' },
  { weight: 1, level: 'error', message: 'C-0x{hex}: (nodb)/(nouser)@{ip}:{port} closing because: client_login_timeout (server down) (age=60s)' },
];
