/**
 * Redaction where a sandbox query reads (src/sql/rewrites/redact-reads.ts), on the shipped logs.all:
 * which values are redacted where they are read, which pass through to the output redactor, what
 * is refused, and how taint follows the caller's CTEs, subqueries, UNNESTs and set operations.
 * The texts are BigQuery's (the rewrite runs before any dialect's), with the redaction written
 * `R(x)`; test/http/redaction-sandbox.test.ts runs such queries on DuckDB.
 */
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { BUILT_IN_SOURCES, sourceNames } from '../../../src/config/sources.js';
import type { CompiledEndpoint } from '../../../src/engine/compiled-endpoint.js';
import { loadRegistry } from '../../../src/engine/registry.js';
import { compileSandboxQuery } from '../../../src/engine/sandbox.js';
import { bigQueryDialect } from '../../../src/sql/dialects/bigquery.js';
import { sourceTables } from '../../../src/sql/dialects/bigquery-tables.js';
import { REDACTION_RULES } from '../../../src/sql/redaction-rules.js';
import { parseQuery } from '../../../src/sql/read.js';
import { endpointRelations } from '../../../src/sql/rewrites/redact-reads.js';
import { SHIPPED_ENDPOINTS } from '../../support/service.js';

const bigquery = bigQueryDialect(sourceTables(sourceNames(), { project: 'p', dataset: 'd' }));
let logsAll: CompiledEndpoint;
let ctes: string;

beforeAll(async () => {
  const registry = await loadRegistry(SHIPPED_ENDPOINTS, { dialect: bigquery, sources: sourceNames() });
  logsAll = registry.find('logs.all')!;
  const probe = compileSandboxQuery(logsAll, 'select 1 as one', bigquery, { redact: true }).sql;
  ctes = probe.slice(0, probe.lastIndexOf(' SELECT 1 AS `one`'));
});

/** The caller's part of the BigQuery text with redaction on, each redaction written `R(...)`. */
function redacted(sql: string): string {
  let text = compileSandboxQuery(logsAll, sql, bigquery, { redact: true }).sql;
  expect(text.startsWith(ctes)).toBe(true);
  text = text.slice(ctes.length).trim();
  text = text.replaceAll('REGEXP_REPLACE('.repeat(REDACTION_RULES.length), 'R(');
  REDACTION_RULES.forEach((rule, index) => {
    const suffix = `, ${bigquery.quoteString(rule.pattern)}, ${bigquery.quoteString(rule.replacement)})`;
    text = text.replaceAll(suffix, index === REDACTION_RULES.length - 1 ? ')' : '');
  });
  expect(text).not.toContain('REGEXP_REPLACE');
  return text.replace(/ LIMIT 1000$/, '');
}

function refusal(sql: string): string {
  try {
    compileSandboxQuery(logsAll, sql, bigquery, { redact: true });
  } catch (error) {
    expect(error).toMatchObject({ code: 'sandbox_violation', param: 'sql' });
    return (error as Error).message;
  }
  throw new Error(`not refused: ${sql}`);
}

