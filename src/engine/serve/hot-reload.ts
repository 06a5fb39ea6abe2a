/**
 * Hot reload: a new, changed or deleted endpoint file is live as soon as the folder settles,
 * without a restart and without dropping requests (the registry is swapped in one assignment;
 * requests in flight finish with the endpoint they resolved). A file that fails to load is
 * reported and its last good version keeps serving.
 */
import { formatProblem } from '../../config/problem-line.js';
import { TESTS_FOLDER } from '../../config/endpoint-tests-file.js';
import { watchFolder, type FolderWatch } from '../../config/watch-folder.js';
import type { CompileContext } from '../compile/compile.js';
import { loadRegistry, type LoadOptions } from './registry.js';
import type { Service } from './service.js';

export interface HotReloadOptions {
  service: Service;
  dir: string;
  context: CompileContext;
  /** The compile cache and threads start-up used. */
  load?: LoadOptions;
  /** Where reload results and problems are reported (one line each). */
  log: (line: string) => void;
  settleMs?: number;
}

export interface HotReload extends FolderWatch {
  /** Reloads now (the watcher calls this; tests may too). */
  reload(): Promise<void>;
}

export function startHotReload(options: HotReloadOptions): HotReload {
  const { service, dir, context, log } = options;
  let running: Promise<void> = Promise.resolve();
  const reloadOnce = async () => {
    try {
      const next = await loadRegistry(dir, context, service.registry, { ...options.load, workers: { ...options.load?.workers, serving: true } });
      service.replaceRegistry(next);
      for (const problem of next.problems) log(`reload: ${formatProblem(problem)}`);
      log(`reload: serving ${next.endpoints.length} endpoint(s) from ${dir}`);
    } catch (error) {
      log(`reload: ${(error as Error).message}; still serving the previous endpoints`);
    }
  };
  // Reloads run one after another, so a slow one can never overwrite a newer one.
  const reload = () => (running = running.then(reloadOnce));
  const watch = watchFolder(dir, () => void reload(), {
    settleMs: options.settleMs,
    // Editing an endpoint's tests changes nothing served.
    ignore: (name) => name.split(/[\\/]/)[0] === TESTS_FOLDER,
    onError: (error) => log(`reload: watching ${dir} failed: ${error.message}`),
  });
  return { reload, close: () => watch.close() };
}
