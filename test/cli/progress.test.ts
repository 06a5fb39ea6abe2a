import { describe, expect, it } from 'vitest';
import { describeProgress, formatDuration, progressReporter, renderProgressBar } from '../../src/cli/progress.js';

/** A stream that records what is written, and a clock the test moves. */
function recorder(isTTY: boolean) {
  const written: string[] = [];
  let time = 0;
  return { written, stream: { isTTY, write: (text: string) => written.push(text) }, now: () => time, advance: (ms: number) => (time += ms) };
}

describe('progress', () => {
  it('renders a bar, durations and the figures of a load', () => {
    expect(renderProgressBar(0, 10)).toBe('[----------]   0%');
    expect(renderProgressBar(0.25, 10)).toBe('[###-------]  25%');
    expect(renderProgressBar(1, 10)).toBe('[##########] 100%');
    expect([formatDuration(7), formatDuration(245), formatDuration(3723)]).toEqual(['0:07', '4:05', '1:02:03']);
    // An import of a file: bytes against its size decide the time left.
    expect(describeProgress({ events: 40_000, bytes: 100 * 2 ** 20, totalBytes: 400 * 2 ** 20 }, 10_000)).toBe('40,000 events, 100 MiB of 400 MiB, 4,000 events/s, ETA 0:30');
    // From a pipe the size is unknown: no time left.
    expect(describeProgress({ events: 1_500, bytes: 3 * 2 ** 20 }, 2_000)).toBe('1,500 events, 3.0 MiB, 750 events/s');
    // A seed knows how many events there will be.
    expect(describeProgress({ events: 50_000, totalEvents: 175_000 }, 5_000)).toBe('50,000/175,000 events, 10,000 events/s, ETA 0:13');
  });

  it('redraws one line on a terminal, at most every 100 ms, and ends it when done', () => {
    const { written, stream, now, advance } = recorder(true);
    const progress = progressReporter('seeding', stream, { width: 4, now });
    advance(1_000);
    progress.update({ events: 1, totalEvents: 2 });
    advance(50);
    progress.update({ events: 1, totalEvents: 2 });
    advance(950);
    progress.update({ events: 2, totalEvents: 2 });
    progress.done();
    expect(written).toEqual([
      '\rseeding [##--]  50% 1/2 events, 1 events/s, ETA 0:01\u001b[K',
      '\rseeding [####] 100% 2/2 events, 1 events/s\u001b[K',
      '\rseeding [####] 100% 2/2 events, 1 events/s\u001b[K',
      '\n',
    ]);
  });

  it('writes a plain line now and then elsewhere, and nothing for a short load', () => {
    const short = recorder(false);
    const quick = progressReporter('importing', short.stream, { now: short.now });
    short.advance(3_000);
    quick.update({ events: 10, bytes: 2048 });
    quick.done();
    expect(short.written).toEqual([]);

    const long = recorder(false);
    const slow = progressReporter('importing', long.stream, { now: long.now, plainEveryMs: 10_000 });
    for (let second = 1; second <= 25; second += 1) {
      long.advance(1_000);
      slow.update({ events: second * 1_000, bytes: second * 2 ** 20, totalBytes: 25 * 2 ** 20 });
    }
    slow.done();
    expect(long.written).toEqual([
      'importing [############------------------]  40% 10,000 events, 10.0 MiB of 25.0 MiB, 1,000 events/s, ETA 0:15\n',
      'importing [########################------]  80% 20,000 events, 20.0 MiB of 25.0 MiB, 1,000 events/s, ETA 0:05\n',
    ]);
  });
});
