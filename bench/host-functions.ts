/**
 * `/health` while sandbox queries that call host functions run (functions the embedded engine runs
 * in JavaScript on the event loop, docs/sql.md), against the same number of queries calling a
 * native function instead, in the same run: the cost the host-function gate keeps off `/health`.
 *
 *   npm run bench:host-functions [-- --events 50000 --concurrent 4 --rounds 3]
 *
 * The built CLI seeds a DuckDB file and serves it (dist/, compiled by tsconfig.bench.json).
 */
import { parseArgs } from 'node:util';
import { describeMachine, healthWhile, markdownTable, ms, percentile, sandboxQuery, withSeededServer } from './support.js';

/** The same scan and filter, through a host function (INITCAP) or DuckDB's own (UPPER of ASCII). */
const QUERIES = {
  'INITCAP (host function)': "select count(*) as n from edge_logs where initcap(event_message) != ''",
  'UPPER (native)': "select count(*) as n from edge_logs where upper(event_message) != ''",
};

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { events: { type: 'string', default: '50000' }, concurrent: { type: 'string', default: '4' }, rounds: { type: 'string', default: '3' } } });
  await withSeededServer('cannery-bench-host-', Number(values.events), { env: { CANNERY_LOG_LEVEL: 'warn' } }, async (served) => {
    const results = new Map(Object.keys(QUERIES).map((name) => [name, { health: [] as number[], walls: [] as number[], statuses: new Set<number>() }]));
    for (let round = 0; round < Number(values.rounds); round++) {
      // Taking turns, each round with new literals: a cached answer would not run again.
      for (const [name, sql] of Object.entries(QUERIES)) {
        const result = results.get(name)!;
        const started = performance.now();
        const queries = Promise.all(Array.from({ length: Number(values.concurrent) }, (_, index) => sandboxQuery(served.url, `${sql} -- ${round}.${index}`)));
        const [statuses, latencies] = await Promise.all([queries, healthWhile(served.url, queries)]);
        result.walls.push(performance.now() - started);
        result.health.push(...latencies);
        for (const status of statuses) result.statuses.add(status);
      }
    }
    const machine = describeMachine();
    const rows = [...results].map(([name, result]) => [
      name,
      [...result.statuses].join(', '),
      ms(percentile(result.walls, 50)),
      ms(percentile(result.health, 50)),
      ms(percentile(result.health, 99)),
      ms(Math.max(...result.health)),
    ]);
    console.log(
      [
        `Measured on ${machine.date}, ${machine.cores} cores, load ${machine.load}; ${values.events} edge events, ${values.concurrent} queries at once, ${values.rounds} rounds.`,
        '',
        markdownTable(['queries', 'statuses', 'all answered (p50)', '/health p50', '/health p99', '/health max'], rows),
      ].join('\n'),
    );
  });
}

await main();
