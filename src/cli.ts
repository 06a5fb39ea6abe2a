#!/usr/bin/env node
/** `cannery <command>`: the commands of cli/command-table.ts. A thin shell over config, engine and backends. */
import { parseArgs } from 'node:util';
import { DatabaseBusy } from './backends/duckdb/lock.js';
import { UsageError } from './cli/command.js';
import { commandHelpText, commandLine, findCommand, usageText } from './cli/command-table.js';

/**
 * A reader that stops early (`cannery run ... | head -1`) closes the pipe, and node reports the
 * next write as an EPIPE error on the stream, which unhandled was a stack trace. The rest of the
 * output has no one to read it: it is dropped (after EPIPE the stream is destroyed, and a later
 * write fails ERR_STREAM_DESTROYED), and the command ends as it would have, with its exit code,
 * so a database it was writing is left as a finished command leaves it.
 */
const READER_GONE = new Set(['EPIPE', 'ERR_STREAM_DESTROYED']);
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (!READER_GONE.has(error.code ?? '')) throw error;
  });
}

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    console.log(usageText());
    return name === undefined ? 1 : 0;
  }
  const row = findCommand(name);
  if (!row) {
    console.error(`cannery: unknown command "${name}"\n\n${usageText()}`);
    return 1;
  }
  // Before the flags are parsed: `--help` is no flag of any command.
  if (rest.includes('--help') || rest.includes('-h')) {
    console.log(commandHelpText(row));
    return 0;
  }
  const command = await row.load();
  const { values, positionals } = parseArgs({ args: rest, options: command.options, allowPositionals: true, strict: true });
  return command.run(values as Record<string, string | boolean | undefined>, positionals);
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code !== -1) process.exitCode = code;
  },
  async (error: unknown) => {
    if (error instanceof UsageError) {
      const line = commandLine(findCommand(process.argv[2]!)!);
      console.error(`cannery: usage: ${line}${error.note === undefined ? '' : ` (${error.note})`}`);
    } else if (error instanceof DatabaseBusy) {
      const { databaseBusyText } = await import('./cli/database-busy.js');
      console.error(`cannery: ${databaseBusyText(error, process.argv[2]!)}`);
    } else {
      console.error(`cannery: ${error instanceof Error ? error.message : String(error)}`);
    }
    process.exitCode = 1;
  },
);
