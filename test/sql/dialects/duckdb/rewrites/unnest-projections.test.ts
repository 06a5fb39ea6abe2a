/**
 * UNNEST in FROM, translated to DuckDB and run on a real DuckDB, against BigQuery's answers.
 * Chains of lateral UNNESTs become nested projections (the fast form in DuckDB); these
 * tests pin that the form keeps BigQuery's semantics.
 */
import type { DuckDBConnection, DuckDBInstance } from '#duckdb-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDuckDb } from '../../../../../src/backends/duckdb/backend.js';
import { toWireValue } from '../../../../../src/backends/duckdb/values.js';
import { writeBackRows } from '../../../../../src/backends/duckdb/write-back.js';
import type { WireRow } from '../../../../../src/core/types.js';
import { duckDbDialect } from '../../../../../src/sql/dialects/duckdb/dialect.js';
import { generate } from '../../../../../src/sql/generator/generate.js';
import type { Dialect } from '../../../../../src/sql/generator/dialect.js';
import { readTableColumns } from '../../../../../src/backends/duckdb/table-columns.js';
import { parseQuery } from '../../../../../src/sql/parse/to-tree.js';

let instance: DuckDBInstance;
let connection: DuckDBConnection;
const dialect = duckDbDialect(['logs', 'owners']);

beforeAll(async () => {
  instance = await openDuckDb({ path: ':memory:' });
  connection = await instance.connect();
  await connection.run(`CREATE TABLE logs (id VARCHAR, metadata STRUCT(request STRUCT(path VARCHAR, tags VARCHAR[])[], level VARCHAR)[])`);
  await connection.run(`INSERT INTO logs VALUES
    ('a', [{'request': [{'path': '/rest/1', 'tags': ['x', 'y']}, {'path': '/auth/1', 'tags': []}], 'level': 'info'}]),
    ('b', [{'request': [], 'level': 'error'}]),
    ('c', [{'request': NULL, 'level': 'warn'}]),
    ('d', []),
    ('e', NULL)`);
  await connection.run(`CREATE TABLE owners (id VARCHAR, owner VARCHAR)`);
  await connection.run(`INSERT INTO owners VALUES ('a', 'ann'), ('b', 'bob')`);
});
afterAll(() => {
  connection.closeSync();
  instance.closeSync();
});

async function bq(sql: string): Promise<WireRow[]> {
  const statement = parseQuery(sql);
  const compiled = generate(statement, dialect, { rowCap: 1000 });
  const reader = await connection.runAndReadAll(compiled.sql);
  return writeBackRows(reader.convertRowObjects(toWireValue) as WireRow[], compiled.writeBack);
}

