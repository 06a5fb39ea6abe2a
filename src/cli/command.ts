/** What every command is: its flags, and a run that returns an exit code (or -1 to keep running, for `serve`). */
import type { ParseArgsConfig } from 'node:util';

export type Flags = Record<string, string | boolean | undefined>;

export interface Command {
  options: NonNullable<ParseArgsConfig['options']>;
  run(flags: Flags, positionals: string[]): Promise<number>;
}

/**
 * A command called with arguments it cannot take. The usage line it answers with is its row's in
 * the command table (cli.ts prints it), so it is the line `--help` and docs/settings.md show; a
 * command cannot import the table, which loads it. `note` says what was wrong, where the line
 * alone does not.
 */
export class UsageError extends Error {
  constructor(readonly note?: string) {
    super(note ?? 'usage');
  }
}
