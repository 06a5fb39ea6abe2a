/**
 * BigQuery expressions, translated and run on a real in-memory DuckDB opened the way the
 * service opens it; the expected values are BigQuery's answers, in cannery's wire format
 * (TIMESTAMP -> Unix microseconds, DATETIME -> "YYYY-MM-DDTHH:MM:SS[.ffffff]").
 */
import type { DuckDBConnection, DuckDBInstance, DuckDBValue } from '#duckdb-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDuckDb } from '../../src/backends/duckdb/backend.js';
import { toWireValue } from '../../src/backends/duckdb/values.js';
import { writeBackRows } from '../../src/backends/duckdb/write-back.js';
import type { WireRow } from '../../src/core/types.js';
import { EXECUTION_TIME_PARAM } from '../../src/sql/language.js';
import { duckDbDialect } from '../../src/sql/dialects/duckdb/dialect.js';
import { generate } from '../../src/sql/generator/generate.js';
import { UnsupportedConstruct } from '../../src/sql/generator/unsupported.js';
import { withDerivedValues } from '../../src/sql/analyse/derived-parameters.js';
import { parseQuery } from '../../src/sql/parse/to-tree.js';
import { defineSqlMacros } from '../../src/backends/duckdb/sql-macros.js';

const NOW = new Date('2024-05-08T12:00:00Z');
const us = (iso: string) => Date.parse(iso) * 1000;

let instance: DuckDBInstance;
let connection: DuckDBConnection;
const dialect = duckDbDialect(['t']);

beforeAll(async () => {
  instance = await openDuckDb({ path: ':memory:' });
  connection = await instance.connect();
  await defineSqlMacros(connection);
  await connection.run('CREATE TABLE t (x BIGINT, s VARCHAR, ts TIMESTAMPTZ)');
  await connection.run(`INSERT INTO t VALUES
    (1, 'a', '2024-05-01 10:00:00+00'),
    (NULL, NULL, NULL),
    (3, 'c', '2024-05-02 23:30:00+00'),
    (2, 'b', '2024-05-05 00:15:00+00')`);
});
afterAll(() => {
  connection.closeSync();
  instance.closeSync();
});

/** Runs BigQuery SQL through parse -> translate -> DuckDB; rows in the wire format. */
async function bq(sql: string, values: Record<string, DuckDBValue> = {}): Promise<WireRow[]> {
  const statement = parseQuery(sql);
  const compiled = generate(statement, dialect, { rowCap: 1000 });
  // The caller's values, and those the engine works out from them (a pattern's literals).
  const all = withDerivedValues(compiled.derived, values);
  const bindings: Record<string, DuckDBValue> = {};
  for (const name of compiled.parameters) bindings[name] = name === EXECUTION_TIME_PARAM ? NOW.toISOString() : (all[name] ?? null);
  const reader = await connection.runAndReadAll(compiled.sql, bindings);
  return writeBackRows(reader.convertRowObjects(toWireValue) as WireRow[], compiled.writeBack);
}

async function one(sql: string, values: Record<string, DuckDBValue> = {}): Promise<WireRow> {
  const rows = await bq(sql, values);
  expect(rows).toHaveLength(1);
  return rows[0]!;
}

describe('string literals (BigQuery backslash escapes)', () => {
  it.each([
    ["'it\\'s'", "it's"],
    ['"say \\"hi\\""', 'say "hi"'],
    ['"it\'s"', "it's"],
    ["'a\\nb'", 'a\nb'],
    ["'tab\\there'", 'tab\there'],
    ["'back\\\\slash'", 'back\\slash'],
    ["'\\\\d+'", '\\d+'],
    ["r'\\d+'", '\\d+'],
    ["'\\x41\\u00e9'", 'Aé'],
  ])('%s', async (literal, expected) => {
    expect(await one(`select ${literal} as v`)).toEqual({ v: expected });
  });

  it('a quote in a literal cannot break out of it', async () => {
    expect(await one("select 'x\\' or 1=1 --' as v")).toEqual({ v: "x' or 1=1 --" });
  });
});

