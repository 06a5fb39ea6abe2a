/** The CLI's command table (command.ts says what a command is). */
import type { Command } from './command.js';

/**
 * Each command's module, loaded when that command runs: `check` never loads DuckDB, the HTTP
 * stack or the BigQuery client, and `serve` loads only what it serves with.
 */
export const commands: Record<string, () => Promise<Command>> = {
  serve: async () => (await import('./serve.js')).serveCommand,
  check: async () => (await import('./check.js')).checkCommand,
  run: async () => (await import('./run.js')).runCommand,
  import: async () => (await import('./import.js')).importCommand,
  compact: async () => (await import('./compact.js')).compactCommand,
  seed: async () => (await import('./seed.js')).seedCommand,
  openapi: async () => (await import('./openapi.js')).openapiCommand,
  test: async () => (await import('./test.js')).testCommand,
  describe: async () => (await import('./describe.js')).describeCommand,
  diff: async () => (await import('./diff.js')).diffCommand,
  new: async () => (await import('./new.js')).newCommand,
  keys: async () => (await import('./keys.js')).keysCommand,
  token: async () => (await import('./token.js')).tokenCommand,
  init: async () => (await import('./init.js')).initCommand,
};
