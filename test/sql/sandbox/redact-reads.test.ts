/**
 * Redaction where a sandbox query reads (src/sql/sandbox/redact-reads.ts), on the shipped logs.all:
 * which values are redacted where they are read, which pass through to the output redactor, what
 * is refused, and how taint follows the caller's CTEs, subqueries, UNNESTs and set operations.
 * The texts are BigQuery's (the rewrite runs before any dialect's), with the redaction of x
 * written `R(x)`; test/http/redaction-sandbox.property.test.ts runs such queries on DuckDB.
 */
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import * as YAML from '#yaml';
import { sourceNames } from '../../../src/config/sources.js';
import { sourceShapes } from '../../../src/engine/serve/catalog.js';
import type { CompiledEndpoint } from '../../../src/engine/compiled-endpoint.js';
import { loadRegistry } from '../../../src/engine/serve/registry.js';
import { compileSandboxQuery } from '../../../src/engine/serve/sandbox-compile.js';
import { bigQueryDialect } from '../../../src/sql/dialects/bigquery/dialect.js';
import { sourceTables } from '../../../src/sql/dialects/bigquery/tables.js';
import { generate } from '../../../src/sql/generator/generate.js';
import { redactedExpr, REDACTION_RULES } from '../../../src/sql/sandbox/redaction-rules.js';
import type { Expr, Query } from '../../../src/sql/parse/tree.js';
import { parseQuery } from '../../../src/sql/parse/to-tree.js';
import { endpointRelations } from '../../../src/sql/sandbox/redact-reads.js';
import { endpointCtesRead, endpointCtesText } from '../../support/sandbox-ctes.js';
import { SHIPPED_ENDPOINTS } from '../../support/service.js';

const bigquery = bigQueryDialect(sourceTables(sourceNames(), { project: 'p', dataset: 'd' }));
let logsAll: CompiledEndpoint;

beforeAll(async () => {
  const registry = await loadRegistry(SHIPPED_ENDPOINTS, { dialect: bigquery, sources: sourceNames() });
  logsAll = registry.find('logs.all')!;
});

/** The BigQuery text of `expr` as a SELECT item, from a query of that one item. */
function itemText(expr: Expr): string {
  const query: Query = { kind: 'query', with: [], body: { kind: 'select', distinct: false, items: [{ kind: 'item', expr, alias: 'x' }], from: [], groupBy: [], windows: [] }, orderBy: [] };
  return generate(query, bigquery).sql.slice('SELECT '.length, -' AS `x`'.length);
}

/** The text of the redaction of `inner` (BigQuery text): a column or field path guarded, anything else not. */
function redactionText(inner: string): string {
  const path = /^`[^`]+`(\.`[^`]+`)*$/.test(inner) ? inner.slice(1, -1).split('`.`') : undefined;
  if (path) return itemText(redactedExpr({ kind: 'column', name: path[0]!, fields: path.slice(1) }));
  return REDACTION_RULES.reduce((text, rule) => `REGEXP_REPLACE(${text}, ${bigquery.quoteString(rule.pattern)}, ${bigquery.quoteString(rule.replacement)})`, inner);
}

