/**
 * What heavy sandbox SQL costs every other request: `/health` latency (p50, p99, max) while three
 * heavy queries compile at once, against `/health` on the same idle server in the same run. The
 * queries are the hostile shapes of issue 15: 2,000 UNION ALLs, a 9,000-item IN list, and scalar
 * subqueries nested 17 deep (parsed in time exponential in the depth). Compiling runs on worker
 * threads, so /health should not wait on them.
 *
 *   npm run bench:sandbox-compile [-- --rounds 3]
 *
 * The built CLI seeds a small DuckDB file and serves it (dist/, compiled by tsconfig.bench.json).
 */
import { parseArgs } from 'node:util';
import { describeMachine, healthWhile, markdownTable, ms, percentile, sandboxQuery, withSeededServer } from './support.js';

/** STRING_AGG calls nested through scalar subqueries: the grammar parses them in time exponential in the depth. */
function nestedAggregates(depth: number): string {
  let sql = "'a'";
  for (let level = 0; level < depth; level++) sql = `string_agg((select ${sql}), ',')`;
  return `select ${sql} as x`;
}

const HEAVY: Record<string, string> = {
  '2,000 UNION ALLs': Array.from({ length: 2000 }, (_, i) => `select ${i} as n`).join(' union all '),
  '9,000-item IN list': `select id from edge_logs where id in (${Array.from({ length: 9000 }, (_, i) => `'${i}'`).join(', ')})`,
  'STRING_AGGs nested 9 deep': nestedAggregates(9),
};

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { rounds: { type: 'string', default: '3' } } });
  await withSeededServer('cannery-bench-compile-', 5_000, { env: { CANNERY_LOG_LEVEL: 'warn' } }, async (served) => {
    const idle: number[] = [];
    const busy: number[] = [];
    const statuses: number[] = [];
    const started = performance.now();
    for (let round = 0; round < Number(values.rounds); round++) {
      idle.push(...(await healthWhile(served.url, 200)));
      // A different literal each round: a cached answer would not be compiled again.
      const queries = Promise.all(Object.values(HEAVY).map((sql) => sandboxQuery(served.url, `${sql} -- ${round}`)));
      const [answers, latencies] = await Promise.all([queries, healthWhile(served.url, queries)]);
      statuses.push(...answers);
      busy.push(...latencies);
    }
    const row = (label: string, list: number[]) => [label, String(list.length), ms(percentile(list, 50)), ms(percentile(list, 99)), ms(Math.max(...list))];
    const machine = describeMachine();
    console.log(
      [
        `Measured on ${machine.date}, ${machine.cores} cores, load ${machine.load}; ${values.rounds} rounds in ${ms(performance.now() - started)}; heavy queries' statuses: ${[...new Set(statuses)].join(', ')}.`,
        '',
        markdownTable(['/health', 'requests', 'p50', 'p99', 'max'], [row('idle server', idle), row('while the three heavy queries compile', busy)]),
      ].join('\n'),
    );
  });
}

await main();
