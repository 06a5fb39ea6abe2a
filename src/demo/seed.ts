/**
 * `cannery seed`: realistic demo data for every built-in source, generated inside DuckDB.
 *
 * Each source is one `INSERT ... SELECT` over a range of row numbers per chunk, every column
 * derived from `hash(row, seed)`: set-based SQL runs on every core, where rows built in JS would
 * each cross into DuckDB on their own. The generators write each record in the layout the table
 * stores (one STRUCT per object, docs/storage.md), so DuckDB stores the rows as they come: building
 * the records as lists and converting them in SQL took ten times the CPU (100,000 edge events,
 * 175,000 in all: 69 s against 7 s). Hashing instead of random() makes the data a pure function of
 * (now, edgeEvents), so tests can rely on counts and a demo looks the same every time.
 *
 * Time: every event lies in [now - 7 days, now]. The first rows of each source (5%, at least
 * `MIN_TAIL`) are spread evenly over the last hour and cycle through the projects, so a minutely
 * chart of any project has data in every minute; the rest is uniform over the rest of the week,
 * in time order with the row number. Rows land in the table in that order, so DuckDB's zone maps
 * on `timestamp` let a time bound or a newest-first top-N skip most row groups (at 1M edge
 * events, logs.all's top 100 took 14 ms instead of 900 ms). With `since`, every row is "tail":
 * spread evenly over (since, now], the way the demo's live feed and its top-up add to a seeded
 * database (live.ts).
 */
import { INTEGER, LIST, VARCHAR, BIGINT, listValue, type DuckDBConnection, type DuckDBType, type DuckDBValue } from '#duckdb-api';
import { quoteIdentifier } from '../sql/dialects/duckdb/quote.js';
import { duckdbType } from '../backends/duckdb/column-types.js';
import { convertLayout, layoutChanged } from '../backends/duckdb/layout-sql.js';
import { ensureSourceTables, readSourceTable, type SourceTable } from '../backends/duckdb/source-tables.js';
import { recordShapeToValueShape } from '../backends/duckdb/value-shape.js';
import { BUILT_IN_SOURCES } from '../config/sources.js';
import { edge, functionEdge } from './gateway.js';
import { auth, functionLogs, pgbouncer, postgres, postgrest, realtime, storage } from './services.js';
import { COMMON_CTES, COMMON_PARAMS, INDEX_TABLE, VISITOR_PARAMS, VISITOR_TABLE, VISITOR_TABLE_SQL, type ParamValue, type SourceSql } from './sql.js';

export { DEMO_PROJECTS, MAIN_DEMO_PROJECT } from './pools.js';

export interface SeedOptions {
  /** Events in `cloudflare.logs.prod`; the other sources get a fixed fraction of it (see `demoEventCounts`). */
  edgeEvents: number;
  /** The end of the seeded week; defaults to the current time. */
  now?: Date;
  /**
   * When set, every event lies in (since, now], spread evenly and cycling through the projects as
   * the last hour of a full seed does.
   */
  since?: Date;
  /**
   * Where the tail's rotation through the projects starts (default 0): the live feed carries it
   * from batch to batch, so batches of one or two events do not all go to the first project.
   */
  rotation?: number;
  /** Events per source instead of `demoEventCounts(edgeEvents)`; a source left out gets none. */
  counts?: Readonly<Record<string, number>>;
  /** Called after every chunk with events written so far and the total, across all sources. */
  onProgress?: (done: number, total: number) => void;
}

export interface SeedResult {
  events: Record<string, number>;
  total: number;
}

/** Rows per INSERT: a few row groups, so a chunk uses every core and progress moves every couple of seconds. */
const CHUNK_ROWS = 4 * 122_880;
const TAIL_FRACTION = 0.05;
const HOUR_US = 3_600_000_000n;
/**
 * Twelve rows a minute: however the jitter lands, each minute gets at least ten consecutive rows
 * of the tail, and any six consecutive rows cover the project rotation below.
 */
const MIN_TAIL = 12 * 60;

/** Other sources relative to the edge, roughly as in a busy project: every request hits the edge first. */
export const SHARE_OF_EDGE: Readonly<Record<string, number>> = {
  'cloudflare.logs.prod': 1,
  'postgres.logs': 1 / 5,
  'deno-relay-logs': 1 / 20,
  'deno-subhosting-events': 1 / 10,
  'gotrue.logs.prod': 1 / 10,
  'realtime.logs.prod': 1 / 20,
  'storage.logs.prod.2': 1 / 10,
  'postgREST.logs.prod': 1 / 10,
  'pgbouncer.logs.prod': 1 / 20,
};

/** How many events `seedDemoData` writes per source for `edgeEvents`; every source gets at least one. */
export function demoEventCounts(edgeEvents: number): Record<string, number> {
  return Object.fromEntries(
    Object.entries(SHARE_OF_EDGE).map(([source, share]) => [
      source,
      edgeEvents === 0 ? 0 : Math.max(1, Math.round(edgeEvents * share)),
    ]),
  );
}

/** Of a source's `count` events, those a full seed puts in its last hour: the rate the demo goes on at (live.ts). */
export function lastHourEvents(count: number): number {
  return Math.min(count, Math.max(MIN_TAIL, Math.floor(count * TAIL_FRACTION)));
}

