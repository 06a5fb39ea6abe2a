/**
 * `npm run bench:peers`: only the peer comparison of `npm run bench` (bench/peers.ts), at each size,
 * printed as markdown. `npm run bench` runs it too, beside everything else.
 *
 *   npm run bench:peers [-- --sizes 1m,10m --samples 15 --no-postgres --no-imports --db FILE]
 *
 * `--db FILE` asks about a database `cannery seed` already wrote (one size, named by --sizes),
 * as of the time the file was last written, instead of seeding one.
 */
import { statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { peerTable, runPeersReporting, type PeerRun } from './peers.js';
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
    const runs: PeerRun[] = [];
    for (const size of values.sizes!.split(',').map(parseSize)) {
      const db = values.db ?? join(dir, `${size.label}.duckdb`);
      if (!values.db) {
        progress(`seeding ${size.edgeEvents.toLocaleString('en-US')} edge events`);
        seed(db, size.edgeEvents);
      }
      const now = values.db ? statSync(values.db).mtime : new Date();
      const run = await runPeersReporting(db, size.label, { dir, now, postgres: !values['no-postgres'], imports: !values['no-imports'], maxSamples: Number(values.samples), progress });
      runs.push(run);
      if (!values.db) await rm(db, { force: true });
    }
    console.log([`Measured on ${machine.date}; load average (1 min) ${machine.load} -> ${describeMachine().load}, ${machine.cores} cores.`, '', ...peerTable(runs)].join('\n'));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
