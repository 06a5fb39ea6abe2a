/**
 * `npm run bench:load`: what loading data costs, against DuckDB's own reader of the same file,
 * measured in the same run (issue 24).
 *
 * At each size: `cannery seed` of that many edge events; the seeded edge events exported as NDJSON
 * (objects, in time order, as a log shipper writes them); then, in turn for each run, DuckDB's
 * `read_json` of that file into a fresh table of a new database (the baseline), `cannery import` of
 * it into a new database, and an append of as many other events (a week later) into that one. Each
 * is its own process, measured whole: CPU time (user + sys of every thread) and peak RSS, from
 * getrusage at its exit (bench/rusage.ts). Figures are medians over the runs; a ratio is the median
 * of each run's, whose steps ran close together under the same load from elsewhere.
 *
 * Then, for a declared source (sources/*.yaml, docs/sources.md) of the same events' top-level
 * columns: the file as CSV and as Parquet, DuckDB's own `read_csv` / `read_parquet` of it into the
 * table of that declaration (the baseline, bench/read-declared.ts), and `cannery import --source` of it.
 *
 * `--before PATH/TO/dist/cli.js` measures another build's seed and import beside this one's, in the
 * same runs (main's, to say what a change did).
 *
 *   npm run bench:load [-- --sizes 100k,1m --runs 3 --before ../main/dist/cli.js]
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { DuckDBInstance } from '#duckdb-api';
import { EDGE_SOURCE, exportEdgeEvents } from './edge-events.js';
import { CLI, describeMachine, markdownTable, mib, parseSize } from './support.js';

const RUSAGE = fileURLToPath(new URL('rusage.js', import.meta.url));
const READ_JSON = fileURLToPath(new URL('read-json.js', import.meta.url));
const READ_DECLARED = fileURLToPath(new URL('read-declared.js', import.meta.url));
/** The declared source the CSV and Parquet loads go into: the edge events' top-level columns. */
const DECLARED_SOURCE = `name: bench.edge
time_column: timestamp
columns:
  - { name: id, type: STRING, mode: REQUIRED }
  - { name: timestamp, type: TIMESTAMP, mode: REQUIRED }
  - { name: event_message, type: STRING }
  - { name: project, type: STRING }
  - { name: identifier, type: STRING }
`;
const DECLARED_FORMATS = ['csv', 'parquet'] as const;
type DeclaredFormat = (typeof DECLARED_FORMATS)[number];
const SOURCE = EDGE_SOURCE;

/** The issue's targets. */
const TARGETS = {
  importCpu: 1.5,
  importRss: 1.25,
  rssFloor: 512 * 2 ** 20,
  append: 1.3,
  seedMicrosPerEvent: 40,
  seedRss: 768 * 2 ** 20,
  seedTargetEdgeEvents: 100_000,
};

interface Usage {
  cpuSeconds: number;
  peakRss: number;
}

const progress = (message: string) => console.error(`load: ${message}`);

/** Runs `node [--import rusage] script args` to its end and returns what it used. */
function measured(script: string, args: string[], dir: string): Promise<Usage> {
  const report = join(dir, `rusage-${process.hrtime.bigint()}.json`);
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['--import', RUSAGE, script, ...args],
      { env: { PATH: process.env.PATH ?? '', TMPDIR: dir, CANNERY_BENCH_RUSAGE: report }, maxBuffer: 1 << 24 },
      (error, _stdout, stderr) => {
        if (error) return reject(new Error(`${script} ${args.join(' ')} failed:\n${stderr}`));
        readFile(report, 'utf8').then((text) => resolve(JSON.parse(text) as Usage), reject);
      },
    );
  });
}

/** The seeded edge events' top-level columns as CSV or Parquet, in time order. */
async function exportColumns(db: string, file: string, format: DeclaredFormat): Promise<void> {
  const instance = await DuckDBInstance.create(db, { access_mode: 'READ_ONLY' });
  try {
    const connection = await instance.connect();
    try {
      await connection.run("SET TimeZone = 'UTC'");
      await connection.run(
        `COPY (SELECT id, "timestamp", event_message, project, identifier FROM "${SOURCE}" ORDER BY "timestamp") TO $file (FORMAT ${format === 'csv' ? 'csv, HEADER' : 'parquet'})`,
        { file },
      );
    } finally {
      connection.closeSync();
    }
  } finally {
    instance.closeSync();
  }
}

