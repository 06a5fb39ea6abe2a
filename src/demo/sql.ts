/**
 * The SQL building blocks of `cannery seed`: hashing, sampling from the pools, and the columns
 * every source's generator starts from (see seed.ts for how a source's SELECT is run).
 *
 * Every value is derived from hashes of the row number and the seed, never from random(), so the
 * data is a pure function of (now, edgeEvents). Pools are bound as list parameters.
 */
import { quoteIdentifier } from '../sql/dialects/duckdb/quote.js';
import * as pools from './pools.js';

export type ParamValue = string | number | bigint | readonly string[] | readonly number[] | readonly (readonly string[])[];

/** One source's generator: the SELECT after the shared CTEs (reading `common`) and its parameters. */
export interface SourceSql {
  select: string;
  params: Record<string, ParamValue>;
}

export const INDEX_TABLE = quoteIdentifier('cannery_seed_rows');
export const VISITOR_TABLE = quoteIdentifier('cannery_seed_visitors');
/** Distinct visitors (IP, person, client, place): they recur across sources and days, as real ones do. */
export const VISITORS = 4000;

/** A weighted table as parallel lists `$<prefix>_<column>`, each row repeated `weight` times. */
export function weighted(prefix: string, templates: readonly pools.Template[]): Record<string, ParamValue> {
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
export function hashSql(args: string): string {
  return `(hash(${args}) >> 1)::BIGINT`;
}

/** A version-4-looking UUID from two 64-bit hash columns. */
export function uuidSql(a: string, b: string): string {
  return `printf('%08x-%04x-4%03x-%04x-%012x', ${a} >> 32, (${a} >> 16) % 65536, ${a} % 4096, 32768 + ${b} % 16384, ${b} >> 16)`;
}

/**
 * Fills the placeholders of message templates (see pools.ts) from the row's columns, only
 * those the templates use: each replace() is a pass over every generated string.
 */
export function fillSql(expression: string, templates: readonly (string | number | undefined)[]): string {
  const fills: [string, string][] = [['{ip}', 'ip'], ['{email}', 'email'], ['{n}', 'n'], ['{hex}', 'hex'], ['{port}', 'port'], ['{ua}', 'ua']];
  return fills
    .filter(([placeholder]) => templates.some((template) => String(template).includes(placeholder)))
    .reduce((sql, [placeholder, column]) => `replace(${sql}, '${placeholder}', ${column})`, expression);
}

/** The row's text of a template column of a weighted table of lines (`$line_<column>[line_index]`), placeholders filled. */
export function lineTextSql(column: string, lines: readonly pools.Template[]): string {
  return fillSql(`$line_${column}[line_index]`, lines.map((line) => line[column]));
}

/** A uniform pick from a list parameter by some bits of a hash column. */
export function pickSql(list: string, bits: string): string {
  return `${list}[1 + ${bits} % len(${list})]`;
}

/** An HTTP date (`Thu, 23 Mar 2023 12:59:07 GMT`) of a TIMESTAMPTZ expression. */
export function httpDateSql(instant: string): string {
  return `strftime((${instant}) AT TIME ZONE 'UTC', '%a, %d %b %Y %H:%M:%S GMT')`;
}

/** '' in a template column means "none". */
export function noneSql(expression: string): string {
  return `nullif(${expression}, '')`;
}

/**
 * The visitors, built once per seed: each is an address, a person, a client program (see
 * pools.CLIENTS) and a place (pools.PLACES), with the session and TLS state that program keeps.
 * Hashed without the seed, so the same visitors appear in every demo.
 */
export const VISITOR_TABLE_SQL = `
CREATE OR REPLACE TEMP TABLE ${VISITOR_TABLE} AS
WITH numbered AS (
  SELECT range AS visitor, ${hashSql("range, 'cannery-demo-visitor'")} AS bits, ${hashSql("range, 'cannery-demo-session'")} AS session_bits
  FROM range(${VISITORS})
), chosen AS (
  SELECT *, 1 + (bits >> 36) % len($client_ua) AS client_index, 1 + (bits >> 44) % len($place_country) AS place_index FROM numbered
)
SELECT visitor,
  CASE WHEN visitor % 10 = 0
    THEN printf('2a02:%x:%x:%x::%x', 4096 + bits % 61440, (bits >> 16) % 65536, (bits >> 32) % 65536, 1 + (bits >> 48) % 65535)
    ELSE printf('%d.%d.%d.%d', 11 + bits % 212, (bits >> 8) % 256, (bits >> 16) % 256, 1 + (bits >> 24) % 254)
  END AS ip,
  ${pickSql('$first_names', '(bits >> 32)')} || '.' || ${pickSql('$last_names', '(bits >> 40)')}
    || '@' || ${pickSql('$email_domains', '(bits >> 48)')} AS email,
  ${uuidSql('bits', 'session_bits')} AS user_id,
  ${uuidSql('session_bits', 'bits')} AS session_id,
  $client_ua[client_index] AS ua,
  ${noneSql('$client_client_info[client_index]')} AS client_info,
  $client_accept[client_index] AS accept,
  ${noneSql('$client_encoding[client_index]')} AS accept_encoding,
  $client_http[client_index] AS http_protocol,
  $client_tls[client_index] AS tls_version,
  $client_cipher[client_index] AS tls_cipher,
  $client_keys[client_index] AS credentials,
  md5($client_ua[client_index]) AS ja3_hash,
  $place_country[place_index] AS country,
  $place_city[place_index] AS city,
  $place_continent[place_index] AS continent,
  $place_region[place_index] AS region,
  $place_region_code[place_index] AS region_code,
  $place_postal[place_index] AS postal_code,
  ${noneSql('$place_metro[place_index]')} AS metro_code,
  $place_lat[place_index] AS latitude,
  $place_lon[place_index] AS longitude,
  $place_tz[place_index] AS timezone,
  $place_colo[place_index] AS colo,
  $place_eu[place_index] AS is_eu_country,
  $place_asn[place_index] AS asn,
  $place_org[place_index] AS as_organization,
  $place_rtt[place_index] AS base_rtt,
  md5(visitor || 'client-finished') || md5(visitor || 'client-finished-2') AS tls_client_finished,
  md5(visitor || 'client-handshake') || md5(visitor || 'client-handshake-2') AS tls_client_handshake,
  md5(visitor || 'server-finished') || md5(visitor || 'server-finished-2') AS tls_server_finished,
  md5(visitor || 'server-handshake') || md5(visitor || 'server-handshake-2') AS tls_server_handshake
FROM chosen`;

export const VISITOR_PARAMS: Record<string, ParamValue> = {
  first_names: pools.FIRST_NAMES,
  last_names: pools.LAST_NAMES,
  email_domains: pools.EMAIL_DOMAINS,
  ...weighted('client', pools.CLIENTS),
  ...weighted('place', pools.PLACES),
};

export const COMMON_PARAMS: Record<string, ParamValue> = { projects: pools.DEMO_PROJECTS };

/**
 * Time: every event lies in [now - 7 days, now]. The first rows of each source (`$tail`) are
 * spread evenly over the last `$tail_span` microseconds (an hour, or a live batch's interval) and
 * cycle through the projects, so a minutely chart of any project has data in every minute; the
 * rest is uniform over the rest of the week, in time order with the row number.
 *
 * Columns every source can use: `i` (row number), independent hashes h0..h3, `ts`, `project`
 * (and `project_index`, 0 for the main project), `id`, the visitor's columns (see
 * VISITOR_TABLE_SQL) and a few per-row values for message templates (n, hex, port). Each CTE
 * level computes what the next one reuses, once per row.
 */
export const COMMON_CTES = `
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
      WHEN i < $tail THEN (i * $tail_span + (h_time % $tail_span)::BIGINT) // $tail
      ELSE 604800000000 - ((i - $tail) * 601200000000) // ($count - $tail)
        - (h_time % greatest(1, 601200000000 // ($count - $tail)))::BIGINT
    END) AS ts,
    CASE
      WHEN i < $tail THEN [0, 0, 0, 1, 2, 3][1 + (i + $rotation) % 6]
      WHEN h_project % 20 < 11 THEN 0
      ELSE 1 + (h_project >> 8) % 3
    END::INTEGER AS project_index,
    (h3 >> 20) % ${VISITORS} AS visitor
  FROM hashed
), common AS (
  SELECT placed.*, v.* EXCLUDE (visitor),
    $projects[1 + project_index] AS project,
    ${uuidSql('h0', 'h1')} AS id,
    ((h2 >> 4) % 10000)::VARCHAR AS n,
    printf('%016x', h3) AS hex,
    (1024 + (h2 >> 20) % 60000)::VARCHAR AS port
  FROM placed JOIN ${VISITOR_TABLE} AS v USING (visitor)
)`;

/**
 * The database a row came from, for sources that record one (`identifier`): the project's
 * primary, or where `replicaShare` holds and the project has one, its read replica. Needs
 * REPLICA_PARAMS.
 */
export function identifierSql(replicaShare: string): string {
  return `CASE WHEN ${replicaShare} AND $replicas[1 + project_index] <> '' THEN $replicas[1 + project_index] ELSE project END`;
}

export const REPLICA_PARAMS: Record<string, ParamValue> = { replicas: pools.DEMO_READ_REPLICAS };

/** Function ids are stable per project and function, so both function sources agree on them. */
export const FUNCTION_CTE = `
, functions AS (
  SELECT *,
    (h2 >> 12) % len($functions) AS function_index,
    ${hashSql("project_index, (h2 >> 12) % len($functions), 'cannery-demo-function'")} AS function_bits
  FROM common
), deployed AS (
  SELECT *,
    $functions[1 + function_index] AS function_name,
    ${uuidSql('function_bits', hashSql('function_bits'))} AS function_id,
    ${uuidSql('h3', 'h2')} AS execution_id,
    (1 + function_bits % 9)::VARCHAR AS version,
    ${pickSql('$regions', '(h0 >> 24)')} AS runtime_region
  FROM functions
)`;

/** A function's deployment: its project, id and version. Reads the columns of FUNCTION_CTE. */
export const DEPLOYMENT_ID_SQL = "project || '_' || function_id || '_' || version";
