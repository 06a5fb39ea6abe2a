/**
 * `npm run bench`: cannery's figures on this machine, as markdown on stdout and in
 * bench/RESULTS.md (with the machine they were measured on). Each figure comes with the baseline
 * it is read against, measured in the same run:
 *
 * - uncached queries on DuckDB, at each data size: the service end to end over HTTP against the
 *   same compiled SQL run directly on DuckDB (bench/query-cost.ts); target service/DuckDB <= 1.15;
 * - scale: how each query's latency grows with the data (no worse than linear), and the serving
 *   process's peak RSS;
 * - cache hits against a bare h3 app sending the same bytes, one key and 1,000 interleaved (bench/cache-hits.ts);
 * - PII redaction against JSON.stringify of the same rows (bench/redaction.ts);
 * - start-up with 500 distinct endpoint files, cold and warm, against the shipped two (bench/startup.ts);
 * - cannery against ClickHouse (chDB) and Postgres on the same events, and after ten imports
 *   against one bulk seed (bench/peers.ts).
 *
 * Data is written by `cannery seed` into a temporary folder, removed at the end.
 *
 *   npm run bench [-- --sizes 1m,10m --samples 30 --cpu-prof DIR --no-peers --no-postgres --no-imports]
 *
 * `--sizes 1m` skips the 10M run (about three minutes of seeding on two cores). `--cpu-prof DIR`
 * has each serving process write a V8 CPU profile into DIR when it stops.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { measureCacheHits, TARGET_CPU_RATIO as CACHE_TARGET } from './cache-hits.js';
import { measureQueryCost, type CaseCost } from './query-cost.js';
import { peerTable, runPeersReporting, verdictTable, type PeerRun } from './peers.js';
import { measureRedaction } from './redaction.js';
import { measureStartup, startupTable, type StartupCost } from './startup.js';
import { describeMachine, markdownTable, mib, ms, parseSize, processMemory, seed, serve, SHIPPED_ENDPOINTS } from './support.js';

/** The cache-hit rounds of a full run (bench:cache alone runs more). */
const CACHE_HIT_RUN = { seconds: 5, rounds: 6, connections: 32, events: 50_000 };

const RESULTS = fileURLToPath(new URL('../../bench/RESULTS.md', import.meta.url));
const QUERY_TARGET = 1.15;
/** The service's DuckDB memory_limit (its default), given to the direct runs too. */
const MEMORY_LIMIT = '1GB';

interface SizeRun {
  label: string;
  edgeEvents: number;
  seedSeconds: number;
  costs: CaseCost[];
  peakRss: number;
}

