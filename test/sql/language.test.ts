/**
 * What the language table decides before anything runs: literals BigQuery refuses, calls it
 * refuses (a bad JSONPath, a pattern with two groups), functions refused with a reason, the
 * `SAFE.` prefix, date parts read as keywords, and a bound on SQL a value is repeated in. What the
 * functions return is in the golden cases (test/sql/golden/).
 */
import { describe, expect, it } from 'vitest';
import { sourceNames } from '../../src/config/sources.js';
import { bigQueryDialect } from '../../src/sql/dialects/bigquery/dialect.js';
import { sourceTables } from '../../src/sql/dialects/bigquery/tables.js';
import { duckDbDialect } from '../../src/sql/dialects/duckdb/dialect.js';
import { MAX_REPEATED_SQL } from '../../src/sql/dialects/duckdb/semantics.js';
import { generate } from '../../src/sql/generator/generate.js';
import { UnsupportedConstruct } from '../../src/sql/generator/unsupported.js';
import { InvalidQuery } from '../../src/sql/parse/errors.js';
import { isSupportedFunction } from '../../src/sql/language.js';
import { parseQuery } from '../../src/sql/parse/to-tree.js';
import type { ExprItem, Select } from '../../src/sql/parse/tree.js';

const dialects = [duckDbDialect(sourceNames()), bigQueryDialect(sourceTables(sourceNames(), { project: 'p', dataset: 'd' }))];

/** The first select item's expression. */
function firstExpr(sql: string) {
  return ((parseQuery(sql).body as Select).items[0] as ExprItem).expr;
}

describe('literals', () => {
  it('reads integers from 2^53 with every digit, and a number with an exponent as FLOAT64', () => {
    expect(firstExpr('select 9007199254740993')).toMatchObject({ kind: 'literal', type: 'int64', value: '9007199254740993' });
    expect(firstExpr('select 1e3')).toMatchObject({ kind: 'literal', type: 'float64', value: '1e3' });
    expect(firstExpr('select 1.5e-3')).toMatchObject({ kind: 'literal', type: 'float64', value: '1.5e-3' });
  });

  it.each(dialects)('an integer literal beyond INT64 is a query BigQuery refuses ($name)', (dialect) => {
    expect(() => generate(parseQuery('select 9223372036854775808 as n'), dialect)).toThrow(InvalidQuery);
    expect(() => generate(parseQuery('select 9223372036854775807 as n'), dialect)).not.toThrow();
  });

  it('keeps the digits of a negative integer from 2^53, down to INT64\'s least', () => {
    // Statements built from parts: node-sql-parser rounds these literals, the patched grammar on
    // purpose does not, and the parser's equivalence test compares whole statement strings.
    const least = '-9223372036854775808';
    expect(firstExpr(`select ${least}`)).toMatchObject({ kind: 'literal', type: 'int64', value: least });
    expect(() => generate(parseQuery(`select ${least.replace(/8$/, '9')} as n`), dialects[0]!)).toThrow(InvalidQuery);
  });
});

describe('calls BigQuery refuses are invalid queries, found before DuckDB runs anything', () => {
  it.each([
    ["select json_value('{}', 'a') as v", "JSONPath must start with '$'"],
    ["select json_extract('{}', '$..a') as v", 'JSONPath'],
    ["select regexp_extract('ab', '(a)(b)') as v", 'more than 1 capturing group'],
    ["select regexp_extract('ab', 'a', 0) as v", 'Position in REGEXP_EXTRACT must be positive'],
    ["select date_add(date '2024-05-01', interval 1 hour) as d", 'DATE_ADD takes an INTERVAL of DAY, WEEK, MONTH, QUARTER or YEAR'],
    ['select approx_quantiles(1, 0) as q', "APPROX_QUANTILES's the number of quantiles must be between 1 and 100000"],
    ["select json '{bad' as j", 'Invalid JSON literal'],
    ['select ntile(0) over () as n from unnest([1]) as x', "NTILE's the number of buckets must be positive"],
    ["select edit_distance('a', 'b', max_distance => 1, max_distance => 2) as d", 'EDIT_DISTANCE is given the named argument max_distance twice'],
  ])('%s', (sql, message) => {
    expect(() => generate(parseQuery(sql), dialects[0]!)).toThrow(InvalidQuery);
    expect(() => generate(parseQuery(sql), dialects[0]!)).toThrow(message);
  });
});

