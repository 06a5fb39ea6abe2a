/**
 * Where `logs.all`'s time goes (no bounds, the demo project), part by part, in CPU time: what the
 * process spent (process.cpuUsage: every thread, DuckDB's included) on each part of one answer,
 * p50 over the samples, the parts taking turns in every round:
 *
 * - plan: `EXPLAIN` of the query as shipped (parse, bind and plan its nine CTEs, nothing run);
 * - top-N: the same query selecting only `id, timestamp` (finding the newest 100; its plan included);
 * - no metadata: selecting `id, timestamp, event_message`;
 * - query: the query as shipped, every block fetched, nothing converted;
 * - convert: those blocks to wire values, as the backend does (readWireRows, the stored records
 *   written back; `metadata` parsed from the JSON text DuckDB writes of it on a file served read-only);
 * - encode: the rows to the answer's bytes, as the service does (encodeResult);
 * - serve: with `--serve`, the built `cannery serve` on the same file, asked over HTTP on loopback
 *   (result cache off), its own CPU per request from /proc over a batch of requests.
 *
 * So `query - no metadata` is reading the 100 rows' `metadata`, and `serve - (query + convert +
 * encode)` what the service and the HTTP layer add. Runs once per `--threads` value.
 *
 * usage: node dist/bench/logs-all-parts.js --db FILE [--samples 21] [--threads 1,2] [--serve]
 * Never point it at a file others use: `serve` takes a lock (copy it with `cp -p` first).
 */
import { parseArgs } from 'node:util';
import { readFileSync } from 'node:fs';
import { ResultReturnType, type DuckDBDataChunk, type DuckDBInstance, type DuckDBResult, type DuckDBValue } from '#duckdb-api';
import { canneryModules } from './peers.js';
import { API_KEY, cannerySettings, cpuSeconds, DEMO_PROJECT, DIST, isMain, markdownTable, median, ms, serve, SHIPPED_ENDPOINTS } from './support.js';

const PARTS = ['plan', 'top-N', 'no metadata', 'query', 'convert', 'encode'] as const;

/** The shipped endpoint's final selection, which the variants replace. */
const SHIPPED_SELECT = 'select id, timestamp, event_message, metadata\nfrom edge_logs';

/** Requests a `serve` batch holds: /proc counts CPU in 10 ms ticks, so one request alone is too coarse. */
const SERVE_BATCH = 8;

interface Extra {
  readWireRows(result: unknown, maxRows: number, budget: unknown, writeBack?: unknown): Promise<Record<string, unknown>[]>;
  resultBudget(maxBytes: number): unknown;
  encodeResult(rows: readonly unknown[], options: { maxBytes: number }): Promise<Uint8Array>;
  DEFAULTS: { maxResultBytes: number };
  readSourceTables(connection: unknown, sources: readonly string[]): Promise<ReadonlyMap<string, unknown>>;
  readPresentRecords(connection: unknown, tables: ReadonlyMap<string, unknown>): Promise<ReadonlyMap<string, ReadonlySet<string>>>;
  tableColumns(tables: ReadonlyMap<string, unknown>, present?: ReadonlyMap<string, ReadonlySet<string>>): unknown;
}

function cpuMs(from: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(from);
  return (used.user + used.system) / 1000;
}

/** The blocks of an answer, kept, and replayed as a result to the backend's converter. */
function replay(names: string[], chunks: DuckDBDataChunk[]): DuckDBResult {
  let next = 0;
  return { deduplicatedColumnNames: () => names, fetchChunk: async () => chunks[next++], returnType: ResultReturnType.QUERY_RESULT } as unknown as DuckDBResult;
}

