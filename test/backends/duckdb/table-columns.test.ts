/**
 * The records every row of a table holds, read from DuckDB's statistics when a file is opened
 * read-only: what lets the dialect leave out `x IS NOT NULL` for them (stored-records.ts). A
 * record some row lacks, a record under one, an empty table and a writable file give none.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DuckDBInstance } from '#duckdb-api';
import { createDuckDbBackend } from '../../../src/backends/duckdb/backend.js';
import { ensureSourceTables, readSourceTables } from '../../../src/backends/duckdb/source-tables.js';
import { readPresentRecords } from '../../../src/backends/duckdb/table-columns.js';
import { BUILT_IN_SOURCES } from '../../../src/config/sources.js';
import type { Dialect } from '../../../src/sql/generator/dialect.js';
import { generate } from '../../../src/sql/generator/generate.js';
import { parseQuery } from '../../../src/sql/parse/to-tree.js';

function compile(dialect: Dialect, sql: string): string {
  return generate(parseQuery(sql), dialect).sql;
}

const dir = mkdtempSync(join(tmpdir(), 'cannery-present-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const EDGE = BUILT_IN_SOURCES.find((source) => source.name === 'cloudflare.logs.prod')!;
const EXPLORER = `select id, request.path from \`cloudflare.logs.prod\` cross join unnest(metadata) as m cross join unnest(m.request) as request
  order by timestamp desc limit 10`;

/** A file with the edge source's table, one event per entry of `requests`: its request's path, or null for an event without a request. */
async function fileWith(name: string, requests: (string | null)[]): Promise<string> {
  const path = join(dir, `${name}.duckdb`);
  const instance = await DuckDBInstance.create(path);
  const connection = await instance.connect();
  await ensureSourceTables(connection, [EDGE]);
  for (const [index, request] of requests.entries()) {
    const record = request === null ? 'NULL' : `{'path': '${request}'}`;
    await connection.run(
      `INSERT INTO "cloudflare.logs.prod" (id, "timestamp", project, metadata)
       SELECT 'e${index}', TIMESTAMPTZ '2024-05-01 10:00:00+00' + INTERVAL ${index} MINUTE, 'p', struct_pack(request := ${record})::${await metadataType(connection)}`,
    );
  }
  connection.closeSync();
  instance.closeSync();
  return path;
}

async function metadataType(connection: Awaited<ReturnType<DuckDBInstance['connect']>>): Promise<string> {
  const reader = await connection.runAndReadAll(`SELECT data_type FROM duckdb_columns() WHERE table_name = 'cloudflare.logs.prod' AND column_name = 'metadata'`);
  return String(reader.getRows()[0]![0]);
}

async function present(path: string): Promise<string[]> {
  const instance = await DuckDBInstance.create(path, { access_mode: 'READ_ONLY' });
  const connection = await instance.connect();
  try {
    const found = await readPresentRecords(connection, await readSourceTables(connection, [EDGE.name]));
    return [...(found.get(EDGE.name) ?? [])].map((key) => key.split('\u0000').slice(1).join('.') || 'metadata').sort();
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

describe('records every row holds', () => {
  it('are read from the statistics: the record and its request when every row has both, the record alone when a row lacks its request', async () => {
    expect(await present(await fileWith('all', ['/a', '/b']))).toEqual(['metadata', 'request']);
    expect(await present(await fileWith('some', ['/a', null]))).toEqual(['metadata']);
  });

  it('are none in an empty table', async () => {
    expect(await present(await fileWith('empty', []))).toEqual([]);
  });

  it('let a read-only backend leave the NULL test out, and not a writable one (the demo, which adds rows while it serves)', async () => {
    const path = await fileWith('served', ['/a', '/b']);
    const readOnly = await createDuckDbBackend({ path, sources: [EDGE] });
    let withoutTest: string;
    try {
      withoutTest = compile(readOnly.dialect, EXPLORER);
    } finally {
      await readOnly.close();
    }
    expect(withoutTest).not.toMatch(/IS NOT NULL/);
    const writable = await createDuckDbBackend({ path, sources: [EDGE], writable: true });
    try {
      expect(compile(writable.dialect, EXPLORER)).toMatch(/"metadata" IS NOT NULL/);
    } finally {
      await writable.close();
    }
  });
});
