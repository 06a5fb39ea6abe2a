/**
 * Sandbox escape attempts on logs.all: each is refused with 400 and returns no data, the
 * service keeps serving, and nothing is written to disk (the DuckDB file is untouched, no file
 * appears in the test's directory or in the working directory).
 *
 * `{DIR}` in an attempt is replaced by the test's temporary directory, so that an attempt that
 * did write would write where the test looks.
 */
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../../support/service.js';
import { FIXTURES, sandboxPath } from './fixtures.js';

interface Attempt {
  name: string;
  sql: string;
  /** Parameters beside `sql`; default `{ project: 'alpha' }`. */
  params?: Record<string, string>;
}

const ATTEMPTS: Attempt[] = [
  // --- reading a source table by name ---------------------------------------------------------
  { name: 'a source table in backticks', sql: 'select * from `cloudflare.logs.prod`' },
  { name: 'a source table aliased as an endpoint CTE', sql: 'select * from `postgres.logs` as edge_logs' },
  { name: 'a source table in double quotes', sql: 'select * from "postgres.logs"' },
  { name: 'a source table spelled in another case', sql: 'select * from `Postgres.Logs`' },
  { name: 'a source table split into quoted parts', sql: 'select * from `postgres`.`logs`' },
  { name: 'a source table in a FROM subquery', sql: 'select id from (select * from `gotrue.logs.prod`) as x' },
  { name: 'a source table in a JOIN', sql: 'select e.id from edge_logs e join `postgres.logs` p on p.id = e.id' },
  { name: 'a source table in a comma join', sql: 'select e.id, p.id from edge_logs e, `postgres.logs` p' },
  { name: 'a source table in a consumer CTE', sql: 'with x as (select * from `deno-relay-logs`) select * from x' },
  { name: 'a source table in an IN subquery', sql: 'select id from edge_logs where id in (select id from `postgres.logs`)' },
  { name: 'a source table in EXISTS', sql: 'select id from edge_logs where exists (select 1 from `postgres.logs` where project = \'beta\')' },
  { name: 'a source table in a UNION ALL branch', sql: 'select id from edge_logs union all select id from `postgres.logs`' },
  { name: 'a source table in a scalar subquery of the SELECT list', sql: 'select (select count(*) from `gotrue.logs.prod`) as n from edge_logs' },
  { name: 'a source table in a JOIN condition', sql: 'select e.id from edge_logs e join postgres_logs p on p.id in (select id from `postgres.logs`)' },
  { name: 'a source table under UNNEST', sql: 'select x from unnest((select array_agg(id) from `postgres.logs`)) as x' },
  { name: 'a source table in HAVING', sql: 'select count(*) as n from edge_logs having count(*) < (select count(*) from `cloudflare.logs.prod`)' },
  { name: 'a source table inside a parenthesised join', sql: 'select e.id from edge_logs as e left join (`cloudflare.logs.prod` as x cross join unnest(x.metadata) as m) on true' },
  { name: 'a source table in a CTE inside a subquery', sql: 'select id from (with x as (select * from `postgres.logs`) select id from x)' },
  { name: 'a subquery\'s own CTE read outside it', sql: "select * from (with x as (select 1 as id) select id from x) as a, x" },
  { name: 'an endpoint CTE with a schema qualifier', sql: 'select * from main.edge_logs' },
  { name: 'a source table with database and schema qualifiers', sql: 'select * from test.main.`postgres.logs`' },
  { name: 'a project.dataset.table name', sql: 'select * from `my-project.logs.edge_logs`' },
  { name: 'information_schema', sql: 'select * from information_schema.tables' },
  { name: 'the DuckDB catalog as a table name', sql: 'select * from duckdb_tables' },
  { name: 'sqlite_master', sql: 'select * from sqlite_master' },
  { name: 'pg_catalog', sql: 'select * from pg_catalog.pg_class' },

  // --- table functions ------------------------------------------------------------------------
  { name: 'read_csv', sql: "select * from read_csv('/etc/passwd')" },
  { name: 'read_parquet', sql: "select * from read_parquet('{DIR}/test.duckdb')" },
  { name: 'read_json_auto', sql: "select * from read_json_auto('/etc/hosts')" },
  { name: 'read_text in FROM', sql: "select * from read_text('/etc/passwd')" },
  { name: 'glob', sql: "select * from glob('/*')" },
  { name: 'query_table', sql: "select * from query_table('postgres.logs')" },
  { name: 'range', sql: 'select * from range(10)' },
  { name: 'generate_series', sql: 'select * from generate_series(1, 10)' },
  { name: 'a table function in a JOIN', sql: "select e.id from edge_logs e join read_csv('/etc/passwd') as f on true" },
  { name: 'duckdb_tables()', sql: 'select * from duckdb_tables()' },
  { name: 'duckdb_settings()', sql: 'select * from duckdb_settings()' },
  { name: 'pragma_version()', sql: 'select * from pragma_version()' },
  { name: 'range under UNNEST', sql: 'select x from unnest(range(10)) as x' },

  // --- scalar functions that reach outside --------------------------------------------------------
  { name: 'getenv', sql: "select getenv('HOME') as home" },
  { name: 'getenv with a schema', sql: "select main.getenv('HOME') as home" },
  { name: 'getenv in backticks', sql: "select `getenv`('HOME') as home" },
  { name: 'current_setting', sql: "select current_setting('memory_limit') as m" },
  { name: 'read_text as a scalar', sql: "select read_text('/etc/passwd') as t" },
  { name: 'read_blob as a scalar', sql: "select read_blob('{DIR}/test.duckdb') as b" },
  { name: 'session_user()', sql: 'select session_user() as u' },
  { name: 'session_user as a keyword', sql: 'select session_user as u' },
  { name: 'current_user()', sql: 'select current_user() as u' },
  { name: 'current_user as a keyword', sql: 'select current_user as u' },
  { name: 'version()', sql: 'select version() as v' },
  { name: 'query()', sql: "select * from query('select * from \"postgres.logs\"')" },
  { name: 'query() as a scalar', sql: "select query('select 1') as q" },
  { name: 'external_query', sql: "select * from external_query('conn', 'select 1')" },
  { name: 'current_database', sql: 'select current_database() as d' },
  { name: 'a function hidden in WHERE', sql: "select id from edge_logs where getenv('HOME') is not null" },
  { name: 'a function hidden in ORDER BY', sql: "select id from edge_logs order by current_setting('threads')" },

  // --- statements ------------------------------------------------------------------------------
  { name: 'INSERT', sql: "insert into `cloudflare.logs.prod` (id, event_message) values ('x', 'y')" },
  { name: 'INSERT into a CTE name', sql: "insert into edge_logs (id) values ('x')" },
  { name: 'UPDATE', sql: "update `postgres.logs` set event_message = 'x' where true" },
  { name: 'DELETE', sql: 'delete from `postgres.logs` where true' },
  { name: 'CREATE TABLE', sql: 'create table stolen as select * from edge_logs' },
  { name: 'CREATE VIEW', sql: 'create view v as select 1 as x' },
  { name: 'DROP TABLE', sql: 'drop table `postgres.logs`' },
  { name: 'ALTER TABLE', sql: 'alter table `postgres.logs` add column x int64' },
  { name: 'ATTACH', sql: "attach '{DIR}/escape.db' as escape" },
  { name: 'DETACH', sql: 'detach test' },
  { name: 'COPY TO', sql: "copy (select 1) to '{DIR}/escape.csv'" },
  { name: 'COPY TO a relative path', sql: "copy (select 1) to 'cannery-escape.csv'" },
  { name: 'EXPORT DATABASE', sql: "export database '{DIR}/escape-export'" },
  { name: 'INSTALL', sql: 'install httpfs' },
  { name: 'LOAD', sql: 'load httpfs' },
  { name: 'PRAGMA', sql: 'pragma database_list' },
  { name: 'PRAGMA with an assignment', sql: "pragma memory_limit = '64GB'" },
  { name: 'SET', sql: 'set enable_external_access = true' },
  { name: 'SET lock_configuration', sql: 'set lock_configuration = false' },
  { name: 'RESET', sql: 'reset memory_limit' },
  { name: 'CALL', sql: 'call pragma_version()' },
  { name: 'CHECKPOINT', sql: 'checkpoint' },
  { name: 'two SELECTs separated by ;', sql: 'select id from edge_logs; select id from postgres_logs' },
  { name: 'a SELECT then a DROP', sql: 'select 1 as x; drop table `postgres.logs`' },
  { name: 'a SELECT then COPY after a line comment', sql: "select 1 as x --\n; copy (select 1) to '{DIR}/escape2.csv'" },
  { name: 'a statement after a block comment', sql: "/* just a comment */ attach '{DIR}/escape3.db' as e" },
  { name: 'a statement after a line comment', sql: '-- harmless\ndrop table `postgres.logs`' },
  { name: 'a statement after a semicolon-only statement', sql: '; drop table `postgres.logs`' },
  { name: 'BEGIN TRANSACTION', sql: 'begin transaction' },
  { name: 'DESCRIBE', sql: 'describe `postgres.logs`' },
  { name: 'SHOW TABLES', sql: 'show tables' },
  { name: 'SUMMARIZE', sql: 'summarize `postgres.logs`' },

  // --- parameters ------------------------------------------------------------------------------
  { name: 'an undeclared @param', sql: 'select @secret as s from edge_logs' },
  { name: 'the hidden @__cannery_now', sql: 'select @__cannery_now as now' },
  { name: 'a $-style DuckDB parameter', sql: 'select $project as p' },

  // --- CTE names -------------------------------------------------------------------------------
  { name: 'a consumer CTE named like an endpoint CTE', sql: 'with edge_logs as (select * from postgres_logs) select * from edge_logs' },
  { name: 'a consumer CTE named like an endpoint CTE in another case', sql: 'with EDGE_LOGS as (select 1 as id) select * from EDGE_LOGS' },
  { name: 'a recursive CTE', sql: 'with recursive r as (select 1 as n union all select n + 1 from r where n < 10) select * from r' },

  // --- comment tricks --------------------------------------------------------------------------
  { name: 'a comment between FROM and a source table', sql: 'select * from /* edge_logs */ `postgres.logs`' },
  { name: 'a comment with no spaces around it', sql: 'select * from/**/`postgres.logs`' },
  { name: 'a comment inside a keyword', sql: 'dr/**/op table `postgres.logs`' },
  { name: 'a comment hiding the statement keyword', sql: "/*select*/ copy (select 1) to '{DIR}/escape4.csv'" },
  { name: 'a nested-looking comment', sql: "select 1 as x /* /* */ ; attach '{DIR}/escape5.db' as e; -- */" },

  // --- unicode and quote tricks in identifiers -------------------------------------------------------
  { name: 'a Cyrillic homoglyph in a CTE name', sql: 'select * from \u0435dge_logs' },
  { name: 'a zero-width space in a source name', sql: 'select * from `postgres\u200b.logs`' },
  { name: 'a full-width dot in a source name', sql: 'select * from `postgres\uff0elogs`' },
  { name: 'a trailing space inside backticks', sql: 'select * from `edge_logs `' },
  { name: 'a double-quoted CTE name wrapping a source name', sql: 'select * from "edge_logs"."postgres.logs"' },
  { name: 'an escaped backtick in a name', sql: 'select * from `postgres\\`.logs`' },
  { name: 'a NUL byte in a name', sql: 'select * from `postgres.logs\u0000`' },
];

