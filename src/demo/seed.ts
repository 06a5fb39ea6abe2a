/**
 * `cannery seed`: realistic demo data for every built-in source, generated inside DuckDB.
 *
 * Each source is one `INSERT ... SELECT` over a range of row numbers per chunk, every column
 * derived from `hash(row, seed)`: set-based SQL runs on every core (about 4 s per million edge
 * events on two cores, into a file), where rows built in JS would each cross into DuckDB on
 * their own. Hashing instead of random() makes the data a pure function of (now, edgeEvents),
 * so tests can rely on counts and a demo looks the same every time.
 *
 * Time: every event lies in [now - 7 days, now]. The first rows of each source (5%, at least
 * `MIN_TAIL`) are spread evenly over the last hour and cycle through the projects, so a minutely
 * chart of any project has data in every minute; the rest is uniform over the rest of the week,
 * in time order with the row number. Rows land in the table in that order, so DuckDB's zone maps
 * on `timestamp` let a time bound or a newest-first top-N skip most row groups (at 1M edge
 * events, logs.all's top 100 took 14 ms instead of 900 ms).
 */
import { INTEGER, LIST, VARCHAR, BIGINT, listValue, type DuckDBConnection, type DuckDBType, type DuckDBValue } from '@duckdb/node-api';
import { quoteIdentifier } from '../sql/dialects/duckdb.js';
import * as pools from './pools.js';
import { stagedMetadata } from '../backends/duckdb/layout-sql.js';
import { ensureSourceTables, readSourceTable } from '../backends/duckdb/source-tables.js';

export { DEMO_PROJECTS, MAIN_DEMO_PROJECT } from './pools.js';

export interface SeedOptions {
  /** Events in `cloudflare.logs.prod`; the other sources get a fixed fraction of it (see `demoEventCounts`). */
  edgeEvents: number;
  /** The end of the seeded week; defaults to the current time. */
  now?: Date;
  /** Called after every chunk with events written so far and the total, across all sources. */
  onProgress?: (done: number, total: number) => void;
}

export interface SeedResult {
  events: Record<string, number>;
  total: number;
}

/** Rows per INSERT: a few row groups, so a chunk uses every core and progress moves every couple of seconds. */
const CHUNK_ROWS = 4 * 122_880;
const TAIL_FRACTION = 0.05;
/**
 * Twelve rows a minute: however the jitter lands, each minute gets at least ten consecutive rows
 * of the tail, and any six consecutive rows cover the project rotation below.
 */
const MIN_TAIL = 12 * 60;
const INDEX_TABLE = quoteIdentifier('cannery_seed_rows');

/** Other sources relative to the edge, roughly as in a busy project: every request hits the edge first. */
const SHARE_OF_EDGE: Readonly<Record<string, number>> = {
  'cloudflare.logs.prod': 1,
  'postgres.logs': 1 / 5,
  'deno-relay-logs': 1 / 20,
  'deno-subhosting-events': 1 / 10,
  'gotrue.logs.prod': 1 / 10,
  'realtime.logs.prod': 1 / 20,
  'storage.logs.prod.2': 1 / 10,
  'postgREST.logs.prod': 1 / 10,
  'pgbouncer.logs.prod': 1 / 20,
};

/** How many events `seedDemoData` writes per source for `edgeEvents`; every source gets at least one. */
export function demoEventCounts(edgeEvents: number): Record<string, number> {
  return Object.fromEntries(
    Object.entries(SHARE_OF_EDGE).map(([source, share]) => [
      source,
      edgeEvents === 0 ? 0 : Math.max(1, Math.round(edgeEvents * share)),
    ]),
  );
}

type ParamValue = string | number | bigint | readonly string[] | readonly number[] | readonly (readonly string[])[];

interface SourceSql {
  /** The SELECT after the shared CTEs, reading `common`. */
  select: string;
  params: Record<string, ParamValue>;
}