describe('time', () => {
  it('timestamp_trunc(..., day) truncates in UTC', async () => {
    expect(await one("select timestamp_trunc(timestamp '2024-05-01 01:30:00+02:00', day) as d")).toEqual({ d: us('2024-04-30T00:00:00Z') });
  });

  it('timestamp_trunc to minute, hour, month', async () => {
    expect(
      await one(`select
        timestamp_trunc(timestamp '2024-05-01 10:17:42.5+00', minute) as mi,
        timestamp_trunc(timestamp '2024-05-01 10:17:42.5+00', hour) as h,
        timestamp_trunc(timestamp '2024-05-01 01:30:00+02:00', month) as mo`),
    ).toEqual({ mi: us('2024-05-01T10:17:00Z'), h: us('2024-05-01T10:00:00Z'), mo: us('2024-04-01T00:00:00Z') });
  });

  it('timestamp_trunc(..., week) starts weeks on Sunday', async () => {
    // 2024-05-02 is a Thursday, 2024-05-05 a Sunday.
    const rows = await bq('select x, timestamp_trunc(ts, week) as w from `t` where x is not null order by x');
    expect(rows).toEqual([
      { x: 1, w: us('2024-04-28T00:00:00Z') },
      { x: 2, w: us('2024-05-05T00:00:00Z') },
      { x: 3, w: us('2024-04-28T00:00:00Z') },
    ]);
  });

  it("datetime(ts, 'UTC') is the civil time in UTC, a DATETIME", async () => {
    expect(await one("select datetime(timestamp '2024-05-01 13:45:12.345+02:00', 'UTC') as d")).toEqual({ d: '2024-05-01T11:45:12.345000' });
  });

  it('datetime(ts) defaults to UTC; another zone shifts the civil time', async () => {
    expect(
      await one("select datetime(timestamp '2024-05-01 01:45:12+00') as u, datetime(timestamp '2024-05-01 01:45:12+00', 'America/New_York') as ny"),
    ).toEqual({ u: '2024-05-01T01:45:12', ny: '2024-04-30T21:45:12' });
  });

  it('timestamp_sub(..., interval 7 day)', async () => {
    expect(await one("select timestamp_sub(timestamp '2024-05-08 00:00:00+00', interval 7 day) as w")).toEqual({ w: us('2024-05-01T00:00:00Z') });
  });

  it('current_timestamp() is the bound execution time', async () => {
    expect(await one('select current_timestamp() as n, timestamp_sub(current_timestamp(), interval 60 minute) as h')).toEqual({
      n: NOW.getTime() * 1000,
      h: NOW.getTime() * 1000 - 3_600_000_000,
    });
  });

  it('timestamp_add and the shipped usage window (timestamp >= now - 7 days)', async () => {
    const rows = await bq('select x from `t` where ts >= timestamp_sub(current_timestamp(), interval 7 day) order by x');
    expect(rows).toEqual([{ x: 2 }, { x: 3 }]);
    expect(await one("select timestamp_add(timestamp '2024-05-01 23:00:00+00', interval 2 hour) as t")).toEqual({ t: us('2024-05-02T01:00:00Z') });
  });

  it("cast('2024-05-01T12:00:00+02:00' as timestamp) honours the offset", async () => {
    expect(await one("select cast('2024-05-01T12:00:00+02:00' as timestamp) as t")).toEqual({ t: us('2024-05-01T10:00:00Z') });
  });

  it('cast of a zone-less string to timestamp reads it as UTC', async () => {
    expect(await one("select cast('2024-05-01 12:00:00' as timestamp) as t")).toEqual({ t: us('2024-05-01T12:00:00Z') });
  });

  it('a bound canonical timestamp casts to the same instant', async () => {
    expect(await one('select cast(@start as timestamp) as t', { start: '2024-05-01T10:00:00.123456Z' })).toEqual({ t: us('2024-05-01T10:00:00.123Z') + 456 });
  });

  it('date(timestamp) is the UTC date', async () => {
    expect(await one("select date(timestamp '2024-05-01 23:30:00-02:00') as d")).toEqual({ d: '2024-05-02' });
  });

  it('extract(dayofweek from a column) counts Sunday as 1', async () => {
    const rows = await bq('select x, extract(dayofweek from ts) as d from `t` where x is not null order by x');
    expect(rows).toEqual([{ x: 1, d: 4 }, { x: 2, d: 1 }, { x: 3, d: 5 }]);
  });

  // node-sql-parser keeps the literal's type beside it (extract.args.cast_type); the translation must cast to it.
  it('extract(hour from a TIMESTAMP literal)', async () => {
    expect(await one("select extract(hour from timestamp '2024-05-01 10:00:00+02:00') as h")).toEqual({ h: 8 });
  });

  // Without that cast the string would become a DATE ignoring its offset: a silently wrong answer.
  it('extract(date from a TIMESTAMP literal) is the UTC date', async () => {
    expect(await one("select extract(date from timestamp '2024-05-01 01:00:00+02:00') as d")).toEqual({ d: '2024-04-30' });
  });
});

describe('aggregates and conditionals', () => {
  it('countif counts rows where the condition is true (NULL is not true)', async () => {
    expect(await one('select countif(x > 1) as gt1, countif(x is null) as nulls, countif(s like "%") as any_s, count(*) as all_rows from `t`')).toEqual({
      gt1: 2,
      nulls: 1,
      any_s: 3,
      all_rows: 4,
    });
  });

  it('coalesce(countif(...), 0) is 0 over no rows', async () => {
    expect(await one('select coalesce(countif(x > 100), 0) as n from `t` where false')).toEqual({ n: 0 });
  });

  it('coalesce returns the first non-NULL argument', async () => {
    expect(await one("select coalesce(null, 'a') as a, coalesce(null, null, 3) as b, coalesce(cast(null as string), 'z') as c")).toEqual({ a: 'a', b: 3, c: 'z' });
    const rows = await bq('select coalesce(x, -1) as v from `t` order by v');
    expect(rows.map((row) => row.v)).toEqual([-1, 1, 2, 3]);
  });

  it('concat is NULL if any argument is NULL; safe_divide by zero is NULL; if; ifnull', async () => {
    expect(await one("select concat('a', null) as c, concat('a', 'b', 'c') as d, safe_divide(1, 0) as e, if(1 > 0, 'y', 'n') as f, ifnull(null, 5) as g")).toEqual({
      c: null,
      d: 'abc',
      e: null,
      f: 'y',
      g: 5,
    });
  });

  it('integer division with / is a FLOAT64', async () => {
    expect(await one('select 5 / 2 as d')).toEqual({ d: 2.5 });
  });
});

