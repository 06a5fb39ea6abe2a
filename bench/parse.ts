/**
 * What cannery's patched BigQuery grammar costs against node-sql-parser 5.4.0's own build, both
 * measured in this run: parsing the shipped endpoints' SQL and the repository's SQL corpus
 * (bench/sql-corpus.ts; the statements both parsers read), and loading each parser into a fresh
 * node process, which every start-up pays once. Start-up parses every endpoint file, so parse time
 * is most of it: the target is a ratio within noise of 1.
 *
 *   npm run bench:parse
 */
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { sqlCorpus } from './sql-corpus.js';
import { describeMachine, DIST, isMain, markdownTable, median } from './support.js';

const ROOT = new URL('../', DIST);
const require = createRequire(import.meta.url);
const STOCK_PARSER = require.resolve('node-sql-parser/build/bigquery.js');
const GRAMMAR = new URL('sql/parse/bigquery-grammar.js', DIST);
const LOAD_RUNS = 15;
const PARSE_ROUNDS = 60;

interface StockParser {
  astify(sql: string, options: object): unknown;
}

/** The built src/sql/parse/parse.ts (this file compiles on its own, so it is imported by URL). */
interface ParseModule {
  parseBigQuery(sql: string): unknown[];
}

export interface ParseCost {
  name: string;
  statements: number;
  stockMs: number;
  canneryMs: number;
  /** The median of each round's cannery/stock, the steadier figure on a busy machine. */
  pairedRatio: number;
}

export async function measureParsing(): Promise<{ parsing: ParseCost[]; loading: ParseCost }> {
  const { Parser } = require(STOCK_PARSER) as { Parser: new () => StockParser };
  const stock = new Parser();
  const { parseBigQuery } = (await import(new URL('sql/parse/parse.js', DIST).href)) as ParseModule;
  const stockParse = (sql: string) => stock.astify(sql, { database: 'bigquery', parseOptions: { includeLocations: true } });
  const readsBoth = (sql: string) => {
    try {
      stockParse(sql);
      parseBigQuery(sql);
      return true;
    } catch {
      return false;
    }
  };
  const corpus = sqlCorpus(ROOT).filter((entry) => readsBoth(entry.sql));
  const sets = [
    { name: 'shipped endpoints', sql: corpus.filter((entry) => entry.origin.startsWith('endpoints/')).map((entry) => entry.sql) },
    { name: 'repository corpus', sql: corpus.map((entry) => entry.sql) },
    // Each level made the stock grammar parse the inner ones twice (docs/sql-parser.md).
    { name: 'eight nested CASTs', sql: [`select ${'cast('.repeat(8)}x${' as string)'.repeat(8)} from t`] },
    // The same, twice per level, for scalar subqueries (patch 14).
    { name: 'scalar subqueries nested 8 deep', sql: [`${'select ('.repeat(8)}select 1 as x${') as x'.repeat(8)}`] },
  ];
  const parsing = sets.map(({ name, sql }) => ({ name, statements: sql.length, ...pairedRounds(() => sql.map(stockParse), () => sql.map(parseBigQuery)) }));
  return { parsing, loading: measureLoading() };
}

/**
 * Each round times one pass of the stock parser and one of cannery's, back to back, so background
 * load falls on both alike: the best pass of each, and the median of the rounds' ratios.
 */
function pairedRounds(stock: () => unknown, cannery: () => unknown): Omit<ParseCost, 'name' | 'statements'> {
  const time = (work: () => unknown) => {
    const started = performance.now();
    work();
    return performance.now() - started;
  };
  for (let warm = 0; warm < 5; warm += 1) {
    time(stock);
    time(cannery);
  }
  let stockMs = Infinity;
  let canneryMs = Infinity;
  const ratios: number[] = [];
  for (let round = 0; round < PARSE_ROUNDS; round += 1) {
    const stockRound = time(stock);
    const canneryRound = time(cannery);
    stockMs = Math.min(stockMs, stockRound);
    canneryMs = Math.min(canneryMs, canneryRound);
    ratios.push(canneryRound / stockRound);
  }
  return { stockMs, canneryMs, pairedRatio: median(ratios) };
}

/** Milliseconds to import each parser into a fresh node process, the median of interleaved runs. */
function measureLoading(): ParseCost {
  const stockRuns: number[] = [];
  const canneryRuns: number[] = [];
  for (let run = 0; run < LOAD_RUNS; run += 1) {
    stockRuns.push(loadMs(STOCK_PARSER));
    canneryRuns.push(loadMs(fileURLToPath(GRAMMAR)));
  }
  const ratios = stockRuns.map((stock, run) => canneryRuns[run]! / stock);
  return { name: 'loading the parser (fresh process)', statements: 0, stockMs: median(stockRuns), canneryMs: median(canneryRuns), pairedRatio: median(ratios) };
}

function loadMs(path: string): number {
  const script = `const t = performance.now(); await import(${JSON.stringify(path)}); console.log(performance.now() - t);`;
  return Number(execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' }).trim());
}

function report({ parsing, loading }: Awaited<ReturnType<typeof measureParsing>>): string {
  const machine = describeMachine();
  const row = (cost: ParseCost, unit: string) => [
    cost.name,
    cost.statements ? String(cost.statements) : '',
    `${cost.stockMs.toFixed(2)} ${unit}`,
    `${cost.canneryMs.toFixed(2)} ${unit}`,
    (cost.canneryMs / cost.stockMs).toFixed(2),
    cost.pairedRatio.toFixed(2),
  ];
  return [
    `Parse time, node-sql-parser 5.4.0 (stock) against cannery's patched grammar, ${machine.date}, ${machine.cpu}, node ${machine.node}, load ${machine.load}.`,
    `Parsing: milliseconds per pass over the set, the best of ${PARSE_ROUNDS} paired rounds. Loading: median of ${LOAD_RUNS} fresh processes each.`,
    '',
    markdownTable(['work', 'statements', 'stock', 'cannery', 'cannery / stock', 'paired ratio'], [...parsing.map((cost) => row(cost, 'ms')), row(loading, 'ms')]),
  ].join('\n');
}

if (isMain(import.meta.url)) console.log(report(await measureParsing()));