export async function seedDemoData(connection: DuckDBConnection, options: SeedOptions): Promise<SeedResult> {
  const { edgeEvents } = options;
  if (!Number.isSafeInteger(edgeEvents) || edgeEvents < 0) throw new RangeError(`edgeEvents must be a non-negative integer, got ${edgeEvents}`);
  const nowMicros = BigInt((options.now ?? new Date()).getTime()) * 1000n;
  const sinceMicros = options.since === undefined ? undefined : BigInt(options.since.getTime()) * 1000n;
  if (sinceMicros !== undefined && sinceMicros >= nowMicros) throw new RangeError('since must be before now');
  const counts = options.counts ?? demoEventCounts(edgeEvents);
  const total = Object.values(counts).reduce((sum, count) => sum + count, 0);
  const indexRows = Math.min(CHUNK_ROWS, Math.max(0, ...Object.values(counts)));

  await ensureSourceTables(connection);
  await connection.run(`CREATE OR REPLACE TEMP TABLE ${INDEX_TABLE} AS SELECT range AS j FROM range(${indexRows})`);
  await connection.run(VISITOR_TABLE_SQL, ...bind(VISITOR_PARAMS));
  try {
    let done = 0;
    options.onProgress?.(done, total);
    for (const [source, build] of Object.entries(GENERATORS)) {
      const count = counts[source] ?? 0;
      const { select, params } = build();
      const table = await readSourceTable(connection, source);
      const sql = `INSERT INTO ${quoteIdentifier(source)} BY NAME SELECT * REPLACE (${storedMetadata(source, table)} AS metadata) FROM (${COMMON_CTES} ${select})`;
      const tail = sinceMicros === undefined ? lastHourEvents(count) : count;
      for (let start = 0; start < count; start += CHUNK_ROWS) {
        const rows = Math.min(CHUNK_ROWS, count - start);
        await connection.run(
          sql,
          ...bind({
            ...COMMON_PARAMS,
            ...params,
            now: nowMicros,
            seed: `${source}|${nowMicros}`,
            start: BigInt(start),
            rows: BigInt(rows),
            tail: BigInt(tail),
            rotation: BigInt(options.rotation ?? 0),
            tail_span: sinceMicros === undefined ? HOUR_US : nowMicros - sinceMicros,
            count: BigInt(count),
          }),
        );
        done += rows;
        options.onProgress?.(done, total);
      }
    }
  } finally {
    await connection.run(`DROP TABLE IF EXISTS ${INDEX_TABLE}`);
    await connection.run(`DROP TABLE IF EXISTS ${VISITOR_TABLE}`);
  }
  return { events: counts, total };
}

/**
 * The generators write every record as one STRUCT, the layout of a table the seed creates, which
 * INSERT BY NAME stores as it is (a field the table has and the generator lacks is NULL). A table
 * an import made store some record as a list gets the seed's rows converted in SQL: rare, and slower.
 */
function storedMetadata(source: string, table: SourceTable | undefined): string {
  const generated = recordShapeToValueShape(BUILT_IN_SOURCES.find((known) => known.name === source)!.metadata);
  if (table === undefined || !layoutChanged(generated, table.metadata)) return 'metadata';
  // Cast first: the generated value holds only the declared fields, which convertLayout reads.
  return convertLayout(`CAST(metadata AS ${duckdbType(generated)})`, generated, table.metadata);
}

/** Named parameters with explicit types: JS numbers would otherwise bind as INTEGER or DOUBLE by value. */
function bind(params: Record<string, ParamValue>): [Record<string, DuckDBValue>, Record<string, DuckDBType>] {
  const values: Record<string, DuckDBValue> = {};
  const types: Record<string, DuckDBType> = {};
  for (const [name, value] of Object.entries(params)) {
    if (typeof value === 'bigint') {
      values[name] = value;
      types[name] = BIGINT;
    } else if (typeof value === 'string') {
      values[name] = value;
      types[name] = VARCHAR;
    } else if (typeof value === 'number') {
      values[name] = value;
      types[name] = INTEGER;
    } else if (value.every((item) => Array.isArray(item))) {
      values[name] = listValue(value.map((items) => listValue(items as readonly string[])));
      types[name] = LIST(LIST(VARCHAR));
    } else if (value.every((item) => typeof item === 'number')) {
      values[name] = listValue(value as readonly number[]);
      types[name] = LIST(INTEGER);
    } else {
      values[name] = listValue(value as readonly string[]);
      types[name] = LIST(VARCHAR);
    }
  }
  return [values, types];
}

/**
 * Sources whose project filter is `metadata.project_ref` / `metadata.project` (see DESIGN.md)
 * leave the top-level `project` NULL, as in the system the spec describes, so SQL that filters
 * those sources on the wrong column finds nothing here too.
 */
const GENERATORS: Readonly<Record<string, () => SourceSql>> = {
  'cloudflare.logs.prod': edge,
  'postgres.logs': postgres,
  'deno-relay-logs': functionEdge,
  'deno-subhosting-events': functionLogs,
  'gotrue.logs.prod': auth,
  'realtime.logs.prod': realtime,
  'storage.logs.prod.2': storage,
  'postgREST.logs.prod': postgrest,
  'pgbouncer.logs.prod': pgbouncer,
};