describe('functions refused with the reason', () => {
  it.each([
    ['select net.reg_domain(id) as d from `postgres.logs` as t', 'NET.REG_DOMAIN (it needs the public suffix list'],
    ['select st_geogpoint(1, 2) as f', 'ST_GEOGPOINT (cannery has no GEOGRAPHY type)'],
    ["select edit_distance('a', 'b', foo => 1) as d", 'EDIT_DISTANCE with the named argument foo'],
    ["select json_query(event_message, 'lax $.a') as f from `postgres.logs` as t", 'JSON_QUERY with a lax JSONPath'],
    ['select ceil(cast(1.5 as numeric)) + exp(cast(1 as numeric)) as f', 'EXP of a NUMERIC value'],
    ['select percentile_disc(x, 0.5 respect nulls) over () as f from unnest([1]) as x', 'PERCENTILE_DISC with RESPECT NULLS'],
    ['select safe.count(id) as n from `postgres.logs` as t', 'SAFE. before the aggregate function COUNT'],
    ["select format_timestamp('%J', timestamp) as f from `postgres.logs` as t", 'FORMAT_TIMESTAMP with format element %J'],
    ["select format_timestamp('%Z', timestamp, 'Asia/Kolkata') as f from `postgres.logs` as t", '%Z with a time zone other than UTC'],
    ["select parse_timestamp('%Y %s', event_message) as f from `postgres.logs` as t", 'PARSE_TIMESTAMP with parse element %s'],
    ['select format_date(event_message, current_date()) as f from `postgres.logs` as t', 'FORMAT_DATE with a format that is not a string literal'],
    ['select timestamp_diff(timestamp, timestamp, week) as f from `postgres.logs` as t', 'TIMESTAMP_DIFF with date part WEEK'],
    ['select to_json_string(id, true) as f from `postgres.logs` as t', 'TO_JSON_STRING with pretty_print'],
    ["select cast('1.555' as numeric(10, 2)) as n", 'CAST to a parameterised type (NUMERIC(...))'],
  ])('%s', (sql, message) => {
    expect(() => generate(parseQuery(sql), dialects[0]!)).toThrow(UnsupportedConstruct);
    expect(() => generate(parseQuery(sql), dialects[0]!)).toThrow(message);
  });
});

describe('SAFE.', () => {
  it('is allowed before a scalar function of the table, not before an aggregate or an unknown one', () => {
    expect(isSupportedFunction('safe.parse_date')).toBe(true);
    expect(isSupportedFunction('safe.count')).toBe(false);
    expect(isSupportedFunction('safe.st_geogpoint')).toBe(false);
  });

  it('is written SAFE. for BigQuery and TRY for DuckDB, and keeps date parts', () => {
    const sql = "select safe.parse_date('%Y%m%d', id) as d, safe.timestamp_diff(timestamp, timestamp, hour) as h from `postgres.logs` as t";
    const [duckdb, bigquery] = dialects.map((dialect) => generate(parseQuery(sql), dialect).sql);
    expect(bigquery).toContain("SAFE.PARSE_DATE('%Y%m%d', `id`) AS `d`, SAFE.TIMESTAMP_DIFF(`timestamp`, `timestamp`, HOUR) AS `h`");
    expect(duckdb).toContain("TRY(CAST(strptime(trim(\"id\"), '%Y%m%d') AS DATE)) AS \"d\"");
  });
});

describe('date parts', () => {
  it('reads WEEK(<weekday>) and the parser\'s own form of DATE_TRUNC(d, WEEK) as date parts', () => {
    expect(firstExpr('select date_trunc(d, week(monday))')).toMatchObject({ args: [{}, { kind: 'date_part', part: 'week', weekday: 'monday' }] });
    expect(firstExpr('select date_trunc(d, week)')).toMatchObject({ args: [{}, { kind: 'date_part', part: 'week' }] });
    expect(firstExpr('select date_diff(a, b, isoyear)')).toMatchObject({ args: [{}, {}, { kind: 'date_part', part: 'isoyear' }] });
  });

  it('refuses a weekday that is none', () => {
    expect(() => generate(parseQuery('select date_trunc(current_date(), week(someday)) as w'), dialects[0]!)).toThrow('DATE_TRUNC with date part WEEK(SOMEDAY)');
  });
});

describe('SQL a value is repeated in', () => {
  it('is bounded: nested divisions, each checking its divisor, never grow without end', () => {
    // Each level writes its divisor twice (`CASE WHEN d = 0 THEN <error> ELSE d END`), and the
    // overflow check tests it again: 30 levels would be 2^30 copies. Past MAX_REPEATED_SQL a long
    // divisor is no longer repeated by the overflow check (functions/overflow.ts), so each further
    // level adds a constant; nothing grows past a few times the bound.
    const nested = (levels: number) => {
      let sql = 'n';
      for (let depth = 0; depth < levels; depth++) sql = `(1 / ${sql})`;
      return generate(parseQuery(`select ${sql} as q from (select 2 as n)`), dialects[0]!).sql.length;
    };
    expect(nested(30)).toBeLessThan(2 * MAX_REPEATED_SQL);
    expect(nested(30) - nested(20)).toBeLessThan(10 * 1_000);
    expect(generate(parseQuery('select 1 / (1 / n) as q from (select 2 as n)'), dialects[0]!).sql.length).toBeLessThan(MAX_REPEATED_SQL);
  });
});