describe('regular expressions', () => {
  it('regexp_contains is unanchored', async () => {
    expect(
      await one("select regexp_contains('abcdef', 'cd') as mid, regexp_contains('abcdef', '^cd') as anchored, regexp_contains('abcdef', '^abc') as start, regexp_contains('abcdef', 'f$') as ending"),
    ).toEqual({ mid: true, anchored: false, start: true, ending: true });
  });

  it('regexp_contains with a bound RE2 pattern, as usage.api-counts uses it', async () => {
    const sql = "select regexp_contains('https://p1.example/rest/v1/x', @project) as m";
    expect(await one(sql, { project: 'p1' })).toEqual({ m: true });
    expect(await one(sql, { project: '(?i)P1\\.EXAMPLE' })).toEqual({ m: true });
    expect(await one(sql, { project: '^p1' })).toEqual({ m: false });
  });

  it('regexp_replace replaces every match', async () => {
    expect(await one("select regexp_replace('a-b-c', '-', '+') as r")).toEqual({ r: 'a+b+c' });
  });
});

describe('LIKE', () => {
  it('% and _ are wildcards; LIKE is case-sensitive', async () => {
    expect(await one("select '/rest/v1/x' like '%/rest%' as a, 'axb' like 'a_b' as b, 'a' like 'A' as c")).toEqual({ a: true, b: true, c: false });
  });

  // BigQuery LIKE treats a backslash as an escape (`\\_` matches a literal underscore); DuckDB has no
  // default escape character, so the translation adds ESCAPE for patterns that need it.
  it('a backslash escapes _ and % in a LIKE pattern', async () => {
    expect(await one("select 'a_b' like 'a\\\\_b' as lit, 'axb' like 'a\\\\_b' as wild, '50%' like '50\\\\%' as pct")).toEqual({
      lit: true,
      wild: false,
      pct: true,
    });
  });
});

describe('NULL ordering (BigQuery: NULLS FIRST ascending, NULLS LAST descending)', () => {
  it('ascending puts NULL first', async () => {
    expect((await bq('select x from `t` order by x')).map((row) => row.x)).toEqual([null, 1, 2, 3]);
    expect((await bq('select s from `t` order by s asc')).map((row) => row.s)).toEqual([null, 'a', 'b', 'c']);
  });

  it('descending puts NULL last', async () => {
    expect((await bq('select x from `t` order by x desc')).map((row) => row.x)).toEqual([3, 2, 1, null]);
    expect((await bq('select ts from `t` order by ts desc')).map((row) => row.ts)).toEqual([
      us('2024-05-05T00:15:00Z'),
      us('2024-05-02T23:30:00Z'),
      us('2024-05-01T10:00:00Z'),
      null,
    ]);
  });

  it('the same inside a window', async () => {
    const rows = await bq('select x, row_number() over (order by x) as n from `t` order by n');
    expect(rows.map((row) => row.x)).toEqual([null, 1, 2, 3]);
  });
});

describe('row cap', () => {
  it('the outermost query is capped; a smaller LIMIT is kept', () => {
    const statement = parseQuery('select x from `t` limit 3');
    expect(generate(statement, dialect, { rowCap: 2 }).sql).toMatch(/LIMIT 2$/);
    expect(generate(statement, dialect, { rowCap: 10 }).sql).toMatch(/LIMIT 3$/);
  });
});

describe('trailing commas (BigQuery allows them in a SELECT list)', () => {
  it('in the final select and in a CTE', async () => {
    expect(await one('with c as (select 1 as a, 2 as b,) select a, b, from c')).toEqual({ a: 1, b: 2 });
  });
});

describe('small forms', () => {
  it('SELECT ALL keeps duplicates; a negated negative literal is not a comment', async () => {
    expect(await bq('select all x from t where x is not null and x < 3 order by x')).toEqual([{ x: 1 }, { x: 2 }]);
    expect(await one('select -(-1) as n')).toEqual({ n: 1 });
  });

  it('ANY_VALUE is an aggregate', async () => {
    expect(await one('select any_value(s) is not null as some from t where x = 1')).toEqual({ some: true });
  });
  it('a STRUCT with two fields of one name, which BigQuery allows, is refused on DuckDB with the way out', () => {
    const twice = () => generate(parseQuery('select struct(a.x, b.X) as v from t as a, t as b'), dialect);
    expect(twice).toThrow(UnsupportedConstruct);
    expect(twice).toThrow('a STRUCT with two fields named x (name them apart with AS)');
  });
});
