/** What every command is: its flags, and a run that returns an exit code (or -1 to keep running, for `serve`). */
import type { ParseArgsConfig } from 'node:util';

export type Flags = Record<string, string | boolean | undefined>;

export interface Command {
  options: NonNullable<ParseArgsConfig['options']>;
  run(flags: Flags, positionals: string[]): Promise<number>;
}
