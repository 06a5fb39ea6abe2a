/**
 * `cannery compact` on a database written before the STRUCT layout, through the built CLI: the
 * service says the table is in the old layout (and answers correctly), compact migrates it, and the
 * service then answers the same without the notice.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDuckDb } from '../../src/backends/duckdb/backend.js';
import { importNdjson } from '../../src/backends/duckdb/import/import.js';
import { readSourceTable } from '../../src/backends/duckdb/source-tables.js';
import { cannery } from '../support/cannery-cli.js';
import { SHIPPED_ENDPOINTS as ENDPOINTS } from '../support/shipped-endpoints.js';


const EVENTS = [
  { id: 'p1', timestamp: '2024-05-01T10:00:00Z', event_message: 'LOG: one', project: 'alpha', metadata: { host: 'db', parsed: { error_severity: 'LOG' } } },
  { id: 'p2', timestamp: '2024-05-01T09:00:00Z', event_message: 'ERROR: two', project: 'alpha', metadata: { host: 'db', parsed: { error_severity: 'ERROR' } } },
];

let dir: string;
let db: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cannery-compact-'));
  db = join(dir, 'old.duckdb');
  const instance = await openDuckDb({ path: db });
  const connection = await instance.connect();
  try {
    // As cannery created tables before layouts had a number: every record a list, no comment.
    await connection.run(
      `CREATE TABLE "postgres.logs" (id VARCHAR, "timestamp" TIMESTAMPTZ, event_message VARCHAR, project VARCHAR,
         metadata STRUCT(host VARCHAR, parsed STRUCT(error_severity VARCHAR)[])[])`,
    );
    await importNdjson(connection, 'postgres.logs', Readable.from(EVENTS.map((event) => `${JSON.stringify(event)}\n`)));
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const SANDBOX = 'select id, p.error_severity from postgres_logs cross join unnest(metadata) as m cross join unnest(m.parsed) as p order by id';

describe('cannery compact', () => {
  it('migrates a table of the old layout, which the service read correctly before and reads the same after', async () => {
    const before = await cannery(['run', 'logs.all', 'project=alpha', `sql=${SANDBOX}`, '--db', db, '--endpoints', ENDPOINTS]);
    expect(before.code).toBe(0);
    expect(before.stderr).toContain('table "postgres.logs" is in storage layout 1');
    expect(before.stderr).toContain(`cannery compact --db ${db}`);

    const compact = await cannery(['compact', '--db', db]);
    expect(compact.code).toBe(0);
    expect(compact.stderr).toMatch(/^postgres\.logs: 2 row\(s\), layout 1 -> current, every record a STRUCT \(\d+\.\d s\)$/m);

    const after = await cannery(['run', 'logs.all', 'project=alpha', `sql=${SANDBOX}`, '--db', db, '--endpoints', ENDPOINTS]);
    expect(after.code).toBe(0);
    expect(after.stderr).not.toContain('storage layout');
    expect(JSON.parse(after.stdout)).toEqual(JSON.parse(before.stdout));
    expect(JSON.parse(after.stdout)).toEqual({ result: [{ id: 'p1', error_severity: 'LOG' }, { id: 'p2', error_severity: 'ERROR' }] });

    const instance = await openDuckDb({ path: db, readOnly: true });
    const connection = await instance.connect();
    try {
      const table = await readSourceTable(connection, 'postgres.logs');
      // The service widened it with the declared fields first; no list is left.
      expect(table?.columns.get('metadata')?.type).toMatch(/^STRUCT\(host VARCHAR, parsed STRUCT\(error_severity VARCHAR, [^[\]]*\)\)$/);
      // Rewritten by CREATE TABLE AS, which declares no constraint: the time is NOT NULL again.
      expect(table?.columns.get('timestamp')?.notNull).toBe(true);
      // Rewritten in time order.
      const reader = await connection.runAndReadAll('SELECT id FROM "postgres.logs"');
      expect(reader.getRowObjectsJS()).toEqual([{ id: 'p2' }, { id: 'p1' }]);
    } finally {
      connection.closeSync();
      instance.closeSync();
    }
  });

  it('refuses a database that does not exist', async () => {
    const run = await cannery(['compact', '--db', join(dir, 'missing.duckdb')]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('no DuckDB database at');
  });
});
