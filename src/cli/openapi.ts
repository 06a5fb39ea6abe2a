/** `cannery openapi [--endpoints DIR]`: the OpenAPI 3.1 document the service would serve, on stdout. */
import { duckDbScratchEngine } from '../backends/duckdb/scratch.js';
import { readSettings } from '../config/settings.js';
import { BUILT_IN_SOURCES } from '../config/sources.js';
import { createContractBook } from '../engine/contracts/contract.js';
import { openApiDocument } from '../http/openapi.js';
import { VERSION } from '../core/version.js';
import type { Command } from './command.js';
import { loadOfflineRegistry } from './offline-registry.js';
import { loadOptionsFor } from './load-options.js';
import { declaredSources } from './source-folder.js';

export const openapiCommand: Command = {
  options: { endpoints: { type: 'string' }, sources: { type: 'string' } },
  async run(flags) {
    const dir = typeof flags.endpoints === 'string' ? flags.endpoints : readSettings().endpointsDir;
    const declared = await declaredSources(flags, dir);
    const registry = await loadOfflineRegistry(dir, 'duckdb', await loadOptionsFor(readSettings()), declared);
    for (const problem of registry.problems) console.error(`cannery: ${problem.file}:${problem.line}: ${problem.message} (not described)`);
    const contracts = await createContractBook(duckDbScratchEngine(BUILT_IN_SOURCES, declared)).of(registry.endpoints);
    for (const [endpoint, outcome] of contracts) {
      if (outcome.problem) console.error(`cannery: ${endpoint.file}: ${outcome.problem} (rows not typed)`);
    }
    console.log(JSON.stringify(openApiDocument(registry.endpoints, VERSION, contracts), null, 2));
    return 0;
  },
};
