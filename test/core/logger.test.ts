/**
 * The stdout logger (src/core/logger.ts) gathers lines and writes them in batches. Run in a child
 * process, as `serve` runs it: every line must come out whole, in order, with its non-ASCII text
 * intact, across batch boundaries, for a line longer than a batch, and at exit.
 */
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

const LOGGER = new URL('../../dist/core/logger.js', import.meta.url).href;

/** What a child process that writes `count` lines, then exits, prints. */
function childOutput(script: string): string[] {
  const output = execFileSync(process.execPath, ['--input-type=module', '-e', `import { createLogger } from '${LOGGER}';\n${script}`], { encoding: 'utf8' });
  return output.split('\n');
}

describe('the stdout logger', () => {
  it('writes every line, whole and in order, across batches and at exit', () => {
    const lines = childOutput(`
      const logger = createLogger('info');
      const long = 'é'.repeat(40000);
      for (let index = 0; index < 3000; index++) {
        logger.write('info', '"n":' + index + ',"text":"' + (index % 500 === 7 ? long : 'ü€𝄞 ' + index) + '"');
      }
      logger.write('debug', '"n":-1');
    `);
    expect(lines.pop()).toBe('');
    expect(lines).toHaveLength(3000);
    for (const [index, line] of lines.entries()) {
      const parsed = JSON.parse(line) as { level: string; n: number; text: string; time: string };
      expect(parsed.n).toBe(index);
      expect(parsed.level).toBe('info');
      expect(parsed.text).toBe(index % 500 === 7 ? 'é'.repeat(40000) : `ü€𝄞 ${index}`);
      expect(Number.isNaN(Date.parse(parsed.time))).toBe(false);
    }
  });

  it('a line waits at most a moment: a process that lives on has written it', () => {
    const lines = childOutput(`
      const logger = createLogger('info');
      logger.write('warn', '"msg":"early"');
      setTimeout(() => { process.stdout.write('later\\n'); }, 300);
    `);
    expect(lines.slice(0, 2).map((line) => (line.startsWith('{') ? (JSON.parse(line) as { msg: string }).msg : line))).toEqual(['early', 'later']);
  });
});

describe('the log time', () => {
  it('reads as toISOString does, across milliseconds, seconds, days and a clock set back', async () => {
    const { isoClock } = (await import(LOGGER)) as typeof import('../../src/core/logger.js');
    const start = Date.parse('2026-12-31T23:59:58.990Z');
    const times = [start, start, start + 5, start + 10, start + 99, start + 100, start + 1009, start + 1010, start + 2000, start - 86_400_000, start + 2001];
    for (let step = 0; step < 2000; step += 37) times.push(start + step * 13);
    let now = 0;
    const clock = isoClock(() => now);
    for (const time of times) {
      now = time;
      expect(clock()).toBe(new Date(time).toISOString());
    }
  });
});
