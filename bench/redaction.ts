/**
 * What PII redaction adds to a request: `redactRows` over 1000 rows of `logs.all` on seeded demo
 * data, against `JSON.stringify` of the same rows (which every response pays), both measured in
 * this run. The rows are real: the built CLI seeds a DuckDB file and serves it, and ten
 * consecutive 100-row pages of the shipped logs.all (its final selection stops at 100) come over
 * HTTP. Like bench/cache-hits.ts it runs the built code (dist/), compiled by tsconfig.bench.json.
 *
 *   npm run bench:redaction
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { API_KEY, CLI, DEMO_PROJECT, DIST, isMain, SHIPPED_ENDPOINTS as ENDPOINTS } from './support.js';

const EDGE_EVENTS = '40000';
const PAGES = 10;

type Value = string | number | boolean | null | Value[] | { [key: string]: Value };
type Row = Record<string, Value>;

/** The built src/engine/serve/redact.ts (this file compiles on its own, so it is imported by URL). */
interface RedactModule {
  REDACTED: string;
  redactString(text: string): string;
  redactValue(value: Value): Value;
}

/**
 * Milliseconds per call of each of `work`, the best of `rounds` rounds. The rounds interleave the
 * candidates, so background load (other processes on a shared machine) falls on all of them
 * alike, and the best round is the one least disturbed by it.
 */
function measure(work: Record<string, () => unknown>, rounds = 60, callsPerRound = 5): Record<string, number> {
  const best: Record<string, number> = {};
  for (let round = 0; round < rounds; round += 1) {
    for (const [name, run] of Object.entries(work)) {
      const started = performance.now();
      for (let i = 0; i < callsPerRound; i += 1) keep(run());
      best[name] = Math.min(best[name] ?? Infinity, (performance.now() - started) / callsPerRound);
    }
  }
  return best;
}

/** Holds on to results so the JIT cannot drop the work that made them. */
let kept: unknown;
function keep(value: unknown): void {
  kept = value;
}

/** `cannery serve` on `dbPath`; resolves with its URL once it listens. */
function serve(dbPath: string): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [CLI, 'serve', '--db', dbPath, '--endpoints', ENDPOINTS, '--port', '0'], {
    env: { PATH: process.env.PATH ?? '', CANNERY_API_KEYS: API_KEY },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let output = '';
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      output += chunk;
      const url = /on (http:\/\/\S+)/.exec(output)?.[1];
      if (url) resolve({ url, child });
    });
    child.on('exit', (code) => reject(new Error(`cannery serve exited with ${code}:\n${output}`)));
  });
}

/** Microseconds -> the ISO form logs.all's time bounds take. */
function isoMicros(micros: number): string {
  const seconds = new Date(Math.floor(micros / 1000)).toISOString().slice(0, 19);
  return `${seconds}.${String(micros % 1_000_000).padStart(6, '0')}Z`;
}

/** Ten consecutive pages of logs.all, newest first, and the time the requests took. */
async function fetchRows(url: string): Promise<{ rows: Row[]; requestMs: number }> {
  const rows: Row[] = [];
  let requestMs = 0;
  let end: string | undefined;
  for (let page = 0; page < PAGES; page += 1) {
    const query = new URLSearchParams({ project: DEMO_PROJECT, ...(end ? { iso_timestamp_end: end } : {}) });
    const started = performance.now();
    const response = await fetch(`${url}/api/endpoints/query/logs.all?${query}`, { headers: { 'x-api-key': API_KEY } });
    const body = (await response.json()) as { result: Row[] };
    requestMs += performance.now() - started;
    if (response.status !== 200) throw new Error(`logs.all answered ${response.status}: ${JSON.stringify(body)}`);
    rows.push(...body.result);
    end = isoMicros((body.result.at(-1)!.timestamp as number) - 1);
  }
  return { rows, requestMs };
}

function countStrings(value: Value, redactString: (text: string) => string, counts: { strings: number; redacted: number }): void {
  if (typeof value === 'string') {
    counts.strings += 1;
    if (redactString(value) !== value) counts.redacted += 1;
  } else if (Array.isArray(value)) {
    for (const item of value) countStrings(item, redactString, counts);
  } else if (value !== null && typeof value === 'object') {
    for (const item of Object.values(value)) countStrings(item, redactString, counts);
  }
}

export interface RedactionCost {
  rows: number;
  kib: number;
  strings: number;
  redacted: number;
  /** Milliseconds per 1000 rows. */
  stringifyMs: number;
  redactMs: number;
  cleanMs: number;
  requestMs: number;
}

export async function measureRedaction(): Promise<RedactionCost> {
  const { redactValue, redactString, REDACTED } = (await import(new URL('engine/serve/redact.js', DIST).href)) as RedactModule;
  const redactRows = (page: Row[]) => redactValue(page) as Row[];
  const dir = await mkdtemp(join(tmpdir(), 'cannery-bench-'));
  let server: ChildProcess | undefined;
  try {
    const dbPath = join(dir, 'bench.duckdb');
    execFileSync(process.execPath, [CLI, 'seed', '--db', dbPath, '--events', EDGE_EVENTS], { stdio: 'ignore' });
    const served = await serve(dbPath);
    server = served.child;
    const { rows, requestMs } = await fetchRows(served.url);

    const perThousand = 1000 / rows.length;
    const counts = { strings: 0, redacted: 0 };
    for (const row of rows) countStrings(row, redactString, counts);
    const redacted = redactRows(rows);
    if (JSON.stringify(redacted).split(REDACTED).length - 1 < counts.redacted) throw new Error('fewer REDACTED than strings with an address');
    if (redactRows(redacted) !== redacted) throw new Error('a page with nothing to redact was copied');

    const best = measure({
      stringify: () => JSON.stringify(rows),
      redact: () => redactRows(rows),
      // Nothing left to redact: no string is changed and nothing is copied.
      clean: () => redactRows(redacted),
    });
    return {
      rows: rows.length,
      kib: Buffer.byteLength(JSON.stringify(rows)) / 1024,
      ...counts,
      stringifyMs: best.stringify! * perThousand,
      redactMs: best.redact! * perThousand,
      cleanMs: best.clean! * perThousand,
      requestMs: requestMs * perThousand,
    };
  } finally {
    server?.kill();
    await rm(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const cost = await measureRedaction();
  const ms = (value: number) => `${value.toFixed(3).padStart(8)} ms`;
  const ratio = (value: number) => `${(value / cost.stringifyMs).toFixed(2)}x JSON.stringify`;
  console.log(`cannery bench: PII redaction (node ${process.version})`);
  console.log(`  rows: ${cost.rows} of logs.all on seeded demo data (${PAGES} pages of 100), ${cost.kib.toFixed(0)} KiB of JSON`);
  console.log(`  strings: ${cost.strings} (${(cost.strings / cost.rows).toFixed(1)} a row), ${cost.redacted} of them hold an address`);
  console.log('  per 1000 rows:');
  console.log(`    JSON.stringify (baseline)        ${ms(cost.stringifyMs)}`);
  console.log(`    redactRows                       ${ms(cost.redactMs)}  = ${ratio(cost.redactMs)}`);
  console.log(`    redactRows, nothing to redact    ${ms(cost.cleanMs)}  = ${ratio(cost.cleanMs)}`);
  console.log(`    the requests themselves          ${ms(cost.requestMs)}  (for scale: 10 GETs of logs.all)`);
}

if (isMain(import.meta.url)) await main();
