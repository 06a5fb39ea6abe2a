/**
 * Loaded into a measured child with `node --import`: at exit, writes the process's CPU time (user +
 * sys, every thread, DuckDB's included) and peak RSS to the file named by CANNERY_BENCH_RUSAGE.
 * The parent cannot read them after the child has gone, and /proc sampling misses the last peak.
 */
import { writeFileSync } from 'node:fs';

const target = process.env.CANNERY_BENCH_RUSAGE;
if (target) {
  process.on('exit', () => {
    const usage = process.resourceUsage();
    writeFileSync(target, JSON.stringify({ cpuSeconds: (usage.userCPUTime + usage.systemCPUTime) / 1e6, peakRss: usage.maxRSS * 1024 }));
  });
}