describe('a string is redacted where it is read', () => {
  it.each([
    ["select replace(event_message, '.', ' . ') as m from edge_logs", "SELECT REPLACE(R(`event_message`), '.', ' . ') AS `m` FROM `edge_logs`"],
    ["select count(*) as n from edge_logs where event_message like '%10.0.0.1%'", "SELECT COUNT(*) AS `n` FROM `edge_logs` WHERE (R(`event_message`) LIKE '%10.0.0.1%')"],
    [
      "select split(h.x_real_ip, '.') as parts from edge_logs cross join unnest(metadata) as m cross join unnest(m.request) as r cross join unnest(r.headers) as h",
      "SELECT SPLIT(R(`h`.`x_real_ip`), '.') AS `parts` FROM `edge_logs` CROSS JOIN UNNEST(`metadata`) AS `m` CROSS JOIN UNNEST(`m`.`request`) AS `r` CROSS JOIN UNNEST(`r`.`headers`) AS `h`",
    ],
    // An unqualified field of an UNNESTed record, as BigQuery resolves it.
    [
      "select substr(path, 2, 4) as p from edge_logs cross join unnest(metadata) as m cross join unnest(m.request)",
      'SELECT SUBSTR(R(`path`), 2, 4) AS `p` FROM `edge_logs` CROSS JOIN UNNEST(`metadata`) AS `m` CROSS JOIN UNNEST(`m`.`request`)',
    ],
    ['select id from edge_logs order by event_message', 'SELECT `id` FROM `edge_logs` ORDER BY R(`event_message`)'],
    ['select a.id from edge_logs as a join postgres_logs as b on a.event_message = b.event_message', 'SELECT `a`.`id` FROM `edge_logs` AS `a` JOIN `postgres_logs` AS `b` ON (R(`a`.`event_message`) = R(`b`.`event_message`))'],
    ['select id, row_number() over (partition by event_message order by timestamp) as n from edge_logs', 'SELECT `id`, ROW_NUMBER() OVER (PARTITION BY R(`event_message`) ORDER BY `timestamp`) AS `n` FROM `edge_logs`'],
    ['select count(distinct event_message) as n from edge_logs', 'SELECT COUNT(DISTINCT R(`event_message`)) AS `n` FROM `edge_logs`'],
  ])('%s', (sql, expected) => {
    expect(redacted(sql)).toBe(expected);
  });

  it('a grouped or DISTINCT item is read, and keeps its name', () => {
    expect(redacted('select event_message, count(*) as n from edge_logs group by event_message')).toBe(
      'SELECT R(`event_message`) AS `event_message`, COUNT(*) AS `n` FROM `edge_logs` GROUP BY `event_message`',
    );
    expect(redacted('select distinct event_message from edge_logs')).toBe('SELECT DISTINCT R(`event_message`) AS `event_message` FROM `edge_logs`');
  });

  it('the rows a DISTINCT set operation or IN (subquery) compares are read', () => {
    expect(redacted('select event_message from edge_logs union distinct select event_message from postgres_logs')).toBe(
      'SELECT R(`event_message`) AS `event_message` FROM `edge_logs` UNION DISTINCT SELECT R(`event_message`) AS `event_message` FROM `postgres_logs`',
    );
    expect(redacted('select id from edge_logs where event_message in (select event_message from postgres_logs)')).toBe(
      'SELECT `id` FROM `edge_logs` WHERE (R(`event_message`) IN (SELECT R(`event_message`) AS `event_message` FROM `postgres_logs`))',
    );
  });
});

describe('what no expression reads is left to the output redactor', () => {
  it.each([
    ['select event_message, metadata from edge_logs order by timestamp desc limit 5', 'SELECT `event_message`, `metadata` FROM `edge_logs` ORDER BY `timestamp` DESC LIMIT 5'],
    ['select * from edge_logs', 'SELECT * FROM `edge_logs`'],
    ['select id from edge_logs where timestamp > timestamp_sub(current_timestamp(), interval 1 hour)', 'SELECT `id` FROM `edge_logs` WHERE (`timestamp` > TIMESTAMP_SUB(CURRENT_TIMESTAMP(), INTERVAL 1 HOUR))'],
    ['select count(*) as n from edge_logs where event_message is not null', 'SELECT COUNT(*) AS `n` FROM `edge_logs` WHERE (`event_message` IS NOT NULL)'],
    ['select array_length(metadata) as n from edge_logs', 'SELECT ARRAY_LENGTH(`metadata`) AS `n` FROM `edge_logs`'],
    [
      'select r.status_code from edge_logs cross join unnest(metadata) as m cross join unnest(m.response) as r where r.status_code >= 500',
      'SELECT `r`.`status_code` FROM `edge_logs` CROSS JOIN UNNEST(`metadata`) AS `m` CROSS JOIN UNNEST(`m`.`response`) AS `r` WHERE (`r`.`status_code` >= 500)',
    ],
  ])('%s', (sql, expected) => {
    expect(redacted(sql)).toBe(expected);
  });
});