describe('UNNEST chains', () => {
  it('CROSS JOIN UNNEST drops rows whose array is empty or NULL', async () => {
    const rows = await bq('select t.id, r.path from logs as t cross join unnest(t.metadata) as m cross join unnest(m.request) as r order by 1, 2');
    expect(rows).toEqual([
      { id: 'a', path: '/auth/1' },
      { id: 'a', path: '/rest/1' },
    ]);
  });

  it('LEFT JOIN UNNEST ... ON TRUE keeps one row with NULL for an empty or NULL array', async () => {
    const rows = await bq('select t.id, m.level, r.path from logs as t cross join unnest(t.metadata) as m left join unnest(m.request) as r on true order by 1, 3');
    expect(rows).toEqual([
      { id: 'a', level: 'info', path: '/auth/1' },
      { id: 'a', level: 'info', path: '/rest/1' },
      { id: 'b', level: 'error', path: null },
      { id: 'c', level: 'warn', path: null },
    ]);
  });

  it('a comma before UNNEST is a lateral cross join', async () => {
    const rows = await bq('select t.id, m.level from logs t, unnest(t.metadata) m order by 1');
    expect(rows.map((row) => row.id)).toEqual(['a', 'b', 'c']);
  });

  it('three levels of UNNEST reach an array of strings', async () => {
    const rows = await bq('select t.id, tag from logs t cross join unnest(t.metadata) m cross join unnest(m.request) r cross join unnest(r.tags) as tag order by 2');
    expect(rows).toEqual([
      { id: 'a', tag: 'x' },
      { id: 'a', tag: 'y' },
    ]);
  });

  it('SELECT * shows the table columns and each UNNEST alias as a column, as BigQuery does', async () => {
    const rows = await bq("select * from logs as t cross join unnest(t.metadata) as m where t.id = 'b'");
    expect(Object.keys(rows[0]!)).toEqual(['id', 'metadata', 'm']);
    expect(rows[0]!.m).toEqual({ request: [], level: 'error' });
  });

  it('t.* shows only the table columns', async () => {
    const rows = await bq("select t.* from logs as t cross join unnest(t.metadata) as m where t.id = 'b'");
    expect(Object.keys(rows[0]!)).toEqual(['id', 'metadata']);
  });

  it('a table without an alias is qualified by its name', async () => {
    const rows = await bq("select logs.id, m.level from logs cross join unnest(logs.metadata) as m where m.level = 'warn'");
    expect(rows).toEqual([{ id: 'c', level: 'warn' }]);
  });

  it('a join after the chain still sees the base alias and the UNNEST aliases', async () => {
    const rows = await bq('select t.id, o.owner, m.level from logs t cross join unnest(t.metadata) m join owners o on o.id = t.id order by 1');
    expect(rows).toEqual([
      { id: 'a', owner: 'ann', level: 'info' },
      { id: 'b', owner: 'bob', level: 'error' },
    ]);
  });

  it('aggregates over unnested elements group as in BigQuery', async () => {
    const rows = await bq('select m.level, count(*) as n from logs t cross join unnest(t.metadata) m left join unnest(m.request) r on true group by m.level order by m.level');
    expect(rows).toEqual([
      { level: 'error', n: 1 },
      { level: 'info', n: 2 },
      { level: 'warn', n: 1 },
    ]);
  });

  it('an UNNEST in a correlated subquery sees the outer row', async () => {
    const rows = await bq("select t.id, (select count(*) from unnest(t.metadata) as m where m.level = 'info') as infos from logs t order by 1");
    expect(rows.map((row) => row.infos)).toEqual([1, 0, 0, 0, 0]);
  });
});

describe('unqualified struct fields through an UNNEST alias (BigQuery name resolution)', () => {
  let shaped: Dialect;
  beforeAll(async () => {
    // The fields of `logs` as the table stores them: every record a list.
    shaped = duckDbDialect(['logs', 'owners'], { sourceColumns: await readTableColumns(connection, ['logs']) });
  });
  async function run(sql: string): Promise<WireRow[]> {
    const statement = parseQuery(sql);
    const compiled = generate(statement, shaped, { rowCap: 1000 });
    const reader = await connection.runAndReadAll(compiled.sql);
    return writeBackRows(reader.convertRowObjects(toWireValue) as WireRow[], compiled.writeBack);
  }

  it('resolves a field of the innermost alias', async () => {
    const rows = await run("select t.id, path from logs t cross join unnest(t.metadata) as m cross join unnest(m.request) as r where path like '%rest%'");
    expect(rows).toEqual([{ id: 'a', path: '/rest/1' }]);
  });

  it('resolves a field of an outer alias too, through a CTE that passes the column on', async () => {
    const rows = await run('with c as (select t.id, t.metadata from logs t) select id, level from c, unnest(metadata) as m order by id');
    expect(rows).toEqual([
      { id: 'a', level: 'info' },
      { id: 'b', level: 'error' },
      { id: 'c', level: 'warn' },
    ]);
  });

  it('an UNNEST without an alias still exposes its fields', async () => {
    const rows = await run("select level from logs t cross join unnest(t.metadata) where level = 'warn'");
    expect(rows).toEqual([{ level: 'warn' }]);
  });

  it('a column of the table wins over a field of the same name', async () => {
    const rows = await run("select id from logs t cross join unnest(t.metadata) as m where id = 'b'");
    expect(rows).toEqual([{ id: 'b' }]);
  });
});

describe('implicit aliases', () => {
  it("a table path's implicit alias is its last part, as in BigQuery", () => {
    const dotted = duckDbDialect(['cloudflare.logs.prod']);
    const sql = generate(parseQuery('select prod.id from `cloudflare.logs.prod`'), dotted, { rowCap: 10 }).sql;
    expect(sql).toBe('SELECT "prod"."id" FROM "cloudflare.logs.prod" AS "prod" LIMIT 10');
  });
});
