/**
 * Sealed generation (sql/generator/sealed.ts) on its own, with no sandbox checker in front: a
 * caller's query joined to an endpoint's CTE by hand, as composeSandboxQuery joins them. Whatever
 * the caller's names, the SQL either reads only CTEs (each under its generated name) or is not
 * written at all; a source table is written only inside the endpoint's CTE.
 */
import { describe, expect, it } from 'vitest';
import { bigQueryDialect } from '../../../src/sql/dialects/bigquery/dialect.js';
import { sourceTables } from '../../../src/sql/dialects/bigquery/tables.js';
import { duckDbDialect } from '../../../src/sql/dialects/duckdb/dialect.js';
import { generate } from '../../../src/sql/generator/generate.js';
import { UnsealedRead } from '../../../src/sql/generator/sealed.js';
import { InvalidQuery } from '../../../src/sql/parse/errors.js';
import type { Query } from '../../../src/sql/parse/tree.js';
import { parseQuery } from '../../../src/sql/parse/to-tree.js';

const SOURCES = ['cloudflare.logs.prod', 'gotrue.logs.prod'];
const duckdb = duckDbDialect(SOURCES);
const bigquery = bigQueryDialect(sourceTables(SOURCES, { project: 'p', dataset: 'd' }));

const ENDPOINT = parseQuery('with edge_logs as (select t.id from `cloudflare.logs.prod` as t where t.project = @project) select id from edge_logs').with;

/** The caller's query after the endpoint's CTE, marked as the endpoint's, as the sandbox joins them. */
function joined(sql: string): Query {
  const caller = parseQuery(sql);
  return { ...caller, with: [...ENDPOINT.map((cte) => ({ ...cte, endpoint: true as const })), ...caller.with] };
}

const sealed = (sql: string, dialect = duckdb) => generate(joined(sql), dialect, { rowCap: 100, sealed: true }).sql;

describe('sealed, a name that is no CTE in scope where it is read is not written', () => {
  it.each([
    ['a forward reference to a CTE named like a source', 'with a as (select id from `cloudflare.logs.prod`), `cloudflare.logs.prod` as (select 1 as x) select * from a'],
    ['a CTE reading itself, named like a source', "with `gotrue.logs.prod` as (select id from `gotrue.logs.prod` where id != 'x') select * from `gotrue.logs.prod`"],
    ["a CTE reading itself, named like DuckDB's catalog", 'with duckdb_databases as (select * from duckdb_databases) select * from duckdb_databases'],
    ['a source in a subquery', 'select id from edge_logs where id in (select id from `gotrue.logs.prod`)'],
    ["a source in a nested CTE named like the endpoint's", 'select * from (with edge_logs as (select id from `cloudflare.logs.prod`) select id from edge_logs)'],
    ['a qualified name', 'select * from main.edge_logs'],
  ])('%s', (_name, sql) => {
    for (const dialect of [duckdb, bigquery]) expect(() => sealed(sql, dialect)).toThrow(UnsealedRead);
  });

  it('names the table and what may be read', () => {
    expect(() => sealed('select * from sqlite_master')).toThrow('table `sqlite_master` is not a CTE in scope where it is read: a sandbox query reads only the endpoint\'s CTEs and its own');
  });

  it('a second CTE of one name in one WITH is refused, as BigQuery refuses it, rather than written under a second name', () => {
    for (const dialect of [duckdb, bigquery]) expect(() => sealed('with a as (select 1 as id), A as (select 2 as id) select * from a', dialect)).toThrow(InvalidQuery);
    expect(() => sealed('with edge_logs as (select id from `cloudflare.logs.prod`) select * from edge_logs')).toThrow('Duplicate alias edge_logs for WITH subquery');
  });
});

describe('sealed, what is written', () => {
  it('every CTE under a generated name, each read under it with the caller\'s name as the alias; the source only in the endpoint\'s CTE', () => {
    const sql = 'with `cloudflare.logs.prod` as (select id from edge_logs) select c.id from `cloudflare.logs.prod` as c, (with edge_logs as (select id from edge_logs) select id from edge_logs) as s';
    expect(sealed(sql)).toBe(
      'WITH "edge_logs__1" AS (SELECT "t"."id" FROM "cloudflare.logs.prod" AS "t" WHERE ("t"."project" = $project)), ' +
        '"cloudflare_logs_prod__1" AS (SELECT "id" FROM "edge_logs__1" AS "edge_logs") ' +
        'SELECT "c"."id" FROM "cloudflare_logs_prod__1" AS "c", (WITH "edge_logs__2" AS (SELECT "id" FROM "edge_logs__1" AS "edge_logs") SELECT "id" FROM "edge_logs__2" AS "edge_logs") AS "s" LIMIT 100',
    );
    expect(sealed(sql, bigquery)).toBe(
      'WITH edge_logs__1 AS (SELECT `t`.`id` FROM `p.d.cloudflare_logs_prod` AS `t` WHERE (`t`.`project` = @project)), ' +
        'cloudflare_logs_prod__1 AS (SELECT `id` FROM `edge_logs__1` AS `edge_logs`) ' +
        'SELECT `c`.`id` FROM `cloudflare_logs_prod__1` AS `c`, (WITH edge_logs__2 AS (SELECT `id` FROM `edge_logs__1` AS `edge_logs`) SELECT `id` FROM `edge_logs__2` AS `edge_logs`) AS `s` LIMIT 100',
    );
  });

  it('generated names stay apart whatever the caller calls its CTEs', () => {
    const text = sealed('with `a.b` as (select 1 as id), a_b as (select 2 as id), a_b__1 as (select 3 as id) select * from `a.b`, a_b, a_b__1');
    expect(text).toContain('WITH "edge_logs__1" AS');
    expect(text).toContain('"a_b__1" AS (SELECT 1 AS "id"), "a_b__2" AS (SELECT 2 AS "id"), "a_b__1__1" AS (SELECT 3 AS "id")');
    expect(text).toContain('FROM "a_b__1" AS "a.b", "a_b__2" AS "a_b", "a_b__1__1" AS "a_b__1"');
  });
});

describe('unsealed (an endpoint\'s own query), names resolve as BigQuery resolves them', () => {
  it('a CTE read before its definition is the table of that name', () => {
    const sql = 'with a as (select t.id from `cloudflare.logs.prod` as t), `cloudflare.logs.prod` as (select 1 as id) select id from a';
    expect(generate(parseQuery(sql), duckdb).sql).toBe('WITH "a" AS (SELECT "t"."id" FROM "cloudflare.logs.prod" AS "t"), "cloudflare.logs.prod" AS (SELECT 1 AS "id") SELECT "id" FROM "a"');
  });
});
