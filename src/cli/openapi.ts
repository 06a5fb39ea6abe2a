/** `cannery openapi [--endpoints DIR]`: the OpenAPI 3.1 document the service would serve, on stdout. */
import { readSettings } from '../config/settings.js';
import { openApiDocument } from '../http/openapi.js';
import { VERSION } from '../core/version.js';
import type { Command } from './commands.js';
import { loadOfflineRegistry } from './offline-registry.js';

export const openapiCommand: Command = {
  options: { endpoints: { type: 'string' } },
  async run(flags) {
    const dir = typeof flags.endpoints === 'string' ? flags.endpoints : readSettings().endpointsDir;
    const registry = await loadOfflineRegistry(dir, 'duckdb');
    for (const problem of registry.problems) console.error(`cannery: ${problem.file}:${problem.line}: ${problem.message} (not described)`);
    console.log(JSON.stringify(openApiDocument(registry.endpoints, VERSION), null, 2));
    return 0;
  },
};
