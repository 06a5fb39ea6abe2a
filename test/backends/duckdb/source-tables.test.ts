import { describe, expect, it } from 'vitest';
import { BUILT_IN_SOURCES, sourceNames } from '../../../src/config/sources.js';
import { ensureSourceTables, readSourceTable, readSourceTables, sourceTablesCurrent } from '../../../src/backends/duckdb/source-tables.js';
import { CURRENT_LAYOUT } from '../../../src/backends/duckdb/layout-version.js';
import { bigQueryRows, connectDuckDB, rows } from '../../support/duckdb.js';

async function tableNames(connection: Parameters<typeof ensureSourceTables>[0]): Promise<string[]> {
  const result = await rows(connection, 'SELECT table_name FROM duckdb_tables() ORDER BY table_name');
  return result.map((row) => String(row.table_name));
}

describe('ensureSourceTables', () => {
  it('creates the nine source tables, named exactly like the sources', async () => {
    const { connection, close } = await connectDuckDB();
    try {
      const outcomes = await ensureSourceTables(connection);
      expect(outcomes.map((outcome) => outcome.outcome)).toEqual(BUILT_IN_SOURCES.map(() => 'created'));
      expect(await tableNames(connection)).toEqual([...sourceNames()].sort());
      const columns = await rows(
        connection,
        `SELECT column_name, data_type FROM duckdb_columns() WHERE table_name = 'cloudflare.logs.prod' ORDER BY column_index`,
      );
      expect(columns.map((column) => column.column_name)).toEqual(['id', 'timestamp', 'event_message', 'project', 'identifier', 'metadata']);
      expect(columns[1]?.data_type).toBe('TIMESTAMP WITH TIME ZONE');
      // Every event has its time: declared, so the DuckDB dialect may bound the newest rows by it.
      expect((await readSourceTable(connection, 'cloudflare.logs.prod'))?.columns.get('timestamp')?.notNull).toBe(true);
      // Declared records hold one object each: STRUCTs, in the current layout.
      expect(String(columns[5]?.data_type)).toMatch(/^STRUCT\(.*"?request"? STRUCT\(.*"?method"? VARCHAR, .*\), "?response"? STRUCT\(.*\)\)$/);
      expect((await readSourceTable(connection, 'cloudflare.logs.prod'))?.layout).toBe(CURRENT_LAYOUT);
      // The shipped SQL's way into nested fields works on the empty tables.
      await expect(
        bigQueryRows(
          connection,
          `select r.path, h.x_real_ip, s.status_code from \`cloudflare.logs.prod\` t
           cross join unnest(t.metadata) as m cross join unnest(m.request) as r
           left join unnest(r.headers) as h on true left join unnest(m.response) as s on true`,
        ),
      ).resolves.toEqual([]);
    } finally {
      close();
    }
  });

  it('refuses a table written in a layout newer than it reads, and reads a table without a layout as layout 1', async () => {
    const { connection, close } = await connectDuckDB();
    try {
      await connection.run(`CREATE TABLE "postgres.logs" (id VARCHAR, "timestamp" TIMESTAMPTZ, event_message VARCHAR, metadata STRUCT(host VARCHAR)[])`);
      expect((await readSourceTable(connection, 'postgres.logs'))?.layout).toBe(1);
      await connection.run(`COMMENT ON TABLE "postgres.logs" IS '{"cannery_layout": ${CURRENT_LAYOUT + 1}}'`);
      await expect(readSourceTable(connection, 'postgres.logs')).rejects.toThrow(/layout \d+, which only a newer cannery reads/);
    } finally {
      close();
    }
  });

  it('reads many tables in one go as it reads each alone, by the names asked for, and names a table whose metadata is not a record', async () => {
    const { connection, close } = await connectDuckDB();
    try {
      await ensureSourceTables(connection);
      const asked = [...sourceNames(), 'no.such.table', 'POSTGRES.LOGS'];
      const together = await readSourceTables(connection, asked);
      expect([...together.keys()]).toEqual(asked.filter((name) => name !== 'no.such.table'));
      for (const name of asked) expect(together.get(name)).toEqual(await readSourceTable(connection, name));
      expect(together.get('POSTGRES.LOGS')?.name).toBe('postgres.logs');
      await connection.run(`CREATE TABLE "odd" (id VARCHAR, metadata VARCHAR)`);
      await expect(readSourceTables(connection, ['postgres.logs', 'odd'])).rejects.toThrow(/table "?odd"? has a metadata column of type VARCHAR/);
    } finally {
      close();
    }
  });

  it('is idempotent', async () => {
    const { connection, close } = await connectDuckDB();
    try {
      expect(await sourceTablesCurrent(connection)).toBe(false);
      await ensureSourceTables(connection);
      expect(await sourceTablesCurrent(connection)).toBe(true);
      const outcomes = await ensureSourceTables(connection);
      expect(new Set(outcomes.map((outcome) => outcome.outcome))).toEqual(new Set(['unchanged']));
      expect(await tableNames(connection)).toHaveLength(9);
    } finally {
      close();
    }
  });

  it('widens an older table at any depth and keeps its rows', async () => {
    const { connection, close } = await connectDuckDB();
    try {
      await connection.run(
        `CREATE TABLE "cloudflare.logs.prod" (id VARCHAR, "timestamp" TIMESTAMPTZ, event_message VARCHAR,
           metadata STRUCT(request STRUCT(path VARCHAR, custom VARCHAR, headers STRUCT(user_agent VARCHAR)[])[])[])`,
      );
      await connection.run(
        `INSERT INTO "cloudflare.logs.prod" VALUES
           ('a', '2024-01-01T00:00:00Z', 'GET /', [{'request': [{'path': '/rest/v1/x', 'custom': 'kept', 'headers': [{'user_agent': 'curl'}]}]}])`,
      );
      // What lets a server open the file read-only: nothing to write.
      expect(await sourceTablesCurrent(connection, BUILT_IN_SOURCES.slice(0, 1))).toBe(false);
      const [outcome] = await ensureSourceTables(connection, BUILT_IN_SOURCES.slice(0, 1));
      expect(outcome?.outcome).toBe('widened');
      expect(await sourceTablesCurrent(connection, BUILT_IN_SOURCES.slice(0, 1))).toBe(true);
      const [row] = await rows(
        connection,
        `SELECT t.project, t.identifier, r.path, r.custom, r.method, h.user_agent, h.x_real_ip, m.response
         FROM "cloudflare.logs.prod" t CROSS JOIN unnest(t.metadata) AS _u_m(m) CROSS JOIN unnest(m.request) AS _u_r(r)
         CROSS JOIN unnest(r.headers) AS _u_h(h)`,
      );
      expect(row).toEqual({
        project: null,
        identifier: null,
        path: '/rest/v1/x',
        custom: 'kept',
        method: null,
        user_agent: 'curl',
        x_real_ip: null,
        response: null,
      });
      const table = await readSourceTable(connection, 'cloudflare.logs.prod');
      // Fields the table had keep their place; the source's other fields follow.
      expect([...(table?.metadata.fields.keys() ?? [])]).toEqual(['request', 'load_balancer_redirect_identifier', 'logflare_worker', 'response']);
      const [again] = await ensureSourceTables(connection, BUILT_IN_SOURCES.slice(0, 1));
      expect(again?.outcome).toBe('unchanged');
    } finally {
      close();
    }
  });

  it('declares the time NOT NULL on a table from before it did, unless the table holds a NULL time', async () => {
    const { connection, close } = await connectDuckDB();
    try {
      const [edge, postgres] = BUILT_IN_SOURCES.filter((source) => source.name === 'cloudflare.logs.prod' || source.name === 'postgres.logs');
      for (const name of [edge!.name, postgres!.name]) {
        await connection.run(`CREATE TABLE "${name}" (id VARCHAR, "timestamp" TIMESTAMPTZ, event_message VARCHAR, project VARCHAR)`);
      }
      await connection.run(`INSERT INTO "cloudflare.logs.prod" VALUES ('a', '2024-01-01T00:00:00Z', 'GET /', 'p')`);
      await connection.run(`INSERT INTO "postgres.logs" VALUES ('b', NULL, 'no time', 'p')`);
      const outcomes = await ensureSourceTables(connection, [edge!, postgres!]);
      expect(outcomes.map((outcome) => outcome.outcome)).toEqual(['widened', 'widened']);
      const tables = await readSourceTables(connection, [edge!.name, postgres!.name]);
      expect(tables.get(edge!.name)?.columns.get('timestamp')?.notNull).toBe(true);
      // Not cannery's data (an import refuses an event without a time): left as it is, and read as it is.
      expect(tables.get(postgres!.name)?.columns.get('timestamp')?.notNull).toBe(false);
      expect(await rows(connection, 'SELECT id FROM "postgres.logs"')).toEqual([{ id: 'b' }]);
    } finally {
      close();
    }
  });
});