describe('taint follows the value', () => {
  it('through the caller\'s CTE and a subquery, with or without an alias', () => {
    expect(redacted("with x as (select event_message as msg from edge_logs) select upper(msg) as u from x")).toBe(
      ', x AS (SELECT `event_message` AS `msg` FROM `edge_logs`) SELECT UPPER(R(`msg`)) AS `u` FROM `x`',
    );
    expect(redacted("select lower(event_message) as v from (select * from edge_logs)")).toBe('SELECT LOWER(R(`event_message`)) AS `v` FROM (SELECT * FROM `edge_logs`)');
    expect(redacted("select lower(s.e) as v from (select event_message as e from edge_logs) as s")).toBe(
      'SELECT LOWER(R(`s`.`e`)) AS `v` FROM (SELECT `event_message` AS `e` FROM `edge_logs`) AS `s`',
    );
  });

  it('through UNION ALL, a scalar subquery, COALESCE and CASE', () => {
    expect(redacted("select lower(m) as l from (select event_message as m from edge_logs union all select 'x' from edge_logs)")).toContain('LOWER(R(`m`))');
    expect(redacted("select lower((select max(event_message) from edge_logs)) as l")).toBe('SELECT LOWER((SELECT MAX(R(`event_message`)) FROM `edge_logs`)) AS `l`');
    expect(redacted("select lower((select event_message from edge_logs limit 1)) as l")).toBe('SELECT LOWER(R((SELECT `event_message` FROM `edge_logs` LIMIT 1))) AS `l`');
    expect(redacted("select length(coalesce(event_message, '')) as n from edge_logs")).toBe("SELECT LENGTH(R(COALESCE(`event_message`, ''))) AS `n` FROM `edge_logs`");
    expect(redacted("select length(case when id = 'a' then event_message else 'b' end) as n from edge_logs")).toBe(
      "SELECT LENGTH(R((CASE WHEN (R(`id`) = 'a') THEN `event_message` ELSE 'b' END))) AS `n` FROM `edge_logs`",
    );
  });

  it('into an UNNEST made of a read value', () => {
    expect(redacted("select x from edge_logs, unnest(split(event_message, '.')) as x")).toBe("SELECT `x` FROM `edge_logs`, UNNEST(SPLIT(R(`event_message`), '.')) AS `x`");
  });

  it('a record the schema does not list a field of is read as a string (a grown BigQuery table fails closed)', () => {
    expect(redacted('select upper(m.not_in_the_schema) as u from function_logs cross join unnest(metadata) as m')).toBe(
      'SELECT UPPER(R(`m`.`not_in_the_schema`)) AS `u` FROM `function_logs` CROSS JOIN UNNEST(`metadata`) AS `m`',
    );
  });
});

describe('what cannot be redacted field by field is refused, saying what to write', () => {
  it.each([
    ['select to_json_string(metadata) as j from edge_logs', /metadata cannot be read whole by the function TO_JSON_STRING/],
    ["select concat('', to_json_string(m)) as j from edge_logs cross join unnest(metadata) as m", /m cannot be read whole by the function TO_JSON_STRING/],
    ['select id from edge_logs where metadata = metadata', /metadata cannot be read whole by an expression/],
    ['select to_json_string(t) as j from edge_logs as t', /t cannot be read whole/],
    ['select a.id from edge_logs as a join postgres_logs as b using (event_message)', /USING \(event_message\) would compare event_message unredacted/],
    ['select distinct * from edge_logs', /SELECT DISTINCT \*/],
    ['select upper(no_such_column) as u from edge_logs', /no_such_column cannot be traced/],
    ["select 'x' in unnest(array(select event_message from edge_logs)) as hit", /cannot be read whole/],
  ])('%s', (sql, message) => {
    const text = refusal(sql);
    expect(text).toMatch(/^with PII redaction on, /);
    expect(text).toMatch(message);
  });
});

describe('what the endpoint CTEs hold, traced to the sources', () => {
  function relations(file: string) {
    const query = parseQuery((YAML.parse(readFileSync(`${SHIPPED_ENDPOINTS}${file}`, 'utf8')) as { query: string }).query);
    return Object.fromEntries([...endpointRelations(query, BUILT_IN_SOURCES)].map(([name, columns]) => [name, Object.fromEntries(columns.map((column) => [column.name, column.taint.kind]))]));
  }

  it('logs.all: strings, a clean timestamp, and each source\'s metadata record', () => {
    const all = relations('logs.all.yaml');
    expect(Object.keys(all)).toHaveLength(9);
    expect(all.edge_logs).toEqual({ id: 'string', timestamp: 'clean', event_message: 'string', identifier: 'string', metadata: 'record' });
  });

  it('usage.api-counts: a computed timestamp is clean by its type, a passed-on field is a string', () => {
    expect(relations('usage.api-counts.yaml')).toEqual({ requests: { timestamp: 'clean', path: 'string' }, bucketed: { bucket: 'clean', path: 'string' } });
  });
});
