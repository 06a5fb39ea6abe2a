/**
 * The keys file re-read while serving: an edit (a key revoked, a scope narrowed) is in force as
 * soon as the file settles, without a restart. A file that fails to load is reported line by line
 * and the keys read last stay in force: a typo must not lock every tenant out.
 */
import { basename, dirname } from 'node:path';
import { loadKeysFile } from '../config/keys-file.js';
import { formatProblem } from '../config/problem-line.js';
import { watchFolder, type FolderWatch } from '../config/watch-folder.js';
import type { Access } from './access.js';

export interface KeysReloadOptions {
  access: Access;
  path: string;
  /** Where reload results and problems are reported (one line each). */
  log: (line: string) => void;
  settleMs?: number;
}

export interface KeysReload extends FolderWatch {
  /** Reloads now (the watcher calls this; tests may too). */
  reload(): Promise<void>;
}

export function startKeysReload(options: KeysReloadOptions): KeysReload {
  const { access, path, log } = options;
  let running: Promise<void> = Promise.resolve();
  const reloadOnce = async () => {
    const loaded = await loadKeysFile(path);
    if (!loaded.keys) {
      for (const problem of loaded.problems) log(`keys: ${formatProblem(problem)}`);
      log(`keys: ${path} not reloaded; the keys read last stay in force`);
      return;
    }
    access.replaceKeys(loaded.keys);
    log(`keys: ${loaded.keys.length} key(s) from ${path}`);
  };
  // One after another, so a slow read can never overwrite a newer one.
  const reload = () => (running = running.then(reloadOnce));
  // The folder, not the file: editors save by writing a new file and renaming it over the old one,
  // and a mounted secret swaps a link beside it; both replace the file a watch on it would follow.
  const name = basename(path);
  const watch = watchFolder(dirname(path), () => void reload(), {
    settleMs: options.settleMs,
    ignore: (changed) => changed !== name && !changed.startsWith('..'),
    onError: (error) => log(`keys: watching ${path} failed: ${error.message}`),
  });
  return { reload, close: () => watch.close() };
}
