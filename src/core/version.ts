/** cannery's version, from package.json (two levels above both src/core/ and dist/core/). */
import { createRequire } from 'node:module';

export const VERSION: string = (createRequire(import.meta.url)('../../package.json') as { version: string }).version;
