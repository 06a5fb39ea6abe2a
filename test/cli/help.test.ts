/**
 * Help from one table: `cannery --help`, `cannery <command> --help`, a command's usage error and
 * docs/settings.md's command list all come from cli/command-table.ts, whose synopses name exactly
 * the flags each command parses. `npm run docs:update` (DOCS_UPDATE=1) writes the list.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { commandLine, commandListText, commandTable, findCommand, usageText } from '../../src/cli/command-table.js';
import { cannery } from '../support/cannery-cli.js';

const SETTINGS = fileURLToPath(new URL('../../docs/settings.md', import.meta.url));
const LIST = /(<!-- commands:[^\n]*-->\n```\n)([\s\S]*?)(\n```\n<!-- \/commands -->)/;

describe('help from the command table', () => {
  it("docs/settings.md's command list is the table's (npm run docs:update writes it)", () => {
    const page = readFileSync(SETTINGS, 'utf8');
    expect(page).toMatch(LIST);
    if (process.env.DOCS_UPDATE === '1') writeFileSync(SETTINGS, page.replace(LIST, (_, open: string, _list: string, close: string) => open + commandListText() + close));
    const list = LIST.exec(readFileSync(SETTINGS, 'utf8'))![2];
    expect(list).toBe(commandListText());
    expect(list!.split('\n').map((line) => line.split(/\s+/)[1])).toEqual(commandTable.map((row) => row.name));
  });

  it('`cannery --help` prints every command of the table, with its synopsis and what it does', async () => {
    const run = await cannery(['--help']);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(`${usageText()}\n`);
    for (const row of commandTable) {
      expect(run.stdout).toContain(`  ${row.name.padEnd(8)} ${row.synopsis}`.trimEnd());
      for (const line of row.summary) expect(run.stdout).toContain(line);
    }
  });

  it('`cannery <command> --help` prints its row and exits 0, whatever else is on the line', async () => {
    const runs = await Promise.all(commandTable.map((row) => cannery([row.name, ...(row.name === 'run' ? ['logs.all', '--help'] : ['--help'])])));
    runs.forEach((run, index) => {
      const row = commandTable[index]!;
      expect(run.code, row.name).toBe(0);
      expect(run.stdout).toBe(`${`usage: cannery ${row.name} ${row.synopsis}`.trimEnd()}\n\n${row.summary.join('\n')}\n\nsettings come from the environment too; see docs/settings.md.\n`);
    });
  });

  // The flags are the command's own (its parseArgs options); the table says them again for help,
  // and --sources on check, test, describe and openapi, and sources list's --endpoints, were
  // accepted and never shown.
  it("each synopsis names exactly the flags its command parses, and brackets the ones it can do without", async () => {
    for (const row of commandTable) {
      const { options } = await row.load();
      const shown = [...row.synopsis.matchAll(/--([a-z0-9-]+)/g)].map((match) => match[1]);
      expect([...new Set(shown)].sort(), row.name).toEqual(Object.keys(options).sort());
    }
    // --db defaults to ./data/cannery.duckdb (CANNERY_DB) for every command that takes it.
    for (const row of commandTable) expect(row.synopsis, row.name).not.toMatch(/(^|[^[])--db\b/);
  });

  it('a command called wrongly answers with its line of the table, and exits 1', async () => {
    const calls: [string[], string][] = [
      [['describe'], ''],
      [['run'], ''],
      [['new'], ''],
      [['init', 'extra'], ' (in the folder that is to hold endpoints/)'],
      [['token', 'extra'], ''],
      [['keys', 'old', 'x'], ''],
      [['sources', 'list', 'extra'], ''],
      [['sources', 'rename', 'a'], ' (unknown subcommand "rename")'],
    ];
    const runs = await Promise.all(calls.map(([args]) => cannery(args)));
    runs.forEach((run, index) => {
      const [args, note] = calls[index]!;
      expect(run.stderr, args.join(' ')).toBe(`cannery: usage: ${commandLine(findCommand(args[0]!)!)}${note}\n`);
      expect(run.code).toBe(1);
    });
  });
});