const progress = (message: string) => console.error(`bench: ${message}`);

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      sizes: { type: 'string', default: '1m,10m' },
      samples: { type: 'string', default: '30' },
      'cpu-prof': { type: 'string' },
      'no-peers': { type: 'boolean', default: false },
      'no-postgres': { type: 'boolean', default: false },
      'no-imports': { type: 'boolean', default: false },
    },
  });
  const sizes = values.sizes!.split(',').map(parseSize);
  const maxSamples = Number(values.samples);
  const nodeArgs = values['cpu-prof'] ? ['--cpu-prof', '--cpu-prof-dir', values['cpu-prof']] : [];
  const machine = describeMachine();
  const dir = await mkdtemp(join(tmpdir(), 'cannery-bench-'));
  try {
    const runs: SizeRun[] = [];
    const peerRuns: PeerRun[] = [];
    let startup: { size: string; costs: StartupCost[] } | undefined;
    for (const [index, size] of sizes.entries()) {
      const db = join(dir, `${size.label}.duckdb`);
      progress(`seeding ${size.edgeEvents.toLocaleString('en-US')} edge events`);
      const seeded = performance.now();
      seed(db, size.edgeEvents);
      const seedSeconds = (performance.now() - seeded) / 1000;
      // The peers are asked about the week up to here, as the service would be.
      const seededAt = new Date();

      const served = await serve({ db, nodeArgs });
      let costs: CaseCost[];
      let peakRss: number;
      try {
        costs = await measureQueryCost({
          db,
          url: served.url,
          endpointsDir: SHIPPED_ENDPOINTS,
          maxSamples,
          minSamples: 7,
          budgetMs: 30_000,
          memoryLimit: MEMORY_LIMIT,
          onCase: (cost) => progress(`${size.label} ${cost.label}: service p50 ${ms(cost.service.p50)}, DuckDB p50 ${ms(cost.direct.p50)} (${cost.samples} samples)`),
        });
        peakRss = processMemory(served.child.pid!, 'VmHWM');
      } finally {
        await served.stop();
      }
      runs.push({ ...size, seedSeconds, costs, peakRss });
      if (index === 0) {
        progress(`start-up with 2 and 500 endpoint files (on the ${size.label} database)`);
        startup = { size: size.label, costs: (await measureStartup(db, dir, 5))[0]! };
      }
      if (!values['no-peers']) {
        const peers = await runPeersReporting(db, size.label, { dir, now: seededAt, postgres: !values['no-postgres'], imports: !values['no-imports'], maxSamples: Math.min(maxSamples, 15), progress });
        peerRuns.push(peers);
      }
      await rm(db, { force: true });
    }
    progress('cache hits');
    const cacheHits = await measureCacheHits(CACHE_HIT_RUN);
    progress('redaction');
    const redaction = await measureRedaction();

    const report = [
      '# cannery benchmarks',
      '',
      `Measured by \`npm run bench -- --sizes ${values.sizes} --samples ${maxSamples}\` on ${machine.date}.`,
      '',
      markdownTable(
        ['machine', ''],
        [
          ['CPU', machine.cpu],
          ['cores', String(machine.cores)],
          ['memory', machine.memory],
          ['node', machine.node],
          ['OS', machine.os],
          ['load average (1 min), start -> end', `${machine.load} -> ${describeMachine().load}`],
        ],
      ),
      '',
      '## Uncached queries on DuckDB',
      '',
      `The service end to end over HTTP (the built \`serve\`, loopback, each request its own cache key) against the same compiled SQL with the same values run directly on DuckDB in the benchmark's process, taking turns. Target: service/DuckDB <= ${QUERY_TARGET} at p50. The paired ratio is the median of each back-to-back pair's ratio: on a busy machine it is the steadier figure.`,
      '',
      markdownTable(
        ['data', 'query', 'rows', 'samples', 'service p50', 'service p95', 'DuckDB p50', 'DuckDB p95', 'ratio p50', 'ratio p95', 'paired ratio', `<= ${QUERY_TARGET}`],
        runs.flatMap((run) =>
          run.costs.map((cost) => {
            const ratio = cost.service.p50 / cost.direct.p50;
            return [
              run.label,
              cost.label,
              String(cost.rows),
              String(cost.samples),
              ms(cost.service.p50),
              ms(cost.service.p95),
              ms(cost.direct.p50),
              ms(cost.direct.p95),
              ratio.toFixed(2),
              (cost.service.p95 / cost.direct.p95).toFixed(2),
              cost.pairedRatio.toFixed(2),
              ratio <= QUERY_TARGET ? 'holds' : 'MISSED',
            ];
          }),
        ),
      ),
      '',
      ...scaleSection(runs),
      ...peerSection(peerRuns),
      '## Cache hits',
      '',
      `cannery's \`serve\` answering cache hits of usage.api-counts against a bare h3 app (same srvx and h3) sending the same bytes, one key again and again and 1,000 keys interleaved; autocannon on loopback, ${CACHE_HIT_RUN.connections} connections, ${CACHE_HIT_RUN.rounds} x ${CACHE_HIT_RUN.seconds} s per server, alternating; each ratio is the median of the paired rounds' ratios. Target: server CPU per request, cannery / bare h3, <= ${CACHE_TARGET}.`,
      '',
      markdownTable(
        ['case', 'body', 'cannery req/s', 'bare h3 req/s', 'cannery CPU/req', 'bare h3 CPU/req', 'CPU ratio (cannery/h3)', 'throughput ratio', `<= ${CACHE_TARGET}`],
        cacheHits.map((hit) => {
          const mean = (list: typeof hit.cannery, field: 'requestsPerSecond' | 'cpuMicrosPerRequest') => list.reduce((sum, item) => sum + item[field], 0) / list.length;
          return [
            hit.label,
            `${hit.bytes} B`,
            mean(hit.cannery, 'requestsPerSecond').toFixed(0),
            mean(hit.h3, 'requestsPerSecond').toFixed(0),
            `${mean(hit.cannery, 'cpuMicrosPerRequest').toFixed(1)} µs`,
            `${mean(hit.h3, 'cpuMicrosPerRequest').toFixed(1)} µs`,
            hit.cpuRatio.toFixed(2),
            hit.throughputRatio.toFixed(2),
            hit.cpuRatio <= CACHE_TARGET ? 'holds' : 'MISSED',
          ];
        }),
      ),
      '',
      '## PII redaction',
      '',
      `\`redactRows\` over ${redaction.rows} rows of logs.all (${redaction.kib.toFixed(0)} KiB of JSON, ${(redaction.strings / redaction.rows).toFixed(1)} strings a row, ${redaction.redacted} holding an address) against \`JSON.stringify\` of the same rows; best of 60 rounds, per 1000 rows.`,
      '',
      markdownTable(
        ['work', 'per 1000 rows', 'x JSON.stringify'],
        [
          ['JSON.stringify (baseline)', ms(redaction.stringifyMs), '1.00'],
          ['redactRows', ms(redaction.redactMs), (redaction.redactMs / redaction.stringifyMs).toFixed(2)],
          ['redactRows, nothing to redact', ms(redaction.cleanMs), (redaction.cleanMs / redaction.stringifyMs).toFixed(2)],
          ['the 10 logs.all requests themselves (scale)', ms(redaction.requestMs), (redaction.requestMs / redaction.stringifyMs).toFixed(1)],
        ],
      ),
      '',
      '## Start-up',
      '',
      `From spawning \`cannery serve\` to its first 200 on /health, on the ${startup!.size} database, and \`cannery check\` to its exit; median of ${startup!.costs[0]!.runs} runs each. The 500 files each have their own SQL (bench/startup.ts); cold is an empty compile cache, warm the one the cold run filled. Targets: 500 files warm under 1 s, cold under 2.5 s.`,
      '',
      startupTable(startup!.costs),
      '',
    ].join('\n');

    console.log(report);
    await writeFile(RESULTS, report);
    progress(`written to ${RESULTS}`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** cannery, cannery after ten imports, and its peers on the same events (bench/peers.ts). */
function peerSection(runs: readonly PeerRun[]): string[] {
  if (runs.length === 0) return [];
  return [
    '## Against peers',
    '',
    "The endpoints' questions on the same edge events, answers checked equal: `cannery serve` over HTTP with its cache off (and `/health` p99 on new connections while it answered, probes in parentheses), the endpoint's compiled SQL on the same file in the benchmark's process, the same events after ten `cannery import` runs of a tenth each in time order, ClickHouse through chDB (a flat MergeTree ordered by timestamp) and Postgres (metadata as JSONB, an index on timestamp; samples in parentheses). Medians, engines taking turns. The first five rows use a literal project ref, as callers send; the last three the `ref|nomatchN` alternation of the service benchmark, the worse case.",
    '',
    ...peerTable(runs),
    '',
    ...verdictTable(runs),
    '',
    markdownTable(
      ['data', 'ten `cannery import` runs'],
      runs.map((run) => [run.label, run.importSeconds === undefined ? 'not run' : `${run.importSeconds.toFixed(0)} s`]),
    ),
    '',
  ];
}

/** Growth of each query's p50 from the smallest size to each larger one, and peak RSS per size. */
function scaleSection(runs: SizeRun[]): string[] {
  const memory = markdownTable(
    ['data', 'events (all sources)', 'seeding', 'peak RSS of `serve`'],
    runs.map((run) => [run.label, `${run.edgeEvents.toLocaleString('en-US')} edge`, `${run.seedSeconds.toFixed(0)} s`, mib(run.peakRss)]),
  );
  const [base, ...larger] = runs;
  if (!base || larger.length === 0) return ['## Scale', '', 'One size only: no growth to report.', '', memory, ''];
  const rows = larger.flatMap((run) => {
    const dataGrowth = run.edgeEvents / base.edgeEvents;
    return run.costs.map((cost, index) => {
      const before = base.costs[index]!;
      const growth = cost.service.p50 / before.service.p50;
      return [
        `${cost.label}`,
        `${base.label} -> ${run.label} (${dataGrowth.toFixed(0)}x data)`,
        ms(before.service.p50),
        ms(cost.service.p50),
        `${growth.toFixed(1)}x`,
        `${(cost.direct.p50 / before.direct.p50).toFixed(1)}x`,
        growth <= dataGrowth ? 'holds' : 'MISSED',
      ];
    });
  });
  return [
    '## Scale',
    '',
    "Growth of p50 latency with the data; target: no worse than linear (growth <= the data's growth).",
    '',
    markdownTable(['query', 'data', 'service p50 before', 'service p50 after', 'service growth', 'DuckDB growth', '<= linear'], rows),
    '',
    memory,
    '',
  ];
}

await main();