export async function seedDemoData(connection: DuckDBConnection, options: SeedOptions): Promise<SeedResult> {
  const { edgeEvents } = options;
  if (!Number.isSafeInteger(edgeEvents) || edgeEvents < 0) throw new RangeError(`edgeEvents must be a non-negative integer, got ${edgeEvents}`);
  const nowMicros = BigInt((options.now ?? new Date()).getTime()) * 1000n;
  const counts = demoEventCounts(edgeEvents);
  const total = Object.values(counts).reduce((sum, count) => sum + count, 0);

  await ensureSourceTables(connection);
  await connection.run(`CREATE OR REPLACE TEMP TABLE ${INDEX_TABLE} AS SELECT range AS j FROM range(${CHUNK_ROWS})`);
  try {
    let done = 0;
    options.onProgress?.(done, total);
    for (const [source, build] of Object.entries(GENERATORS)) {
      const count = counts[source] ?? 0;
      const { select, params } = build();
      const table = await readSourceTable(connection, source);
      const metadata = table?.columns.get('metadata');
      // The generators write every record as a list, as an import stages it; the table may store it otherwise.
      const stored = table && metadata ? stagedMetadata(metadata.type, table.metadata).select : 'metadata';
      const sql = `INSERT INTO ${quoteIdentifier(source)} BY NAME SELECT * REPLACE (${stored} AS metadata) FROM (${COMMON_CTES} ${select})`;
      const tail = Math.min(count, Math.max(MIN_TAIL, Math.floor(count * TAIL_FRACTION)));
      for (let start = 0; start < count; start += CHUNK_ROWS) {
        const rows = Math.min(CHUNK_ROWS, count - start);
        await connection.run(
          sql,
          ...bind({
            ...COMMON_PARAMS,
            ...params,
            now: nowMicros,
            seed: `${source}|${nowMicros}`,
            start: BigInt(start),
            rows: BigInt(rows),
            tail: BigInt(tail),
            count: BigInt(count),
          }),
        );
        done += rows;
        options.onProgress?.(done, total);
      }
    }
  } finally {
    await connection.run(`DROP TABLE IF EXISTS ${INDEX_TABLE}`);
  }
  return { events: counts, total };
}

/** Named parameters with explicit types: JS numbers would otherwise bind as INTEGER or DOUBLE by value. */
function bind(params: Record<string, ParamValue>): [Record<string, DuckDBValue>, Record<string, DuckDBType>] {
  const values: Record<string, DuckDBValue> = {};
  const types: Record<string, DuckDBType> = {};
  for (const [name, value] of Object.entries(params)) {
    if (typeof value === 'bigint') {
      values[name] = value;
      types[name] = BIGINT;
    } else if (typeof value === 'string') {
      values[name] = value;
      types[name] = VARCHAR;
    } else if (typeof value === 'number') {
      values[name] = value;
      types[name] = INTEGER;
    } else if (value.every((item) => Array.isArray(item))) {
      values[name] = listValue(value.map((items) => listValue(items as readonly string[])));
      types[name] = LIST(LIST(VARCHAR));
    } else if (value.every((item) => typeof item === 'number')) {
      values[name] = listValue(value as readonly number[]);
      types[name] = LIST(INTEGER);
    } else {
      values[name] = listValue(value as readonly string[]);
      types[name] = LIST(VARCHAR);
    }
  }
  return [values, types];
}

/** A weighted table as parallel lists `$<prefix>_<column>`, each row repeated `weight` times. */
function weighted(prefix: string, templates: readonly pools.Template[]): Record<string, ParamValue> {
  const columns = new Map<string, (string | number)[]>();
  for (const { weight, ...row } of templates) {
    for (const [column, value] of Object.entries(row)) {
      const list = columns.get(column) ?? [];
      for (let copy = 0; copy < weight; copy += 1) list.push(value);
      columns.set(column, list);
    }
  }
  return Object.fromEntries([...columns].map(([column, list]) => [`${prefix}_${column}`, list as string[] | number[]]));
}

/**
 * 63 bits of `hash(args)` as a BIGINT: hash() is UBIGINT, and UBIGINT arithmetic widens to
 * HUGEINT, which list subscripts do not accept.
 */
function hashSql(args: string): string {
  return `(hash(${args}) >> 1)::BIGINT`;
}

/** A version-4-looking UUID from two 64-bit hash columns. */
function uuidSql(a: string, b: string): string {
  return `printf('%08x-%04x-4%03x-%04x-%012x', ${a} >> 32, (${a} >> 16) % 65536, ${a} % 4096, 32768 + ${b} % 16384, ${b} >> 16)`;
}

/**
 * Fills the placeholders of message templates (see demo-pools.ts) from the row's columns, only
 * those the templates use: each replace() is a pass over every generated string.
 */
