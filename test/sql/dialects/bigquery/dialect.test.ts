/**
 * The BigQuery dialect: the AST written back as BigQuery SQL, sources mapped to their tables,
 * the row cap applied, and the text meaning exactly what the AST says (where node-sql-parser's
 * own `sqlify` does not).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as YAML from '#yaml';
import { sourceNames } from '../../../../src/config/sources.js';
import { UnsupportedConstruct } from '../../../../src/sql/generator/unsupported.js';
import { duckDbDialect } from '../../../../src/sql/dialects/duckdb/dialect.js';
import { generate } from '../../../../src/sql/generator/generate.js';
import { bigQueryDialect } from '../../../../src/sql/dialects/bigquery/dialect.js';
import { defaultTableName, sourceTables } from '../../../../src/sql/dialects/bigquery/tables.js';
import { parseQuery } from '../../../../src/sql/parse/to-tree.js';

const SOURCES = sourceNames();
const dialect = bigQueryDialect(
  sourceTables(SOURCES, { project: 'proj', dataset: 'ds' }, { 'postgres.logs': { project: 'other-proj', dataset: 'pg', table: 'postgres logs' } }),
);

function compile(sql: string, rowCap = 1000) {
  return generate(parseQuery(sql), dialect, { rowCap });
}

function shippedQuery(file: string): string {
  return (YAML.parse(readFileSync(new URL(`../../../../endpoints/${file}`, import.meta.url), 'utf8')) as { query: string }).query;
}

describe('source mapping', () => {
  it('names each source <project>.<dataset>.<name with every character outside [A-Za-z0-9_] as _>', () => {
    expect(SOURCES.map(defaultTableName)).toEqual([
      'cloudflare_logs_prod',
      'postgres_logs',
      'deno_relay_logs',
      'deno_subhosting_events',
      'gotrue_logs_prod',
      'realtime_logs_prod',
      'storage_logs_prod_2',
      'postgREST_logs_prod',
      'pgbouncer_logs_prod',
    ]);
    expect(compile('select id from `cloudflare.logs.prod` as t').sql).toBe('SELECT `id` FROM `proj.ds.cloudflare_logs_prod` AS `t` LIMIT 1000');
  });

  it('uses a per-source override', () => {
    expect(compile('select id from `postgres.logs` as t').sql).toBe('SELECT `id` FROM `other-proj.pg.postgres logs` AS `t` LIMIT 1000');
  });

  it('keeps the alias BigQuery gives an unaliased table (its last name part), so `prod.id` still resolves', () => {
    expect(compile('select prod.id from `cloudflare.logs.prod`').sql).toBe('SELECT `prod`.`id` FROM `proj.ds.cloudflare_logs_prod` AS `prod` LIMIT 1000');
  });

  it('maps sources inside CTEs, subqueries and joins, and leaves CTE references alone', () => {
    const { sql } = compile(`
      with a as (select id from \`gotrue.logs.prod\` as g),
           b as (select id from (select id from \`storage.logs.prod.2\` as s) as sub)
      select a.id from a join b on a.id = b.id left join \`pgbouncer.logs.prod\` as p on p.id = a.id`);
    expect(sql).toContain('FROM `proj.ds.gotrue_logs_prod` AS `g`');
    expect(sql).toContain('FROM `proj.ds.storage_logs_prod_2` AS `s`');
    expect(sql).toContain('LEFT JOIN `proj.ds.pgbouncer_logs_prod` AS `p` ON');
    expect(sql).toContain('FROM `a` JOIN `b` ON');
  });

  it('refuses any table that is neither a source nor a CTE in scope', () => {
    expect(() => compile('select * from `other-project.secrets.keys`')).toThrow(UnsupportedConstruct);
    expect(() => compile('select * from INFORMATION_SCHEMA.JOBS')).toThrow(/neither a known source nor a CTE/);
    // A CTE is visible in its own query, not in a sibling subquery's WITH.
    expect(() => compile('select * from (with x as (select 1 as a) select a from x) as s, x')).toThrow(/`x`/);
  });
});

describe('the shipped endpoints', () => {
  it('logs.all: every source mapped, @params kept, the final LIMIT 100 kept under max_rows', () => {
    const { sql, parameters } = compile(shippedQuery('logs.all.yaml'), 1000);
    expect(parameters).toEqual(['project', 'iso_timestamp_start', 'iso_timestamp_end']);
    for (const source of SOURCES.filter((name) => name !== 'postgres.logs')) {
      expect(sql).toContain(`FROM \`proj.ds.${defaultTableName(source)}\` AS \`t\``);
    }
    expect(sql).toContain('CROSS JOIN UNNEST(`t`.`metadata`) AS `m` WHERE (((`m`.`project_ref` = @project) AND ((@iso_timestamp_start IS NULL) OR (`t`.`timestamp` > CAST(@iso_timestamp_start AS TIMESTAMP))))');
    expect(sql.endsWith(' SELECT `id`, `timestamp`, `event_message`, `metadata` FROM `edge_logs` ORDER BY `timestamp` DESC LIMIT 100')).toBe(true);
    expect(sql).not.toMatch(/cloudflare\.logs\.prod|__cannery/);
  });

  it('usage.api-counts: CASE, INTERVAL, date parts, CURRENT_TIMESTAMP native, LIKE, the row cap', () => {
    const { sql, parameters } = compile(shippedQuery('usage.api-counts.yaml'), 1000);
    expect(parameters).toEqual(['project', 'interval']);
    expect(sql).toBe(
      'WITH requests AS (SELECT `t`.`timestamp`, `r`.`path` FROM `proj.ds.cloudflare_logs_prod` AS `t` ' +
        'CROSS JOIN UNNEST(`t`.`metadata`) AS `m` CROSS JOIN UNNEST(`m`.`request`) AS `r` ' +
        'WHERE (REGEXP_CONTAINS(`r`.`url`, @project) AND (`t`.`timestamp` >= (CASE @interval ' +
        "WHEN 'minutely' THEN TIMESTAMP_SUB(CURRENT_TIMESTAMP(), INTERVAL 60 MINUTE) " +
        "WHEN 'hourly' THEN TIMESTAMP_SUB(CURRENT_TIMESTAMP(), INTERVAL 1 HOUR) " +
        "WHEN 'daily' THEN TIMESTAMP_SUB(CURRENT_TIMESTAMP(), INTERVAL 7 DAY) END)))), " +
        'bucketed AS (SELECT (CASE @interval ' +
        "WHEN 'minutely' THEN TIMESTAMP_TRUNC(`timestamp`, MINUTE) " +
        "WHEN 'hourly' THEN TIMESTAMP_TRUNC(`timestamp`, HOUR) " +
        "WHEN 'daily' THEN TIMESTAMP_TRUNC(`timestamp`, DAY) END) AS `bucket`, `path` FROM `requests`) " +
        "SELECT DATETIME(`bucket`, 'UTC') AS `timestamp`, " +
        "COALESCE(COUNTIF((`path` LIKE '%/rest%')), 0) AS `total_rest_requests`, " +
        "COALESCE(COUNTIF((`path` LIKE '%/storage%')), 0) AS `total_storage_requests`, " +
        "COALESCE(COUNTIF((`path` LIKE '%/auth%')), 0) AS `total_auth_requests`, " +
        "COALESCE(COUNTIF((`path` LIKE '%/realtime%')), 0) AS `total_realtime_requests` " +
        'FROM `bucketed` GROUP BY `bucket` ORDER BY `bucket` ASC LIMIT 1000',
    );
  });

  it('emits SQL that reads back to the same SQL (a fixpoint), so nothing is lost on the way', () => {
    const paths = new Map(SOURCES.map((source) => [source, { project: 'p', dataset: 'd', table: defaultTableName(source) }]));
    // The second pass reads the mapped names, so they map to themselves.
    const both = bigQueryDialect(new Map([...paths, ...[...paths.values()].map((path) => [`p.d.${path.table}`, path] as const)]));
    for (const file of ['logs.all.yaml', 'usage.api-counts.yaml']) {
      const once = generate(parseQuery(shippedQuery(file)), both, { rowCap: 1000 }).sql;
      expect(generate(parseQuery(once), both, { rowCap: 1000 }).sql).toBe(once);
    }
  });
});

describe('written back faithfully (where sqlify is not)', () => {
  it.each([
    ['a reserved word as a qualified column', 'select t.`from` from `postgres.logs` as t', 'SELECT `t`.`from` FROM'],
    ['a quoted name with a space', 'select `my col`.x from `postgres.logs` as t', 'SELECT `my col`.`x` FROM'],
    ['a double-quoted string holding a single quote', `select "x'y" as s from \`postgres.logs\` as t`, "SELECT 'x\\'y' AS `s` FROM"],
    ['a raw string holding a double quote', `select r'a"b\\d' as s from \`postgres.logs\` as t`, `SELECT 'a"b\\\\d' AS \`s\` FROM`],
    ['escapes, decoded and re-escaped', "select 'tab\\there\\nand \\\\ back' as s from `postgres.logs` as t", "SELECT 'tab\\there\\nand \\\\ back' AS `s` FROM"],
    ['a negative literal after a minus', 'select 1 - -1 as n from `postgres.logs` as t', 'SELECT (1 - (-1)) AS `n` FROM'],
    ['unary minus of a negative', 'select - -1 as n from `postgres.logs` as t', 'SELECT (- (-1)) AS `n` FROM'],
    ['a field after a subscript', 'select arr[offset(0)].x from `postgres.logs` as t', 'SELECT `arr`[OFFSET(0)].`x` FROM'],
    ['SELECT ALL is not DISTINCT', 'select all id from `postgres.logs` as t', 'SELECT `id` FROM'],
    ['* EXCEPT', 'select * except (metadata) from `postgres.logs` as t', 'SELECT * EXCEPT (`metadata`) FROM'],
    ['IN UNNEST(@param)', 'select id from `postgres.logs` as t where id in unnest(@ids)', 'WHERE (`id` IN UNNEST(@ids))'],
    ['EXISTS', 'select exists(select 1 from `postgres.logs` as t) as e', 'SELECT EXISTS (SELECT 1 FROM'],
    ['a window', 'select row_number() over (partition by project order by timestamp desc) as n from `postgres.logs` as t', 'ROW_NUMBER() OVER (PARTITION BY `project` ORDER BY `timestamp` DESC)'],
    ['SAFE_CAST and a type alias', 'select safe_cast(id as integer) as n from `postgres.logs` as t', 'SAFE_CAST(`id` AS INT64)'],
    ['EXTRACT from a TIMESTAMP literal', "select extract(hour from timestamp '2024-05-01 10:00:00+00') as h", "EXTRACT(HOUR FROM CAST('2024-05-01 10:00:00+00' AS TIMESTAMP))"],
    ['a timestamp literal', "select timestamp '2024-05-01 10:00:00+00' as ts", "SELECT TIMESTAMP '2024-05-01 10:00:00+00' AS `ts`"],
  ])('%s', (_what, sql, expected) => {
    expect(compile(sql).sql).toContain(expected);
  });

  it('never writes a caller value: parameters stay @names', () => {
    const { sql, parameters } = compile('select id from `postgres.logs` as t where t.project = @project and @start is null');
    expect(sql).toContain('(`t`.`project` = @project)');
    expect(parameters).toEqual(['project', 'start']);
  });

  it('binds no execution-time parameter: CURRENT_TIMESTAMP is BigQuery\'s own', () => {
    const { sql, parameters } = compile('select current_timestamp() as now, current_timestamp as also');
    expect(sql).toBe('SELECT CURRENT_TIMESTAMP() AS `now`, CURRENT_TIMESTAMP() AS `also` LIMIT 1000');
    expect(parameters).toEqual([]);
  });
});

describe('row cap', () => {
  it('caps the outermost query, keeps a smaller LIMIT and an OFFSET, leaves inner LIMITs alone', () => {
    expect(compile('select id from `postgres.logs` as t', 50).sql).toMatch(/ LIMIT 50$/);
    expect(compile('select id from `postgres.logs` as t limit 5000', 50).sql).toMatch(/ LIMIT 50$/);
    expect(compile('select id from `postgres.logs` as t limit 7 offset 3', 50).sql).toMatch(/ LIMIT 7 OFFSET 3$/);
    expect(compile('select id from (select id from `postgres.logs` as t limit 500) as s', 50).sql).toMatch(/LIMIT 500\) AS `s` LIMIT 50$/);
  });

  it('applies to a whole set operation', () => {
    expect(compile('select id from `postgres.logs` as a union all select id from `gotrue.logs.prod` as b order by 1', 10).sql).toMatch(
      / UNION ALL SELECT `id` FROM `proj\.ds\.gotrue_logs_prod` AS `b` ORDER BY 1 LIMIT 10$/,
    );
  });
});

describe('one language on both backends', () => {
  const duckdb = duckDbDialect(SOURCES);
  it.each([
    ['a function outside the allowlist', 'select session_user() as u'],
    ['SAFE. before an aggregate function', 'select safe.count(id) as n from `postgres.logs` as t'],
    ['an unsupported date part', 'select timestamp_diff(timestamp, timestamp, week) as w from `postgres.logs` as t'],
    ['a function whose values DuckDB cannot give', 'select net.reg_domain(id) as f from `postgres.logs` as t'],
    ['LIMIT with a parameter', 'select id from `postgres.logs` as t limit @n'],
    ['a cast to an unsupported type', 'select cast(id as geography) as b from `postgres.logs` as t'],
    ['* EXCEPT of a qualified name (BigQuery takes column names only)', 'select * except (t.id) from `postgres.logs` as t'],
  ])('refuses %s on both', (_what, sql) => {
    const statement = parseQuery(sql);
    expect(() => generate(statement, dialect, { rowCap: 10 })).toThrow(UnsupportedConstruct);
    expect(() => generate(statement, duckdb, { rowCap: 10 })).toThrow(UnsupportedConstruct);
  });

  it('passes BigQuery-native forms through: WITH OFFSET, an UNNEST without alias, * REPLACE', () => {
    expect(compile('select o from `postgres.logs` as t cross join unnest(t.metadata) as m with offset as o').sql).toContain(
      'CROSS JOIN UNNEST(`t`.`metadata`) AS `m` WITH OFFSET AS `o`',
    );
    expect(compile('select level from `postgres.logs` as t, unnest(t.metadata)').sql).toContain('AS `t`, UNNEST(`t`.`metadata`) LIMIT');
    expect(compile('select * replace (upper(id) as id) from `postgres.logs` as t').sql).toContain('SELECT * REPLACE (UPPER(`id`) AS `id`) FROM');
  });

  it('accepts what the README lists as supported', () => {
    const sql = `
      with a as (select distinct t.id, t.timestamp as ts, m.level from \`postgres.logs\` as t
                 cross join unnest(t.metadata) as m left join unnest(m.parsed) as p on true
                 where t.id in ('a', 'b') and t.timestamp between timestamp '2024-01-01 00:00:00+00' and current_timestamp()
                   and p.query like 'select%' and not t.id is null and regexp_contains(t.event_message, r'\\d+')),
           b as (select level, count(*) as n, countif(level = 'error') as e, string_agg(id, ',') as ids,
                        array_agg(id) as all_ids, min(ts) as first, max(ts) as last
                 from a group by level having count(*) > 1)
      select level, n, e, safe_divide(e, n) as share, round(e / n, 2) as r, coalesce(ifnull(nullif(level, ''), 'x'), 'y') as l,
             if(n > 1, 'many', 'one') as size, case when n > 10 then 'big' else 'small' end as c, unix_micros(last) as us,
             format_timestamp('%F %T', last, 'UTC') as f, timestamp_add(first, interval 1 day) as next_day, extract(dayofweek from first) as dow,
             date(first) as d, datetime_trunc(datetime(first, 'UTC'), hour) as h, array_length(all_ids) as k, all_ids[offset(0)] as first_id,
             lag(n) over (order by level) as prev, concat(level, '-', upper(lower(level))) as lv, split(ids, ',')[ordinal(1)] as one
      from b where exists (select 1 from a where a.level = b.level) and level not in (select level from a where level = 'x')
      union distinct select 'z', 0, 0, 0, 0, 'z', 'z', 'z', 0, 'z', null, 0, null, null, 0, 'z', 0, 'z', 'z'
      order by n desc limit 5 offset 1`;
    const statement = parseQuery(sql);
    expect(() => generate(statement, duckdb, { rowCap: 10 })).not.toThrow();
    expect(generate(statement, dialect, { rowCap: 10 }).sql).toMatch(/ ORDER BY `n` DESC LIMIT 5 OFFSET 1$/);
  });
});

describe('NOT EXISTS', () => {
  it('is written back, as the DuckDB translator accepts it', () => {
    expect(compile('select 1 as one from `cloudflare.logs.prod` t where not exists (select 1 from unnest(t.metadata) as m)').sql).toContain(
      '(NOT EXISTS (SELECT',
    );
  });
});
