/**
 * Hot reload: a new, changed or deleted endpoint file is live as soon as the folder settles,
 * without a restart and without dropping requests (the registry is swapped in one assignment;
 * requests in flight finish with the endpoint they resolved). A file that fails to load is
 * reported and its last good version keeps serving.
 *
 * A changed or new source file (the project's sources/) is taken as a start takes it: the backend
 * takes the declarations (on the embedded engine a new source's table is created, a widened one
 * migrated), then every endpoint is compiled again over them. A source folder with a problem, or
 * a change the backend refuses (a migration that would drop or reinterpret stored values), is
 * reported and the previous declarations keep serving.
 */
import { isDeepStrictEqual } from 'node:util';
import { formatProblem } from '../../config/problem-line.js';
import { TESTS_FOLDER } from '../../config/endpoint-tests-file.js';
import type { SourceDeclaration } from '../../config/source-declaration.js';
import { readProjectSources } from '../../config/source-model.js';
import { watchFolder, type FolderWatch } from '../../config/watch-folder.js';
import type { CompileContext } from '../compile/compile.js';
import { loadRegistry, type LoadOptions } from './registry.js';
import type { Service } from './service.js';

export interface HotReloadOptions {
  service: Service;
  dir: string;
  /** How endpoint files are compiled, asked at each reload: after a source change, over the new sources. */
  context: () => CompileContext;
  /** The compile cache and threads start-up used. */
  load?: LoadOptions;
  /** Where reload results and problems are reported (one line each). */
  log: (line: string) => void;
  settleMs?: number;
  /** The project's source folder, and the declarations read from it at start: changes there are taken too. */
  sources?: { dir: string; declared: readonly SourceDeclaration[] };
  /** Told of the declarations served after each source change the backend took. */
  onSources?: (declared: readonly SourceDeclaration[]) => void;
}

export interface HotReload extends FolderWatch {
  /** Reloads the endpoints now (the watcher calls this; tests may too). */
  reload(): Promise<void>;
}

export function startHotReload(options: HotReloadOptions): HotReload {
  const { service, dir, log } = options;
  let declared = options.sources?.declared ?? [];
  let running: Promise<void> = Promise.resolve();
  const reloadOnce = async () => {
    try {
      const next = await loadRegistry(dir, options.context(), service.registry, { ...options.load, workers: { ...options.load?.workers, serving: true } });
      service.replaceRegistry(next);
      for (const problem of next.problems) log(`reload: ${formatProblem(problem)}`);
      log(`reload: serving ${next.endpoints.length} endpoint(s) from ${dir}`);
    } catch (error) {
      log(`reload: ${(error as Error).message}; still serving the previous endpoints`);
    }
  };
  /** Whether the backend took a change of the source folder `from`. */
  const takeSources = async (from: string): Promise<boolean> => {
    const keep = (why: string) => {
      log(`reload: ${why}; still serving the previous sources`);
      return false;
    };
    try {
      const project = await readProjectSources(from);
      for (const problem of project.problems) log(`reload: ${formatProblem(problem)}`);
      if (project.problems.length > 0) return keep(`${project.problems.length} problem(s) in ${from}`);
      if (isDeepStrictEqual(project.sources, declared)) return false;
      if (!service.backend.redeclare) return keep(`the ${service.backend.name} backend takes source changes at a restart`);
      await service.backend.redeclare(project.sources);
      declared = project.sources;
      options.onSources?.(declared);
      log(`reload: serving ${declared.length} declared source(s) from ${from}`);
      return true;
    } catch (error) {
      return keep((error as Error).message);
    }
  };
  // Reloads run one after another, so a slow one can never overwrite a newer one.
  const reload = () => (running = running.then(reloadOnce));
  const reloadSources = (from: string) => (running = running.then(async () => ((await takeSources(from)) ? reloadOnce() : undefined)));
  const watch = watchFolder(dir, () => void reload(), {
    settleMs: options.settleMs,
    // Editing an endpoint's tests changes nothing served.
    ignore: (name) => name.split(/[\\/]/)[0] === TESTS_FOLDER,
    onError: (error) => log(`reload: watching ${dir} failed: ${error.message}`),
  });
  const sourcesDir = options.sources?.dir;
  const sourceWatch = sourcesDir === undefined ? undefined : watchSources(sourcesDir, () => void reloadSources(sourcesDir), options, log);
  return {
    reload,
    close() {
      watch.close();
      sourceWatch?.close();
    },
  };
}

/** The source folder's watch; a project without one (it declares nothing) has nothing to watch. */
function watchSources(dir: string, onChange: () => void, options: HotReloadOptions, log: (line: string) => void): FolderWatch | undefined {
  try {
    return watchFolder(dir, onChange, { settleMs: options.settleMs, onError: (error) => log(`reload: watching ${dir} failed: ${error.message}`) });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}