function fillSql(expression: string, templates: readonly (string | number | undefined)[]): string {
  const fills: [string, string][] = [['{ip}', 'ip'], ['{email}', 'email'], ['{n}', 'n'], ['{hex}', 'hex'], ['{port}', 'port'], ['{ua}', 'ua']];
  return fills
    .filter(([placeholder]) => templates.some((template) => String(template).includes(placeholder)))
    .reduce((sql, [placeholder, column]) => `replace(${sql}, '${placeholder}', ${column})`, expression);
}

/** The row's message from a weighted table of message templates. */
function lineMessageSql(lines: readonly pools.Template[]): string {
  return fillSql('$line_message[line_index]', lines.map((line) => line.message));
}

/** A uniform pick from a list parameter by some bits of a hash column. */
function pickSql(list: string, bits: string): string {
  return `${list}[1 + ${bits} % len(${list})]`;
}

const COMMON_PARAMS: Record<string, ParamValue> = {
  projects: pools.DEMO_PROJECTS,
  first_names: pools.FIRST_NAMES,
  last_names: pools.LAST_NAMES,
  email_domains: pools.EMAIL_DOMAINS,
  user_agents: pools.USER_AGENTS,
  countries: pools.COUNTRIES,
  cities: pools.CITIES,
};

/**
 * Columns every source can use: `i` (row number), independent hashes h0..h3, `ts`, `project`,
 * `id` and a visitor: ip, email, user agent, place. Visitors come from a fixed pool of 4,000
 * hashed without the seed, so the same addresses recur across sources and days, as real
 * clients do. Each CTE level computes what the next one reuses, once per row.
 */
const COMMON_CTES = `
WITH numbered AS (
  SELECT $start + j AS i FROM ${INDEX_TABLE} WHERE j < $rows
), hashed AS (
  SELECT i,
    ${hashSql('i, $seed, 0')} AS h0, ${hashSql('i, $seed, 1')} AS h1, ${hashSql('i, $seed, 2')} AS h2,
    ${hashSql('i, $seed, 3')} AS h3, ${hashSql('i, $seed, 4')} AS h_time, ${hashSql('i, $seed, 5')} AS h_project
  FROM numbered
), placed AS (
  SELECT *,
    make_timestamptz($now - CASE
      WHEN i < $tail THEN (i * 3600000000 + (h_time % 3600000000)::BIGINT) // $tail
      ELSE 604800000000 - ((i - $tail) * 601200000000) // ($count - $tail)
        - (h_time % greatest(1, 601200000000 // ($count - $tail)))::BIGINT
    END) AS ts,
    CASE
      WHEN i < $tail THEN [0, 0, 0, 1, 2, 3][1 + i % 6]
      WHEN h_project % 20 < 11 THEN 0
      ELSE 1 + (h_project >> 8) % 3
    END::INTEGER AS project_index,
    (h3 >> 20) % 4000 AS visitor,
    ${hashSql("(h3 >> 20) % 4000, 'cannery-demo-visitor'")} AS visitor_bits
  FROM hashed
), common AS (
  SELECT *,
    $projects[1 + project_index] AS project,
    ${uuidSql('h0', 'h1')} AS id,
    CASE WHEN visitor % 10 = 0
      THEN printf('2a02:%x:%x:%x::%x', 4096 + visitor_bits % 61440, (visitor_bits >> 16) % 65536, (visitor_bits >> 32) % 65536, 1 + (visitor_bits >> 48) % 65535)
      ELSE printf('%d.%d.%d.%d', 11 + visitor_bits % 212, (visitor_bits >> 8) % 256, (visitor_bits >> 16) % 256, 1 + (visitor_bits >> 24) % 254)
    END AS ip,
    ${pickSql('$first_names', '(visitor_bits >> 32)')} || '.' || ${pickSql('$last_names', '(visitor_bits >> 40)')}
      || '@' || ${pickSql('$email_domains', '(visitor_bits >> 48)')} AS email,
    ${pickSql('$user_agents', '(visitor_bits >> 36)')} AS ua,
    $countries[1 + (visitor_bits >> 44) % len($countries)] AS country,
    $cities[1 + (visitor_bits >> 44) % len($cities)] AS city,
    ((h2 >> 4) % 10000)::VARCHAR AS n,
    printf('%016x', h3) AS hex,
    (1024 + (h2 >> 20) % 60000)::VARCHAR AS port
  FROM placed
)`;

