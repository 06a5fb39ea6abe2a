/** The CLI's commands; each returns an exit code (or -1 to keep running, for `serve`). */
import type { ParseArgsConfig } from 'node:util';
import { checkCommand } from './check.js';
import { compactCommand } from './compact.js';
import { describeCommand } from './describe.js';
import { diffCommand } from './diff.js';
import { importCommand } from './import.js';
import { newCommand } from './new.js';
import { openapiCommand } from './openapi.js';
import { runCommand } from './run.js';
import { seedCommand } from './seed.js';
import { serveCommand } from './serve.js';
import { testCommand } from './test.js';

export type Flags = Record<string, string | boolean | undefined>;

export interface Command {
  options: NonNullable<ParseArgsConfig['options']>;
  run(flags: Flags, positionals: string[]): Promise<number>;
}

export const commands: Record<string, Command> = {
  serve: serveCommand,
  check: checkCommand,
  run: runCommand,
  import: importCommand,
  compact: compactCommand,
  seed: seedCommand,
  openapi: openapiCommand,
  test: testCommand,
  describe: describeCommand,
  diff: diffCommand,
  new: newCommand,
};
