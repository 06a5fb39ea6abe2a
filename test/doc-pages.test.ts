/**
 * How the docs tier reads a page (test/support/doc-pages.ts, docs/development.md "Docs tested like
 * code"): blocks and their marks, transcripts against scripts, and the masks a reader can see.
 */
import { describe, expect, it } from 'vitest';
import { masked, outputMatches, readBlocks, readCommands, shownOutput } from './support/doc-pages.js';

const PAGE = [
  'Some prose.',
  '',
  '<!-- setup: cannery seed --db data/cannery.duckdb --events 2000 -->',
  '<!-- not-run: needs BigQuery credentials -->',
  '```sh',
  'export CANNERY_BACKEND=bigquery   # a comment',
  '',
  'npx cannery serve',
  '```',
  '',
  '<!-- file: endpoints/x.yaml -->',
  '<!-- check: fails -->',
  '```yaml',
  'name: x',
  '```',
  '',
  '1. In a list:',
  '',
  '   ```console',
  '   $ curl -G http://127.0.0.1:4000/x \\',
  '       --data-urlencode a=b',
  '   {"result":[]}',
  '   $ npx cannery check',
  '   ok',
  '',
  '   ```',
].join('\n');

describe('reading a page', () => {
  it('finds each fenced block with its language, its line and the marks right above it', () => {
    const [script, yaml, transcript] = readBlocks(PAGE);
    expect(script).toMatchObject({ lang: 'sh', line: 5, notRun: 'needs BigQuery credentials', setup: ['cannery seed --db data/cannery.duckdb --events 2000'] });
    expect(yaml).toMatchObject({ lang: 'yaml', file: 'endpoints/x.yaml', mustFail: true, body: ['name: x'] });
    expect(transcript).toMatchObject({ lang: 'console', indent: '   ', setup: [] });
    expect(transcript!.notRun).toBeUndefined();
  });

  it('a script: every line a command, comments and blank lines skipped, no output to compare', () => {
    const commands = readCommands(readBlocks(PAGE)[0]!);
    expect(commands.map((command) => [command.text, command.output])).toEqual([
      ['export CANNERY_BACKEND=bigquery   # a comment', undefined],
      ['npx cannery serve', undefined],
    ]);
  });

  it('a transcript: `$ ` lines with their `\\` continuations are commands, the lines up to the next their output', () => {
    const commands = readCommands(readBlocks(PAGE)[2]!);
    expect(commands.map((command) => [command.text, command.output])).toEqual([
      ['curl -G http://127.0.0.1:4000/x \\\n    --data-urlencode a=b', ['{"result":[]}']],
      ['npx cannery check', ['ok']],
    ]);
  });
});

describe('comparing an output', () => {
  it('masks ids, tokens, digests, keys, wall-clock times, durations and process ids, and nothing else', () => {
    expect(masked('import 336b2933-9db7-4d1b-a193-c9ab86783058 at 2026-11-28T13:38:38.902Z (2 events) in 2.6 s')).toBe('import <uuid> at <time> (2 events) in <duration>');
    expect(masked('a key without a digit: cWPrtFSWe-eQ_TeFqUdPlKjH')).toBe('a key without a digit: <key>');
    expect(masked('key: ytzoJWhP-5HjZUWsqH-Hp54L sha256: 60a885b61e50d79b262ad6739acb5bc88a74de2370e1f2c6dc7dd4aa9ae3f2b6')).toBe('key: <key> sha256: <sha256>');
    expect(masked('eyJhbGciOiJIUzI1NiJ9.eyJuYW1lIjoieCJ9.ybXYyU-VbbCG-8PA (PID 4242) {"duration_ms":110.751}')).toBe('<token> (PID <pid>) {"duration_ms":<duration>}');
    // A project, a bucket's time and a count are the answer: compared as they are.
    const answer = '{"timestamp":"2026-11-27T14:00:00","project":"qzvmkdwtrjxhbnpalcoe","total_rest_requests":398,"timestamp":1795792761338036}';
    expect(masked(answer)).toBe(answer);
  });

  it('matches masked lines one for one; a line `...` stands for any number of lines', () => {
    expect(outputMatches(['seeded 3,500 events in 2.3 s'], ['seeded 3,500 events in 41.0 s'])).toBe(true);
    expect(outputMatches(['seeded 3,500 events in 2.3 s'], ['seeded 3,501 events in 2.3 s'])).toBe(false);
    expect(outputMatches(['a', '...', 'z'], ['a', 'b', 'c', 'z'])).toBe(true);
    expect(outputMatches(['a', '...', 'z'], ['a', 'z'])).toBe(true);
    expect(outputMatches(['a', '  ...', 'z'], ['a', '  b', 'z'])).toBe(true);
    expect(outputMatches(['a', '...', 'z'], ['a', 'b'])).toBe(false);
    expect(outputMatches(['a'], ['a', 'b'])).toBe(false);
  });

  it("shows the run's output as the page would: port 4000, no progress lines, no trailing blanks", () => {
    const run = 'cannery: serving on http://127.0.0.1:41234 (duckdb)\nseeding [#####---]  68% 60,000/87,500 events\ndone  \n\n';
    expect(shownOutput(run, 41234)).toEqual(['cannery: serving on http://127.0.0.1:4000 (duckdb)', 'done']);
    // A second server's port is the page's 4001.
    expect(shownOutput('http://127.0.0.1:41234 and http://127.0.0.1:41299', 41234, 41299)).toEqual(['http://127.0.0.1:4000 and http://127.0.0.1:4001']);
  });
});