const edge = (): SourceSql => ({
  params: {
    searches: pools.SEARCH_GROUPS,
    ...weighted('path', pools.EDGE_PATHS),
    ...weighted('method', pools.EDGE_METHODS),
    ...weighted('status', pools.EDGE_STATUSES),
  },
  select: `
, chosen AS (
  SELECT *,
    1 + h1 % len($path_path) AS path_index,
    1 + (h1 >> 24) % len($method_method) AS method_index,
    1 + (h2 >> 28) % len($status_status) AS status_index,
    project || '.cannery.dev' AS host
  FROM common
), parts AS (
  SELECT *,
    ${fillSql('$path_path[path_index]', pools.EDGE_PATHS.map((row) => row.path))} AS path,
    ${fillSql(pickSql('$searches[1 + $path_searches[path_index]]', '(h3 >> 40)'), pools.SEARCH_GROUPS.flat())} AS search,
    $method_method[method_index] AS method,
    $status_status[status_index] AS status_code,
    $status_cache[status_index] AS cache_status
  FROM chosen
), located AS (
  SELECT *, 'https://' || host || path || search AS url FROM parts
)
SELECT id, ts AS "timestamp", project,
  concat_ws(' | ', method, status_code, ip, hex, url, ua) AS event_message,
  [{
    'request': [{
      'method': method, 'path': path, 'search': nullif(search, ''), 'url': url, 'host': host,
      'headers': [{'x_real_ip': ip, 'user_agent': ua, 'referer': CASE WHEN h0 % 4 = 0 THEN 'https://app.example.com/' END}],
      'cf': [{'country': country, 'city': city}]
    }],
    'response': [{
      'status_code': status_code,
      'origin_time': CASE WHEN h2 % 100 < 95 THEN 2 + (h2 >> 8) % 180 ELSE 200 + (h2 >> 8) % 4800 END,
      'headers': [{
        'cf_cache_status': cache_status,
        'content_type': CASE
          WHEN status_code = 204 THEN NULL
          WHEN suffix(path, '.png') THEN 'image/png'
          WHEN suffix(path, '.jpg') THEN 'image/jpeg'
          WHEN suffix(path, '.pdf') THEN 'application/pdf'
          ELSE 'application/json; charset=utf-8'
        END
      }]
    }]
  }] AS metadata
FROM located`,
});

const postgres = (): SourceSql => ({
  params: { ...weighted('line', pools.POSTGRES_LINES), users: pools.POSTGRES_USERS, queries: pools.POSTGRES_QUERIES },
  select: `
, chosen AS (SELECT *, 1 + h1 % len($line_message) AS line_index FROM common)
SELECT id, ts AS "timestamp", project,
  $line_severity[line_index] || ':  ' || ${lineMessageSql(pools.POSTGRES_LINES)} AS event_message,
  [{
    'host': 'db-' || project,
    'parsed': [{
      'error_severity': $line_severity[line_index],
      'user_name': ${pickSql('$users', '(h2 >> 16)')},
      'database_name': 'postgres',
      'query': CASE WHEN h3 % 3 = 0 THEN ${pickSql('$queries', '(h3 >> 8)')} END,
      'sql_state_code': $line_code[line_index]
    }]
  }] AS metadata
FROM chosen`,
});

/** Function ids are stable per project and function, so both function sources agree on them. */
const FUNCTION_CTE = `
, functions AS (
  SELECT *,
    (h2 >> 12) % len($functions) AS function_index,
    ${hashSql("project_index, (h2 >> 12) % len($functions), 'cannery-demo-function'")} AS function_bits
  FROM common
), deployed AS (
  SELECT *,
    $functions[1 + function_index] AS function_name,
    ${uuidSql('function_bits', hashSql('function_bits'))} AS function_id,
    ${uuidSql('h3', 'h2')} AS execution_id
  FROM functions
)`;

const functionEdge = (): SourceSql => ({
  params: { functions: pools.FUNCTION_NAMES, ...weighted('response', pools.FUNCTION_RESPONSES) },
  select: `${FUNCTION_CTE}
, chosen AS (
  SELECT *,
    1 + h1 % len($response_status) AS response_index,
    'https://' || project || '.cannery.dev/functions/v1/' || function_name AS url
  FROM deployed
)
SELECT id, ts AS "timestamp",
  concat_ws(' | ', $response_method[response_index], $response_status[response_index], url) AS event_message,
  [{
    'project_ref': project,
    'function_id': function_id,
    'execution_id': execution_id,
    'deployment_id': project || '_' || function_id || '_' || (1 + function_bits % 9),
    'execution_time_ms': CASE WHEN h0 % 100 < 90 THEN 5 + (h0 >> 8) % 400 ELSE 400 + (h0 >> 8) % 9000 END,
    'request': [{'method': $response_method[response_index], 'url': url, 'pathname': '/functions/v1/' || function_name}],
    'response': [{'status_code': $response_status[response_index]}]
  }] AS metadata
FROM chosen`,
});

