import type { Settings } from '../config/settings.js';
import { openCompileCache } from '../engine/compile/cache.js';
import type { LoadOptions } from '../engine/serve/registry.js';

/** How endpoint files are loaded: through the settings' compile cache, when it can be used. */
export async function loadOptionsFor(settings: Settings): Promise<LoadOptions> {
  const log = (line: string) => console.error(`cannery: ${line}`);
  const cache = settings.compileCache === undefined ? undefined : await openCompileCache(settings.compileCache, log);
  return { cache, log };
}