function expandDir(sql: string, dir: string): string {
  return sql.replaceAll('{DIR}', dir);
}

interface DiskState {
  dirEntries: string[];
  cwdEntries: string[];
  dbSize: number;
  dbMtimeMs: number;
}

async function diskState(dir: string): Promise<DiskState> {
  const db = await stat(join(dir, 'test.duckdb'));
  return {
    dirEntries: (await readdir(dir, { recursive: true })).sort(),
    cwdEntries: (await readdir(process.cwd())).sort(),
    dbSize: db.size,
    dbMtimeMs: db.mtimeMs,
  };
}

describe('sandbox escapes', () => {
  let svc: TestService;
  let before: DiskState;

  beforeAll(async () => {
    svc = await startTestService({ fixtures: FIXTURES });
    // One ordinary query first: whatever serving itself writes is in the baseline.
    await svc.call(sandboxPath({ project: 'alpha', sql: 'select count(*) as n from edge_logs' }));
    before = await diskState(svc.dir);
  });
  afterAll(() => svc?.close());

  it('the corpus has at least 40 attempts', () => {
    expect(ATTEMPTS.length).toBeGreaterThanOrEqual(40);
  });

  describe.each(ATTEMPTS)('$name', ({ sql, params }) => {
    it('is refused with 400 and no data', async () => {
      const { status, body } = await svc.call(sandboxPath({ project: 'alpha', ...params, sql: expandDir(sql, svc.dir) }));
      expect(status, JSON.stringify(body)).toBe(400);
      expect(body).not.toHaveProperty('result');
      expect(Object.keys(body)).toEqual(['error']);
      if (body.error.code === 'invalid_parameter') expect(body.error.param).toBe('sql');
      else expect(body.error.code).toBe('sandbox_violation');
    });
  });

  it('refuses the same attempts sent in a POST body', async () => {
    for (const { sql, params } of ATTEMPTS) {
      const response = await fetch(`${svc.url}/api/endpoints/query/logs.all`, {
        method: 'POST',
        headers: { 'x-api-key': 'test-key-1', 'content-type': 'application/json' },
        body: JSON.stringify({ project: 'alpha', ...params, sql: expandDir(sql, svc.dir) }),
      });
      const body = await response.json();
      expect(response.status, `${sql}: ${JSON.stringify(body)}`).toBe(400);
      expect(body).not.toHaveProperty('result');
    }
  });

  describe('strings that look like SQL are data', () => {
    it('a quote-and-semicolon payload in a string literal runs as one SELECT', async () => {
      const { status, body } = await svc.call(
        sandboxPath({ project: 'alpha', sql: "select id from edge_logs where id = '\\'; drop table `postgres.logs`; --' or id = 'e1'" }),
      );
      expect(status, JSON.stringify(body)).toBe(200);
      expect(body.result).toEqual([{ id: 'e1' }]);
    });

    it.each([
      ["a hex-escaped quote", "select id from edge_logs where id = '\\x27; drop table `postgres.logs`; --'"],
      ['an octal-escaped quote', "select id from edge_logs where id = '\\047 or 1=1 --'"],
      ['a unicode-escaped quote', "select id from edge_logs where id = '\\u0027 or 1=1 --'"],
      ['a single quote inside a double-quoted string', 'select id from edge_logs where id = "x\' or \'1\'=\'1"'],
    ])('%s stays inside its string', async (_name, sql) => {
      const { status, body } = await svc.call(sandboxPath({ project: 'alpha', sql }));
      expect(status, JSON.stringify(body)).toBe(200);
      expect(body.result).toEqual([]);
    });

    it('a double quote inside a backticked alias stays inside the column name', async () => {
      const { status, body } = await svc.call(sandboxPath({ project: 'alpha', sql: "select id as `a\"; drop table x; --` from edge_logs where id = 'e1'" }));
      expect(status, JSON.stringify(body)).toBe(200);
      expect(body.result).toEqual([{ 'a"; drop table x; --': 'e1' }]);
    });

    it('a comment holding a statement is a comment', async () => {
      const { status, body } = await svc.call(sandboxPath({ project: 'alpha', sql: "select count(*) as n from edge_logs /* ; attach '{DIR}/x.db' as x */".replace('{DIR}', svc.dir) }));
      expect(status, JSON.stringify(body)).toBe(200);
      expect(body.result).toEqual([{ n: 5 }]);
    });

    it('a consumer CTE named like a source table reads the CTE, never the table', async () => {
      const { status, body } = await svc.call(
        sandboxPath({ project: 'alpha', sql: 'with `postgres.logs` as (select id from edge_logs) select id from `postgres.logs` order by id' }),
      );
      // Refusing the name is fine; answering must give alpha's edge rows and nothing else.
      if (status === 200) expect(body.result).toEqual([{ id: 'e1' }, { id: 'e2' }, { id: 'e3' }, { id: 'e4' }, { id: 'e5' }]);
      else expect(body).not.toHaveProperty('result');
    });
  });

  describe('afterwards', () => {
    it('the service still answers a normal logs.all call', async () => {
      const { status, body } = await svc.call(sandboxPath({ project: 'alpha' }));
      expect(status).toBe(200);
      expect(body.result.map((row: { id: string }) => row.id)).toEqual(['e5', 'e4', 'e3', 'e2', 'e1']);
    });

    it('the data is unchanged', async () => {
      const sql = `select 'edge' as source, count(*) as n from edge_logs
                   union all select 'postgres', count(*) from postgres_logs
                   union all select 'auth', count(*) from auth_logs
                   order by source`;
      const { status, body } = await svc.call(sandboxPath({ project: 'alpha', sql }));
      expect(status).toBe(200);
      expect(body.result).toEqual([
        { source: 'auth', n: 4 },
        { source: 'edge', n: 5 },
        { source: 'postgres', n: 4 },
      ]);
    });

    it('nothing was written to disk: no new files, the DuckDB file untouched', async () => {
      const after = await diskState(svc.dir);
      expect(after.dirEntries).toEqual(before.dirEntries);
      // Only new entries count: other work in the same checkout may delete files meanwhile.
      expect(after.cwdEntries.filter((entry) => !before.cwdEntries.includes(entry))).toEqual([]);
      expect(after.dbSize).toBe(before.dbSize);
      expect(after.dbMtimeMs).toBe(before.dbMtimeMs);
    });
  });
});