const functionLogs = (): SourceSql => ({
  params: { functions: pools.FUNCTION_NAMES, ...weighted('line', pools.FUNCTION_LINES) },
  select: `${FUNCTION_CTE}
, chosen AS (SELECT *, 1 + h1 % len($line_message) AS line_index FROM deployed)
SELECT id, ts AS "timestamp",
  ${lineMessageSql(pools.FUNCTION_LINES)} AS event_message,
  [{
    'project_ref': project,
    'function_id': function_id,
    'execution_id': execution_id,
    'level': $line_level[line_index],
    'event_type': $line_type[line_index]
  }] AS metadata
FROM chosen`,
});

const auth = (): SourceSql => ({
  params: weighted('line', pools.AUTH_LINES),
  select: `
, chosen AS (SELECT *, 1 + h1 % len($line_message) AS line_index FROM common)
, lines AS (
  SELECT *,
    $line_level[line_index] AS level, $line_status[line_index] AS status, $line_method[line_index] AS method,
    $line_path[line_index] AS path, ${lineMessageSql(pools.AUTH_LINES)} AS msg
  FROM chosen
)
SELECT id, ts AS "timestamp", project,
  to_json({
    'component': 'api', 'level': level, 'method': method, 'msg': msg, 'path': path,
    'remote_addr': ip, 'status': status, 'time': strftime(ts AT TIME ZONE 'UTC', '%Y-%m-%dT%H:%M:%SZ')
  })::VARCHAR AS event_message,
  [{'level': level, 'status': status, 'path': path, 'method': method, 'msg': msg, 'remote_addr': ip}] AS metadata
FROM lines`,
});

const realtime = (): SourceSql => ({
  params: weighted('line', pools.REALTIME_LINES),
  select: `
, chosen AS (SELECT *, 1 + h1 % len($line_message) AS line_index FROM common)
SELECT id, ts AS "timestamp",
  ${lineMessageSql(pools.REALTIME_LINES)} AS event_message,
  [{'project': project, 'level': $line_level[line_index], 'external_id': project}] AS metadata
FROM chosen`,
});

const storage = (): SourceSql => ({
  params: weighted('line', pools.STORAGE_LINES),
  select: `
, chosen AS (SELECT *, 1 + h1 % len($line_message) AS line_index FROM common)
SELECT id, ts AS "timestamp",
  ${lineMessageSql(pools.STORAGE_LINES)} AS event_message,
  [{'project': project, 'level': $line_level[line_index], 'req_id': ${uuidSql('h2', 'h3')}}] AS metadata
FROM chosen`,
});

/** PostgREST and PgBouncer log the same way: a line, a level and the database host. */
const hostLines = (lines: readonly pools.Template[]) => (): SourceSql => ({
  params: weighted('line', lines),
  select: `
, chosen AS (SELECT *, 1 + h1 % len($line_message) AS line_index FROM common)
SELECT id, ts AS "timestamp", project,
  ${lineMessageSql(lines)} AS event_message,
  [{'host': 'db-' || project, 'level': $line_level[line_index]}] AS metadata
FROM chosen`,
});

/**
 * Sources whose project filter is `metadata.project_ref` / `metadata.project` (see DESIGN.md)
 * leave the top-level `project` NULL, as in the system the spec describes, so SQL that filters
 * those sources on the wrong column finds nothing here too.
 */
const GENERATORS: Readonly<Record<string, () => SourceSql>> = {
  'cloudflare.logs.prod': edge,
  'postgres.logs': postgres,
  'deno-relay-logs': functionEdge,
  'deno-subhosting-events': functionLogs,
  'gotrue.logs.prod': auth,
  'realtime.logs.prod': realtime,
  'storage.logs.prod.2': storage,
  'postgREST.logs.prod': hostLines(pools.POSTGREST_LINES),
  'pgbouncer.logs.prod': hostLines(pools.PGBOUNCER_LINES),
};
