/**
 * The folder an import stages its batches in, and making sure it does not outlive the import.
 *
 * Removed when the import ends, however it ends: in `finally`, and on process exit (a signal the
 * CLI turns into an exit). A process killed outright (SIGKILL, a crash of the machine) cannot clean
 * up after itself, so each folder carries its process id in its name, and the next import removes
 * the folders of processes that are gone.
 */
import { rmSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';

const PREFIX = 'cannery-import-';
const live = new Set<string>();
let hooked = false;

export async function createStagingFolder(parent: string): Promise<string> {
  await removeStaleStaging(parent);
  const folder = await mkdtemp(join(parent, `${PREFIX}${process.pid}-`));
  live.add(folder);
  if (!hooked) {
    hooked = true;
    process.once('exit', () => {
      for (const path of live) rmSync(path, { recursive: true, force: true });
    });
  }
  return folder;
}

export async function removeStagingFolder(folder: string): Promise<void> {
  await rm(folder, { recursive: true, force: true });
  live.delete(folder);
}

/** Removes staging folders in `parent` left by imports whose process no longer runs; returns them. */
export async function removeStaleStaging(parent: string): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(parent);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    const pid = Number(new RegExp(`^${PREFIX}(\\d+)-`).exec(name)?.[1]);
    if (!Number.isSafeInteger(pid) || pid <= 0 || pid === process.pid || isRunning(pid)) continue;
    await rm(join(parent, name), { recursive: true, force: true });
    removed.push(join(parent, name));
  }
  return removed;
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it runs, as another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
