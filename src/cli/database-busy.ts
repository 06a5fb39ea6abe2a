/**
 * What to tell the user when the database file is held by another process: which process, as
 * cannery knows it (a running `cannery serve`, an import), and what to do about it.
 */
import { readFileSync } from 'node:fs';
import type { DatabaseBusy } from '../backends/duckdb/lock.js';

/** The arguments `pid` was started with (Linux); none when they cannot be read. */
function commandLineOf(pid: number): string[] {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
  } catch {
    return [];
  }
}

/** `cannery serve` (or another command) when `pid` is cannery's CLI, from its command line (Linux); undefined otherwise. */
function canneryCommandOf(pid: number): string | undefined {
  const args = commandLineOf(pid);
  const cli = args.findIndex((arg) => /(^|[/\\])(cannery|cli\.js)$/.test(arg));
  const command = cli === -1 ? undefined : args[cli + 1];
  return command === undefined || command.startsWith('-') ? undefined : `cannery ${command}`;
}

/** The message for `command`, which could not open the file `busy` names. */
export function databaseBusyText(busy: DatabaseBusy, command: string): string {
  const known = busy.holder === undefined ? undefined : canneryCommandOf(busy.holder);
  const pid = busy.holder === undefined ? '' : ` (PID ${busy.holder})`;
  // A serve that takes events (CANNERY_INGEST=true) holds the file for writing as long as it serves.
  if (busy.holderWrites && known === 'cannery serve' && !commandLineOf(busy.holder!).includes('--demo')) {
    return (
      `${busy.path} is held by \`cannery serve\`${pid}, which takes events while it serves (CANNERY_INGEST=true) and so holds it for writing: ` +
      'ask the server over HTTP instead, or start it without CANNERY_INGEST to serve the file read-only, beside other commands.'
    );
  }
  // `serve --demo` serves a file it writes: the demo's live events, for as long as it serves.
  if (busy.holderWrites && known === 'cannery serve') {
    return (
      `${busy.path} is held by \`cannery serve --demo\`${pid}, which writes live demo events to it while it serves: ` +
      'ask the server over HTTP instead, or start it with CANNERY_DEMO_LIVE=false to serve the demo data read-only, beside other commands.'
    );
  }
  if (busy.holderWrites) return `${busy.path} is being written by ${known ? `\`${known}\`` : 'another process'}${pid}: run this command again once that has finished.`;
  // Only a writer meets a reader's lock; serve keeps the file open for reading as long as it serves.
  const kill = busy.holder === undefined ? '' : `, or \`kill ${busy.holder}\``;
  if (known === 'cannery serve') {
    return (
      `${busy.path} is in use by \`cannery serve\`${pid}, which keeps it open for reading while it serves, and \`cannery ${command}\` must write to it: ` +
      `stop the server (Ctrl-C where it runs${kill}), run this command again, then start the server again; it serves what was written.` +
      // A server that takes events takes files too: nothing need stop (docs/ingest.md).
      (command === 'import' ? ' Or serve with CANNERY_INGEST=true: `cannery import` then hands its file to the running server, which loads it while it serves.' : '')
    );
  }
  const holder = known ? `\`${known}\`` : 'another process';
  return `${busy.path} is open for reading in ${holder}${pid}, and \`cannery ${command}\` must write to it: run this command again once that has closed it.`;
}
