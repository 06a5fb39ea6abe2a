/**
 * Calls `onChange` once a folder has settled after changes: editors save in bursts (write,
 * rename, chmod), and one reload per burst is what a user means.
 */
import { watch, type FSWatcher } from 'node:fs';

export interface FolderWatch {
  close(): void;
}

export interface WatchOptions {
  settleMs?: number;
  onError?: (error: Error) => void;
  /** Changes to entries this accepts (by name inside the folder) are not changes to the folder. */
  ignore?: (name: string) => boolean;
}

export function watchFolder(dir: string, onChange: () => void, options: WatchOptions = {}): FolderWatch {
  const settleMs = options.settleMs ?? 100;
  let timer: NodeJS.Timeout | undefined;
  const watcher: FSWatcher = watch(dir, { persistent: false }, (_event, name) => {
    // Some platforms give no name; then any change counts.
    if (name && options.ignore?.(name)) return;
    clearTimeout(timer);
    timer = setTimeout(onChange, settleMs);
  });
  watcher.on('error', (error) => options.onError?.(error));
  return {
    close() {
      clearTimeout(timer);
      watcher.close();
    },
  };
}
