/**
 * Where a running `cannery serve` answers, kept beside the database file it serves, so a command
 * that finds the file held (`cannery run` beside `serve --demo`, which writes to it) can ask the
 * server instead. DuckDB names the process that holds the file; the record says where that process
 * listens. A server killed without its shutdown (SIGKILL, a crash) leaves its record behind, so a
 * record counts only when its process is the one holding the file and its URL answers /health.
 */
import { readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';

export interface ServerRecord {
  pid: number;
  /** The base URL, reachable from this machine (a wildcard listen address is recorded as loopback). */
  url: string;
  /** The endpoint folder it serves, absolute: an answer from another folder would be another endpoint's. */
  endpoints: string;
  /** The file its generated key is kept in (the demo's), when it has one: readable by who may read the database. */
  keyFile?: string;
}

export function serverRecordPath(dbPath: string): string {
  return `${dbPath}.serve.json`;
}

/** A URL this machine can connect to for a server listening on `url` (0.0.0.0 and :: are no destination). */
export function reachableUrl(url: string): string {
  return url.replace('//0.0.0.0:', '//127.0.0.1:').replace('//[::]:', '//[::1]:');
}

/**
 * Writes the record (whole, by rename, so a reader never sees half of it) and removes it when this
 * process exits, if it is still this process's: another `serve` on the same file may have written
 * its own since.
 */
export function keepServerRecord(dbPath: string, record: ServerRecord): void {
  const path = serverRecordPath(dbPath);
  const partial = `${path}.${record.pid}`;
  writeFileSync(partial, `${JSON.stringify(record)}\n`);
  renameSync(partial, path);
  process.once('exit', () => {
    try {
      if ((JSON.parse(readFileSync(path, 'utf8')) as ServerRecord).pid === record.pid) unlinkSync(path);
    } catch {
      // Already gone, or replaced by something unreadable: nothing of ours to remove.
    }
  });
}

/** How long a server is given to answer /health before it counts as not answering. */
const HEALTH_WAIT_MS = 2_000;

/**
 * The record of the server that holds `dbPath` as process `holder`, once it answers /health;
 * undefined when there is no record, it is another process's (a stale one), or nothing answers.
 */
export async function findHoldingServer(dbPath: string, holder: number | undefined): Promise<ServerRecord | undefined> {
  if (holder === undefined) return undefined;
  let record: ServerRecord;
  try {
    record = JSON.parse(await readFile(serverRecordPath(dbPath), 'utf8')) as ServerRecord;
  } catch {
    return undefined;
  }
  if (record.pid !== holder || typeof record.url !== 'string') return undefined;
  try {
    const response = await fetch(`${record.url}/health`, { signal: AbortSignal.timeout(HEALTH_WAIT_MS) });
    const health = (await response.json()) as { endpoints?: unknown };
    return response.status === 200 && Array.isArray(health.endpoints) ? record : undefined;
  } catch {
    return undefined;
  }
}
