/**
 * Help from one table: `cannery --help`, `cannery <command> --help` and docs/settings.md's command
 * list all come from cli/command-table.ts. `npm run docs:update` (DOCS_UPDATE=1) writes the list.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { commandListText, commandTable, usageText } from '../../src/cli/command-table.js';
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
});
