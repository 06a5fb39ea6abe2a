/**
 * `npm run bench:peers`: only the peer comparison of `npm run bench` (bench/peers.ts), at each size,
 * printed as markdown: the figures, each question's growth from one size to the next, and the
 * issue's targets met or missed. `npm run bench` runs it too, beside everything else.
 *
 *   npm run bench:peers [-- --sizes 1m,10m --samples 15 --no-postgres --no-imports --db FILE[,FILE]]
 *
 * `--db` asks about databases `cannery seed` already wrote, one per size named by --sizes (in the
 * same order), each as of the time its file was last written (copy one with `cp -p`), instead of
 * seeding them. `cannery serve` serves the file read-only, beside the benchmark's own reader.
 */
import { statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { growthTable, peerTable, runPeersReporting, verdictTable, type PeerRun } from './peers.js';
import { describeMachine, parseSize, seed } from './support.js';

const progress = (message: string) => console.error(`bench: ${message}`);

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      sizes: { type: 'string', default: '1m,10m' },
      samples: { type: 'string', default: '15' },
      'no-postgres': { type: 'boolean', default: false },
      'no-imports': { type: 'boolean', default: false },
      db: { type: 'string' },
    },
  });
  const machine = describeMachine();
  const dir = await mkdtemp(join(tmpdir(), 'cannery-peers-'));
  try {
    const sizes = values.sizes!.split(',').map(parseSize);
    const files = values.db?.split(',');
    if (files && files.length !== sizes.length) throw new Error(`--db names ${files.length} files for ${sizes.length} sizes (--sizes ${values.sizes})`);
    const runs: PeerRun[] = [];
    for (const [index, size] of sizes.entries()) {
      const given = files?.[index];
      const db = given ?? join(dir, `${size.label}.duckdb`);
      if (!given) {
        progress(`seeding ${size.edgeEvents.toLocaleString('en-US')} edge events`);
        seed(db, size.edgeEvents);
      }
      const now = given ? statSync(given).mtime : new Date();
      const run = await runPeersReporting(db, size.label, { dir, now, postgres: !values['no-postgres'], imports: !values['no-imports'], maxSamples: Number(values.samples), progress });
      runs.push(run);
      // A long run cut short still leaves the sizes it finished.
      progress(`${size.label} done:\n${peerTable([run]).join('\n')}\n${verdictTable([run]).join('\n')}`);
      if (!given) await rm(db, { force: true });
    }
    const growth = growthTable(runs);
    console.log(
      [
        `Measured on ${machine.date}; load average (1 min) ${machine.load} -> ${describeMachine().load}, ${machine.cores} cores, ${machine.cpu}.`,
        '',
        ...peerTable(runs),
        ...(growth.length > 0 ? ['', 'Growth of the p50 from one size to the next:', '', ...growth] : []),
        '',
        "The targets (issue 40's are at 10M):",
        '',
        ...verdictTable(runs),
      ].join('\n'),
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