async function measure(db: string, threads: number, samples: number, withServe: boolean): Promise<Map<string, number[]>> {
  const modules = await canneryModules();
  const extra = Object.assign(
    {},
    ...(await Promise.all(['backends/duckdb/result-rows.js', 'engine/serve/result-budget.js', 'engine/serve/encode.js', 'config/settings.js', 'backends/duckdb/source-tables.js', 'backends/duckdb/table-columns.js'].map((path) => import(new URL(path, DIST).href)))),
  ) as Extra;
  const instance: DuckDBInstance = await modules.openDuckDb({ path: db, memoryLimit: '1GB', readOnly: true, threads });
  const setup = await instance.connect();
  // The columns as `serve` reads them from a file it opens read-only (the records every row holds,
  // the stored types that let DuckDB hand `metadata` over as JSON text), so the SQL is serve's.
  const tables = await extra.readSourceTables(setup, modules.sourceNames());
  const dialect = modules.duckDbDialect(modules.sourceNames(), { sourceColumns: extra.tableColumns(tables, await extra.readPresentRecords(setup, tables)), strictNames: true });
  setup.closeSync();
  const registry = await modules.loadRegistry(SHIPPED_ENDPOINTS, { dialect, sources: modules.sourceNames() });
  const endpoint = registry.find('logs.all')! as unknown as { definition: { max_rows: number; query: string }; sql: string; sqlParameters: string[]; sqlDerived: Record<string, unknown>; sqlWriteBack?: unknown };
  const text = endpoint.definition.query;
  if (!text.includes(SHIPPED_SELECT)) throw new Error(`logs.all's final selection is no longer "${SHIPPED_SELECT}": update this benchmark`);
  const variant = (select: string) => modules.generate(modules.parseQuery(text.replace(SHIPPED_SELECT, `${select}\nfrom edge_logs`)), dialect).sql;
  const sql = { plan: `EXPLAIN ${endpoint.sql}`, 'top-N': variant('select id, timestamp'), 'no metadata': variant('select id, timestamp, event_message'), query: endpoint.sql };
  const values = modules.withDerivedValues(endpoint.sqlDerived, modules.readRequestParams(endpoint.definition as never, [['project', DEMO_PROJECT]]).values);
  const bound: Record<string, DuckDBValue> = {};
  for (const parameter of endpoint.sqlParameters) bound[parameter] = values[parameter] ?? null;
  const maxBytes = extra.DEFAULTS.maxResultBytes;

  const connection = await instance.connect();
  /** CPU of streaming `text` to its end, and the blocks it answered. */
  const stream = async (text: string) => {
    const from = process.cpuUsage();
    const result = await connection.stream(text, bound);
    const chunks: DuckDBDataChunk[] = [];
    for (let chunk = await result.fetchChunk(); chunk && chunk.rowCount > 0; chunk = await result.fetchChunk()) chunks.push(chunk);
    return { cpu: cpuMs(from), names: result.deduplicatedColumnNames(), chunks };
  };

  const served = withServe
    ? await serve({ db, env: { CANNERY_LOG_LEVEL: 'warn', ...cannerySettings(), CANNERY_DUCKDB_THREADS: String(threads), CANNERY_CACHE_MAX_BYTES: '0' } })
    : undefined;
  const url = served && `${served.url}/api/endpoints/query/logs.all?project=${DEMO_PROJECT}`;
  const times = new Map<string, number[]>();
  const add = (part: string, value: number) => times.set(part, [...(times.get(part) ?? []), value]);
  let bodyBytes = 0;
  try {
    // Two rounds warm up DuckDB's caches and the JIT, and are not counted.
    for (let round = -2; round < samples; round++) {
      const counted = round >= 0;
      for (const part of ['plan', 'top-N', 'no metadata'] as const) {
        const { cpu, chunks } = await stream(sql[part]);
        if (counted) add(part, cpu);
        if (part !== 'plan' && chunks.reduce((sum, chunk) => sum + chunk.rowCount, 0) !== 100) throw new Error(`${part}: not 100 rows`);
      }
      const shipped = await stream(sql.query);
      let from = process.cpuUsage();
      const rows = await extra.readWireRows(replay(shipped.names, shipped.chunks), endpoint.definition.max_rows, extra.resultBudget(maxBytes), endpoint.sqlWriteBack);
      const convert = cpuMs(from);
      from = process.cpuUsage();
      const body = await extra.encodeResult(rows, { maxBytes });
      const encode = cpuMs(from);
      bodyBytes = body.byteLength;
      if (counted) {
        add('query', shipped.cpu);
        add('convert', convert);
        add('encode', encode);
        add('in-process total', shipped.cpu + convert + encode);
      }
      if (served && url) {
        const before = cpuSeconds(served.child.pid!);
        for (let request = 0; request < SERVE_BATCH; request++) {
          const response = await fetch(url, { headers: { 'x-api-key': API_KEY } });
          const answer = Buffer.from(await response.arrayBuffer());
          if (response.status !== 200 || !answer.equals(Buffer.from(body))) throw new Error(`serve answered ${response.status}, ${answer.byteLength} bytes, not the in-process answer's ${body.byteLength}`);
        }
        if (counted) add('serve (per request)', ((cpuSeconds(served.child.pid!) - before) * 1000) / SERVE_BATCH);
      }
    }
  } finally {
    connection.closeSync();
    await served?.stop();
    instance.closeSync();
  }
  times.set('answer bytes', [bodyBytes]);
  return times;
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { db: { type: 'string' }, samples: { type: 'string', default: '21' }, threads: { type: 'string', default: '1,2' }, serve: { type: 'boolean', default: false } } });
  if (!values.db) throw new Error('usage: node dist/bench/logs-all-parts.js --db FILE [--samples 21] [--threads 1,2] [--serve]');
  const samples = Number(values.samples);
  const threadCounts = values.threads.split(',').map(Number);
  const results: Map<string, number[]>[] = [];
  for (const threads of threadCounts) results.push(await measure(values.db, threads, samples, values.serve));
  const rows = [...PARTS, 'in-process total', ...(values.serve ? ['serve (per request)'] : [])].map((part: string) => [part, ...results.map((times) => ms(median(times.get(part)!)))]);
  console.log(`logs.all, no bounds, ${values.db}: CPU p50 of ${samples}; load ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}; answer ${results[0]!.get('answer bytes')![0]} bytes`);
  console.log(markdownTable(['part', ...threadCounts.map((threads) => `${threads} thread${threads === 1 ? '' : 's'}`)], rows));
}

if (isMain(import.meta.url)) await main();