interface Build {
  name: string;
  cli: string;
}

interface SizeResult {
  label: string;
  edgeEvents: number;
  seededEvents: number;
  fileBytes: number;
  readJson: Usage[];
  seed: Map<string, Usage[]>;
  import: Map<string, Usage[]>;
  append: Map<string, Usage[]>;
  /** Per format: its file's bytes, DuckDB's own reader into the declared table, and cannery import --source, by build. */
  declared: Map<DeclaredFormat, { fileBytes: number; reader: Usage[]; import: Map<string, Usage[]> }>;
}

async function measureSize(label: string, edgeEvents: number, builds: readonly Build[], runs: number): Promise<SizeResult> {
  const dir = await mkdtemp(join(tmpdir(), 'cannery-bench-load-'));
  try {
    const result: SizeResult = { label, edgeEvents, seededEvents: 0, fileBytes: 0, readJson: [], seed: new Map(), import: new Map(), append: new Map(), declared: new Map() };
    for (const format of DECLARED_FORMATS) result.declared.set(format, { fileBytes: 0, reader: [], import: new Map(builds.map((build) => [build.name, []])) });
    const sources = join(dir, 'sources');
    await mkdir(sources);
    await writeFile(join(sources, 'bench.edge.yaml'), DECLARED_SOURCE);
    for (const build of builds) {
      result.seed.set(build.name, []);
      result.import.set(build.name, []);
      result.append.set(build.name, []);
    }
    const first = join(dir, 'first.ndjson');
    const second = join(dir, 'second.ndjson');
    for (let run = 0; run < runs; run += 1) {
      for (const build of builds) {
        progress(`${label}, run ${run + 1}/${runs}: ${build.name} seed`);
        const db = join(dir, `seed-${build.name}.duckdb`);
        result.seed.get(build.name)!.push(await measured(build.cli, ['seed', '--db', db, '--events', String(edgeEvents)], dir));
        if (run === 0 && build === builds[0]) {
          progress(`${label}: exporting the seeded edge events`);
          await exportEdgeEvents(db, first, false);
          await exportEdgeEvents(db, second, true);
          result.fileBytes = (await stat(first)).size;
          result.seededEvents = await countEvents(db);
          for (const format of DECLARED_FORMATS) {
            const file = join(dir, `edge.${format}`);
            await exportColumns(db, file, format);
            result.declared.get(format)!.fileBytes = (await stat(file)).size;
          }
        }
        await rm(db, { force: true });
      }
      progress(`${label}, run ${run + 1}/${runs}: DuckDB read_json`);
      const baseline = join(dir, 'read-json.duckdb');
      result.readJson.push(await measured(READ_JSON, [first, baseline], dir));
      await rm(baseline, { force: true });
      for (const build of builds) {
        const db = join(dir, `import-${build.name}.duckdb`);
        progress(`${label}, run ${run + 1}/${runs}: ${build.name} import`);
        result.import.get(build.name)!.push(await measured(build.cli, ['import', '--db', db, '--source', SOURCE, first], dir));
        progress(`${label}, run ${run + 1}/${runs}: ${build.name} append`);
        result.append.get(build.name)!.push(await measured(build.cli, ['import', '--db', db, '--source', SOURCE, second], dir));
        await rm(db, { force: true });
        await rm(`${db}.wal`, { force: true });
      }
      for (const format of DECLARED_FORMATS) {
        const file = join(dir, `edge.${format}`);
        const measures = result.declared.get(format)!;
        progress(`${label}, run ${run + 1}/${runs}: DuckDB read_${format}`);
        const baseline = join(dir, `read-${format}.duckdb`);
        measures.reader.push(await measured(READ_DECLARED, [format, file, baseline], dir));
        await rm(baseline, { force: true });
        for (const build of builds) {
          progress(`${label}, run ${run + 1}/${runs}: ${build.name} import --source of ${format}`);
          const db = join(dir, `declared-${build.name}.duckdb`);
          measures.import.get(build.name)!.push(await measured(build.cli, ['import', '--db', db, '--sources', sources, '--source', 'bench.edge', file], dir));
          await rm(db, { force: true });
          await rm(`${db}.wal`, { force: true });
        }
      }
    }
    return result;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function countEvents(db: string): Promise<number> {
  const instance = await DuckDBInstance.create(db, { access_mode: 'READ_ONLY' });
  try {
    const connection = await instance.connect();
    try {
      const tables = (await connection.runAndReadAll("SELECT table_name FROM duckdb_tables() WHERE schema_name = 'main'")).getRows().map((row) => String(row[0]));
      let total = 0;
      for (const table of tables) total += Number((await connection.runAndReadAll(`SELECT count(*) FROM "${table}"`)).getRows()[0]![0]);
      return total;
    } finally {
      connection.closeSync();
    }
  } finally {
    instance.closeSync();
  }
}

/** The median; of an even number of values, the mean of the middle two. */
function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

const cpu = (usages: readonly Usage[]) => median(usages.map((usage) => usage.cpuSeconds));
/** The median of each run's ratio: a run's steps ran close together, under the same load from elsewhere. */
const pairedRatio = (over: readonly Usage[], under: readonly Usage[]) => median(over.map((usage, run) => usage.cpuSeconds / under[run]!.cpuSeconds));
const rss = (usages: readonly Usage[]) => median(usages.map((usage) => usage.peakRss));
const seconds = (value: number) => `${value.toFixed(2)} s`;
const ratio = (value: number) => `${value.toFixed(3)}x`;
const verdict = (met: boolean) => (met ? 'met' : 'MISSED');
const spread = (usages: readonly Usage[]) => {
  const values = usages.map((usage) => usage.cpuSeconds);
  return values.length > 1 ? ` (${Math.min(...values).toFixed(2)}-${Math.max(...values).toFixed(2)})` : '';
};

function report(results: readonly SizeResult[], builds: readonly Build[], runs: number): string {
  const lines: string[] = [];
  for (const result of results) {
    const baselineCpu = cpu(result.readJson);
    const baselineRss = rss(result.readJson);
    const rssCeiling = Math.max(TARGETS.importRss * baselineRss, TARGETS.rssFloor);
    lines.push(`## ${result.label}: ${result.edgeEvents.toLocaleString('en-US')} edge events, ${mib(result.fileBytes)} of NDJSON`, '');
    const rows: string[][] = [['DuckDB read_json into a fresh table (baseline)', seconds(baselineCpu) + spread(result.readJson), mib(baselineRss), '1.00x', '']];
    for (const build of builds) {
      const imports = result.import.get(build.name)!;
      const appends = result.append.get(build.name)!;
      const importRss = rss(imports);
      const importRatio = pairedRatio(imports, result.readJson);
      rows.push([
        `${build.name}: cannery import into a fresh table`,
        seconds(cpu(imports)) + spread(imports),
        mib(importRss),
        ratio(importRatio),
        `CPU <= ${TARGETS.importCpu}x: ${verdict(importRatio <= TARGETS.importCpu)}; RSS <= ${mib(rssCeiling)}: ${verdict(importRss <= rssCeiling)}`,
      ]);
      const appendRatio = pairedRatio(appends, imports);
      rows.push([
        `${build.name}: cannery import, appending as many again`,
        seconds(cpu(appends)) + spread(appends),
        mib(rss(appends)),
        ratio(pairedRatio(appends, result.readJson)),
        `<= ${TARGETS.append}x the first import: ${ratio(appendRatio)}, ${verdict(appendRatio <= TARGETS.append)}`,
      ]);
    }
    lines.push(markdownTable(['step', 'CPU (median, range)', 'peak RSS', 'CPU vs read_json (median of runs)', 'target'], rows), '');
    const seedRows = builds.map((build) => {
      const seeds = result.seed.get(build.name)!;
      const perEvent = (cpu(seeds) * 1e6) / result.seededEvents;
      const applies = result.edgeEvents === TARGETS.seedTargetEdgeEvents;
      const target = applies ? `<= ${TARGETS.seedMicrosPerEvent} µs: ${verdict(perEvent <= TARGETS.seedMicrosPerEvent)}; RSS <= ${mib(TARGETS.seedRss)}: ${verdict(rss(seeds) <= TARGETS.seedRss)}` : 'targets are at 100k';
      return [`${build.name}: cannery seed --events ${result.edgeEvents} (${result.seededEvents.toLocaleString('en-US')} events)`, seconds(cpu(seeds)) + spread(seeds), mib(rss(seeds)), `${perEvent.toFixed(1)} µs`, target];
    });
    lines.push(markdownTable(['seed', 'CPU (median, range)', 'peak RSS', 'CPU per event', 'target'], seedRows), '');
    const declaredRows: string[][] = [];
    for (const [format, measures] of result.declared) {
      const readerRss = rss(measures.reader);
      const ceiling = Math.max(TARGETS.importRss * readerRss, TARGETS.rssFloor);
      declaredRows.push([`DuckDB read_${format} of ${mib(measures.fileBytes)} into the declared table (baseline)`, seconds(cpu(measures.reader)) + spread(measures.reader), mib(readerRss), '1.00x', '']);
      for (const build of builds) {
        const imports = measures.import.get(build.name)!;
        const importRatio = pairedRatio(imports, measures.reader);
        declaredRows.push([
          `${build.name}: cannery import --source of the ${format}`,
          seconds(cpu(imports)) + spread(imports),
          mib(rss(imports)),
          ratio(importRatio),
          `CPU <= ${TARGETS.importCpu}x: ${verdict(importRatio <= TARGETS.importCpu)}; RSS <= ${mib(ceiling)}: ${verdict(rss(imports) <= ceiling)}`,
        ]);
      }
    }
    lines.push(markdownTable(['declared source (top-level columns)', 'CPU (median, range)', 'peak RSS', 'CPU vs DuckDB reader', 'target'], declaredRows), '');
  }
  if (results.length > 1) {
    const [small, large] = [results[0]!, results.at(-1)!];
    const growth = builds.map((build) => [
      build.name,
      `${ratio(rss(large.import.get(build.name)!) / rss(small.import.get(build.name)!))} (${mib(rss(small.import.get(build.name)!))} -> ${mib(rss(large.import.get(build.name)!))})`,
      `${ratio(rss(large.readJson) / rss(small.readJson))} (${mib(rss(small.readJson))} -> ${mib(rss(large.readJson))})`,
    ]);
    lines.push(`## Peak RSS of an import as the input grows, ${small.label} -> ${large.label}`, '');
    lines.push(markdownTable(['build', 'cannery import', 'DuckDB read_json'], growth), '');
  }
  lines.push(`${runs} run(s) of each step, in turn; CPU is user + sys of the whole process, every thread; a ratio is the median of each run's.`);
  return lines.join('\n');
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { sizes: { type: 'string', default: '100k,1m' }, runs: { type: 'string', default: '3' }, before: { type: 'string' } } });
  const runs = Number(values.runs);
  if (!Number.isInteger(runs) || runs < 1) throw new Error('--runs takes a positive whole number');
  const builds: Build[] = [{ name: values.before ? 'this build' : 'cannery', cli: CLI }];
  if (values.before) builds.push({ name: 'before', cli: values.before });
  const machine = describeMachine();
  const results: SizeResult[] = [];
  for (const size of values.sizes!.split(',').map(parseSize)) results.push(await measureSize(size.label, size.edgeEvents, builds, runs));
  console.log(`# Loading data (${machine.date}; ${machine.cpu}, ${machine.cores} cores, load ${machine.load} -> ${describeMachine().load}; node ${machine.node})\n`);
  console.log(report(results, builds, runs));
}

await main();