/** `expected` with each `R(x)` written out as the redaction of x, innermost first. */
function expand(expected: string): string {
  const start = expected.search(/(?<![A-Za-z_])R\(/);
  if (start < 0) return expected;
  let depth = 0;
  let end = start + 1;
  for (; end < expected.length; end += 1) {
    if (expected[end] === '(') depth += 1;
    if (expected[end] === ')' && --depth === 0) break;
  }
  const inner = expand(expected.slice(start + 2, end));
  return expected.slice(0, start) + redactionText(inner) + expand(expected.slice(end + 1));
}

/** The caller's part of the BigQuery text with redaction on. */
function compiled(sql: string): string {
  const text = compileSandboxQuery(logsAll, sql, bigquery, { redact: true }).sql;
  const ctes = endpointCtesText(logsAll, endpointCtesRead(logsAll, sql), bigquery, { redact: true });
  expect(text.startsWith(ctes)).toBe(true);
  return text.slice(ctes.length).trim().replace(/ LIMIT 1000$/, '');
}

/** Expects the text with redaction on; `R(x)` in `expected` stands for the redaction of x. */
function expectText(sql: string, expected: string): void {
  expect(compiled(sql)).toBe(expand(expected));
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
    ["select replace(event_message, '.', ' . ') as m from edge_logs", "SELECT REPLACE(R(`event_message`), '.', ' . ') AS `m` FROM `edge_logs__1` AS `edge_logs`"],
    ["select count(*) as n from edge_logs where event_message like '%10.0.0.1%'", "SELECT COUNT(*) AS `n` FROM `edge_logs__1` AS `edge_logs` WHERE (R(`event_message`) LIKE '%10.0.0.1%')"],
    [
      "select split(h.x_real_ip, '.') as parts from edge_logs cross join unnest(metadata) as m cross join unnest(m.request) as r cross join unnest(r.headers) as h",
      "SELECT SPLIT(R(`h`.`x_real_ip`), '.') AS `parts` FROM `edge_logs__1` AS `edge_logs` CROSS JOIN UNNEST(`metadata`) AS `m` CROSS JOIN UNNEST(`m`.`request`) AS `r` CROSS JOIN UNNEST(`r`.`headers`) AS `h`",
    ],
    // An unqualified field of an UNNESTed record, as BigQuery resolves it.
    [
      "select substr(path, 2, 4) as p from edge_logs cross join unnest(metadata) as m cross join unnest(m.request)",
      'SELECT SUBSTR(R(`path`), 2, 4) AS `p` FROM `edge_logs__1` AS `edge_logs` CROSS JOIN UNNEST(`metadata`) AS `m` CROSS JOIN UNNEST(`m`.`request`)',
    ],
    ['select id from edge_logs order by event_message', 'SELECT `id` FROM `edge_logs__1` AS `edge_logs` ORDER BY R(`event_message`)'],
    ['select a.id from edge_logs as a join postgres_logs as b on a.event_message = b.event_message', 'SELECT `a`.`id` FROM `edge_logs__1` AS `a` JOIN `postgres_logs__1` AS `b` ON (R(`a`.`event_message`) = R(`b`.`event_message`))'],
    ['select id, row_number() over (partition by event_message order by timestamp) as n from edge_logs', 'SELECT `id`, ROW_NUMBER() OVER (PARTITION BY R(`event_message`) ORDER BY `timestamp`) AS `n` FROM `edge_logs__1` AS `edge_logs`'],
    ['select count(distinct event_message) as n from edge_logs', 'SELECT COUNT(DISTINCT R(`event_message`)) AS `n` FROM `edge_logs__1` AS `edge_logs`'],
    // A HAVING MAX | MIN key is compared.
    ['select count(id having max event_message) as n from edge_logs', 'SELECT COUNT(R(`id`) HAVING MAX R(`event_message`)) AS `n` FROM `edge_logs__1` AS `edge_logs`'],
    ['select count(*) as n from edge_logs group by rollup(event_message, id)', 'SELECT COUNT(*) AS `n` FROM `edge_logs__1` AS `edge_logs` GROUP BY ROLLUP(R(`event_message`), R(`id`))'],
    ['select id from edge_logs intersect all select id from postgres_logs', 'SELECT R(`id`) AS `id` FROM `edge_logs__1` AS `edge_logs` INTERSECT ALL SELECT R(`id`) AS `id` FROM `postgres_logs__1` AS `postgres_logs`'],
  ])('%s', (sql, expected) => {
    expectText(sql, expected);
  });

  it('a grouped or DISTINCT item is read, and keeps its name', () => {
    expectText('select event_message, count(*) as n from edge_logs group by event_message', 
      'SELECT R(`event_message`) AS `event_message`, COUNT(*) AS `n` FROM `edge_logs__1` AS `edge_logs` GROUP BY `event_message`',
    );
    expectText('select distinct event_message from edge_logs', 'SELECT DISTINCT R(`event_message`) AS `event_message` FROM `edge_logs__1` AS `edge_logs`');
  });

  it('the rows a DISTINCT set operation or IN (subquery) compares are read', () => {
    expectText('select event_message from edge_logs union distinct select event_message from postgres_logs', 
      'SELECT R(`event_message`) AS `event_message` FROM `edge_logs__1` AS `edge_logs` UNION DISTINCT SELECT R(`event_message`) AS `event_message` FROM `postgres_logs__1` AS `postgres_logs`',
    );
    expectText('select id from edge_logs where event_message in (select event_message from postgres_logs)', 
      'SELECT `id` FROM `edge_logs__1` AS `edge_logs` WHERE (R(`event_message`) IN (SELECT R(`event_message`) AS `event_message` FROM `postgres_logs__1` AS `postgres_logs`))',
    );
  });
});

describe('what no expression reads is left to the output redactor', () => {
  it.each([
    ['select event_message, metadata from edge_logs order by timestamp desc limit 5', 'SELECT `event_message`, `metadata` FROM `edge_logs__1` AS `edge_logs` ORDER BY `timestamp` DESC LIMIT 5'],
    ['select * from edge_logs', 'SELECT * FROM `edge_logs__1` AS `edge_logs`'],
    ['select id from edge_logs where timestamp > timestamp_sub(current_timestamp(), interval 1 hour)', 'SELECT `id` FROM `edge_logs__1` AS `edge_logs` WHERE (`timestamp` > TIMESTAMP_SUB(CURRENT_TIMESTAMP(), INTERVAL 1 HOUR))'],
    ['select count(*) as n from edge_logs where event_message is not null', 'SELECT COUNT(*) AS `n` FROM `edge_logs__1` AS `edge_logs` WHERE (`event_message` IS NOT NULL)'],
    ['select array_length(metadata) as n from edge_logs', 'SELECT ARRAY_LENGTH(`metadata`) AS `n` FROM `edge_logs__1` AS `edge_logs`'],
    ['select array(select as struct timestamp as t, 1 as n from edge_logs limit 2) as a', 'SELECT ARRAY(SELECT AS STRUCT `timestamp` AS `t`, 1 AS `n` FROM `edge_logs__1` AS `edge_logs` LIMIT 2) AS `a`'],
    [
      'select r.status_code from edge_logs cross join unnest(metadata) as m cross join unnest(m.response) as r where r.status_code >= 500',
      'SELECT `r`.`status_code` FROM `edge_logs__1` AS `edge_logs` CROSS JOIN UNNEST(`metadata`) AS `m` CROSS JOIN UNNEST(`m`.`response`) AS `r` WHERE (`r`.`status_code` >= 500)',
    ],
  ])('%s', (sql, expected) => {
    expectText(sql, expected);
  });
});

