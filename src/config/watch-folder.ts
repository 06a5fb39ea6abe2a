/**
 * Calls `onChange` once a folder has settled after changes: editors save in bursts (write,
 * rename, chmod), and one reload per burst is what a user means.
 */
import { watch, type FSWatcher } from 'node:fs';

export interface FolderWatch {
  close(): void;
}

export function watchFolder(dir: string, onChange: () => void, options: { settleMs?: number; onError?: (error: Error) => void } = {}): FolderWatch {
  const settleMs = options.settleMs ?? 100;
  let timer: NodeJS.Timeout | undefined;
  const watcher: FSWatcher = watch(dir, { persistent: false }, () => {
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
