/**
 * Golden cases of the one generator (test/sql/golden/*.yaml): each is a BigQuery query with the
 * text the generator must write for BigQuery and for DuckDB, and the rows DuckDB must return on
 * the fixture (test/sql/golden/fixture.yaml), worked out by hand from BigQuery's documented
 * meaning, or the error DuckDB must raise where BigQuery raises one (a case that no backend may
 * compile, a construct refused by name, has `error` and no texts). Every entry of the language
 * table is covered by some case, so a construct added for one dialect only, or without a case,
 * fails here.
 *
 * GOLDEN_UPDATE=1 rewrites the expected texts from the generator (review the diff); never the rows.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import type { DuckDBConnection, DuckDBInstance, DuckDBValue } from '#duckdb-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as YAML from '#yaml';
import { openDuckDb } from '../../src/backends/duckdb/backend.js';
import { importNdjson } from '../../src/backends/duckdb/import/import.js';
import { ensureSourceTables } from '../../src/backends/duckdb/source-tables.js';
import { readTableColumns } from '../../src/backends/duckdb/table-columns.js';
import { toWireValue } from '../../src/backends/duckdb/values.js';
import { writeBackRows } from '../../src/backends/duckdb/write-back.js';
import { BUILT_IN_SOURCES, sourceNames } from '../../src/config/sources.js';
import type { WireRow } from '../../src/core/types.js';
import { bigQueryDialect } from '../../src/sql/dialects/bigquery/dialect.js';
import { sourceTables } from '../../src/sql/dialects/bigquery/tables.js';
import { duckDbDialect } from '../../src/sql/dialects/duckdb/dialect.js';
import { generate } from '../../src/sql/generator/generate.js';
import { languageEntries } from '../../src/sql/language.js';
import { parseQuery } from '../../src/sql/parse/to-tree.js';
import { withDerivedValues } from '../../src/sql/analyse/derived-parameters.js';
import type { CompiledSql, Dialect } from '../../src/sql/generator/dialect.js';
import { defineSqlMacros } from '../../src/backends/duckdb/sql-macros.js';

const FOLDER = fileURLToPath(new URL('./golden/', import.meta.url));
const UPDATE = process.env.GOLDEN_UPDATE === '1';
/** What CURRENT_TIMESTAMP is in every case. */
const NOW = '2024-05-08T12:00:00Z';

interface GoldenCase {
  name: string;
  covers: string[];
  sql: string;
  params?: Record<string, DuckDBValue>;
  bigquery?: string;
  duckdb?: string;
  /** The rows DuckDB returns, or `error`: what its error says where BigQuery raises one, or the refusal of both generators. */
  rows?: WireRow[];
  error?: string;
}

/** A case's text for a dialect, or undefined where the generator refuses it (the refusal is the case's `error`). */
function textFor(sql: string, dialect: Dialect): string | undefined {
  try {
    return generate(parseQuery(sql), dialect, { rowCap: 1000 }).sql;
  } catch {
    return undefined;
  }
}

const files = readdirSync(FOLDER).filter((file) => file.endsWith('.yaml') && file !== 'fixture.yaml').sort();
const cases = files.map((file) => ({ file, cases: YAML.parse(readFileSync(FOLDER + file, 'utf8')) as GoldenCase[] }));

const bigquery = bigQueryDialect(sourceTables(sourceNames(), { project: 'p', dataset: 'd' }));
/** For the fixture's tables as they are stored, as the backend writes its SQL. */
let duckdb: Dialect;

let instance: DuckDBInstance;
let connection: DuckDBConnection;

beforeAll(async () => {
  instance = await openDuckDb({ path: ':memory:' });
  connection = await instance.connect();
  await defineSqlMacros(connection);
  await ensureSourceTables(connection, BUILT_IN_SOURCES);
  const fixture = YAML.parse(readFileSync(FOLDER + 'fixture.yaml', 'utf8')) as Record<string, object[]>;
  for (const [source, events] of Object.entries(fixture)) {
    await importNdjson(connection, source, Readable.from(events.map((event) => JSON.stringify(event) + '\n')));
  }
  duckdb = duckDbDialect(sourceNames(), { sourceColumns: await readTableColumns(connection, sourceNames()) });
});

afterAll(() => {
  connection?.closeSync();
  instance?.closeSync();
  if (UPDATE) {
    for (const { file } of cases) {
      const document = YAML.parseDocument(readFileSync(FOLDER + file, 'utf8'));
      for (const item of (document.contents as YAML.YAMLSeq<YAML.YAMLMap>).items) {
        for (const [key, dialect] of [['bigquery', bigquery], ['duckdb', duckdb]] as const) {
          const written = textFor(String(item.get('sql')), dialect);
          if (written === undefined) item.delete(key);
          else item.set(key, written);
        }
      }
      writeFileSync(FOLDER + file, document.toString({ lineWidth: 0 }));
    }
  }
});

async function rowsOf({ sql, parameters, derived, writeBack }: CompiledSql, params: Record<string, DuckDBValue>): Promise<WireRow[]> {
  // The values the engine works out from the caller's on each request, as the service binds them.
  const values = withDerivedValues(derived, params);
  const bindings: Record<string, DuckDBValue> = {};
  for (const name of parameters) bindings[name] = name === '__cannery_now' ? NOW : (values[name] ?? null);
  const reader = await connection.runAndReadAll(sql, bindings);
  return writeBackRows(reader.convertRowObjects(toWireValue) as WireRow[], writeBack);
}

for (const { file, cases: fileCases } of cases) {
  describe(file, () => {
    for (const golden of fileCases) {
      it(golden.name, async () => {
        const query = parseQuery(golden.sql);
        // A construct refused by name: the generator's message says the case's `error`.
        const compiled = (dialect: Dialect) => {
          try {
            return generate(query, dialect, { rowCap: 1000 });
          } catch (error) {
            if (golden.error === undefined) throw error;
            expect((error as Error).message).toContain(golden.error);
            return undefined;
          }
        };
        const forBigQuery = compiled(bigquery);
        const forDuckDb = compiled(duckdb);
        if (!UPDATE) {
          expect(forBigQuery?.sql).toBe(golden.bigquery);
          expect(forDuckDb?.sql).toBe(golden.duckdb);
        }
        if (forDuckDb === undefined) return;
        const result = rowsOf(forDuckDb, golden.params ?? {});
        if (golden.error !== undefined) await expect(result).rejects.toThrow(golden.error);
        else expect(await result).toEqual(golden.rows);
      });
    }
  });
}

describe('coverage', () => {
  it('every entry of the language table has a golden case, and every case covers a real entry', () => {
    const entries = new Set(languageEntries());
    const covered = new Set(cases.flatMap(({ cases: fileCases }) => fileCases.flatMap((golden) => golden.covers)));
    expect([...entries].filter((entry) => !covered.has(entry))).toEqual([]);
    expect([...covered].filter((entry) => !entries.has(entry))).toEqual([]);
  });

  it('cases have unique names', () => {
    const names = cases.flatMap(({ cases: fileCases }) => fileCases.map((golden) => golden.name));
    expect(names.length).toBe(new Set(names).size);
  });
});