describe('taint follows the value', () => {
  it('through the caller\'s CTE and a subquery, with or without an alias', () => {
    expectText("with x as (select event_message as msg from edge_logs) select upper(msg) as u from x", 
      ', x__1 AS (SELECT `event_message` AS `msg` FROM `edge_logs__1` AS `edge_logs`) SELECT UPPER(R(`msg`)) AS `u` FROM `x__1` AS `x`',
    );
    expectText("select lower(event_message) as v from (select * from edge_logs)", 'SELECT LOWER(R(`event_message`)) AS `v` FROM (SELECT * FROM `edge_logs__1` AS `edge_logs`)');
    expectText("select lower(s.e) as v from (select event_message as e from edge_logs) as s", 
      'SELECT LOWER(R(`s`.`e`)) AS `v` FROM (SELECT `event_message` AS `e` FROM `edge_logs__1` AS `edge_logs`) AS `s`',
    );
  });

  it('through UNION ALL, a scalar subquery, COALESCE and CASE', () => {
    expect(compiled("select lower(m) as l from (select event_message as m from edge_logs union all select 'x' from edge_logs)")).toContain(expand('LOWER(R(`m`))'));
    expectText("select lower((select max(event_message) from edge_logs)) as l", 'SELECT LOWER((SELECT MAX(R(`event_message`)) FROM `edge_logs__1` AS `edge_logs`)) AS `l`');
    expectText("select lower((select event_message from edge_logs limit 1)) as l", 'SELECT LOWER(R((SELECT `event_message` FROM `edge_logs__1` AS `edge_logs` LIMIT 1))) AS `l`');
    expectText("select length(coalesce(event_message, '')) as n from edge_logs", "SELECT LENGTH(R(COALESCE(`event_message`, ''))) AS `n` FROM `edge_logs__1` AS `edge_logs`");
    expectText("select length(case when id = 'a' then event_message else 'b' end) as n from edge_logs",
      "SELECT LENGTH(R((CASE WHEN (R(`id`) = 'a') THEN `event_message` ELSE 'b' END))) AS `n` FROM `edge_logs__1` AS `edge_logs`",
    );
  });

  it('into an UNNEST made of a read value', () => {
    expectText("select x from edge_logs, unnest(split(event_message, '.')) as x", "SELECT `x` FROM `edge_logs__1` AS `edge_logs`, UNNEST(SPLIT(R(`event_message`), '.')) AS `x`");
  });

  it('a record the schema does not list a field of is read as a string (a grown BigQuery table fails closed)', () => {
    expectText('select upper(m.not_in_the_schema) as u from function_logs cross join unnest(metadata) as m', 
      'SELECT UPPER(R(`m`.`not_in_the_schema`)) AS `u` FROM `function_logs__1` AS `function_logs` CROSS JOIN UNNEST(`metadata`) AS `m`',
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
    // A SELECT AS STRUCT row holds each item, an unredacted string among them.
    ['select to_json_string((select as struct 1 as n, event_message from edge_logs limit 1)) as j', /cannot be read whole/],
  ])('%s', (sql, message) => {
    const text = refusal(sql);
    expect(text).toMatch(/^with PII redaction on, /);
    expect(text).toMatch(message);
  });
});

describe('what the endpoint CTEs hold, traced to the sources', () => {
  function relations(file: string) {
    const query = parseQuery((YAML.parse(readFileSync(`${SHIPPED_ENDPOINTS}${file}`, 'utf8')) as { query: string }).query);
    return Object.fromEntries([...endpointRelations(query, sourceShapes())].map(([name, columns]) => [name, Object.fromEntries(columns.map((column) => [column.name, column.taint.kind]))]));
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

describe('alias.* of an UNNESTed record', () => {
  it('gives its fields, read redacted by a later query', () => {
    expectText(
      'select upper(path) as p from (select r.* from edge_logs cross join unnest(metadata) as m cross join unnest(m.request) as r)',
      'SELECT UPPER(R(`path`)) AS `p` FROM (SELECT `r`.* FROM `edge_logs__1` AS `edge_logs` CROSS JOIN UNNEST(`metadata`) AS `m` CROSS JOIN UNNEST(`m`.`request`) AS `r`)',
    );
  });
});
