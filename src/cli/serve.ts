/** `cannery serve`: the HTTP service. With --demo, on demo data that it seeds and keeps current (demo-data.ts). */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { tmpdir } from 'node:os';
import { sourcesDirOf } from '../config/settings.js';
import type { Settings } from '../config/settings.js';
import { BUILT_IN_DECLARATIONS } from '../config/sources.js';
import type { DuckDbBackend } from '../backends/duckdb/backend.js';
import { duckDbIngestTarget, type DuckDbIngestTarget } from '../backends/duckdb/ingest-target.js';
import { listenForImports } from './import-handoff.js';
import { createStagingFolder } from '../backends/duckdb/import/staging.js';
import { createIngestQueue } from '../engine/ingest/queue.js';
import { createEventStager } from '../engine/ingest/stager.js';
import type { IngestSource } from '../engine/ingest/events.js';
import type { IngestOptions } from '../http/ingest.js';
import type { Metrics } from '../http/metrics.js';
import { BUILT_IN_SOURCES } from '../config/sources.js';
import type { ScratchEngine } from '../engine/backend.js';
import type { SourceDeclaration } from '../config/source-declaration.js';
import type { CompiledEndpoint } from '../engine/compiled-endpoint.js';
import { createMetrics } from '../http/metrics.js';
import { LOGS_PATH, QUERY_PATH, SOURCES_PATH } from '../http/paths.js';
import { createLogger } from '../core/logger.js';
import { lowerOtherThreads } from '../core/thread-priority.js';
import { loadOptionsFor } from './load-options.js';
import { openAccess } from './open-access.js';
import { compileContextFor, openDuckDbBackend, openService, projectSources } from './open-service.js';
import type { Command } from './command.js';
import { settingsWithFlags } from './flags.js';
import { MAIN_DEMO_PROJECT } from '../demo/pools.js';
import { keepServerRecord, reachableUrl } from './server-record.js';

export const serveCommand: Command = {
  options: {
    endpoints: { type: 'string' },
    db: { type: 'string' },
    port: { type: 'string' },
    host: { type: 'string' },
    demo: { type: 'boolean' },
  },
  async run(flags) {
    const settings = settingsWithFlags(flags);
    const demo = flags.demo && settings.backend === 'duckdb' && settings.dbPath !== ':memory:' ? await import('./demo-data.js') : undefined;
    const demoMarker = await demo?.prepareDemoDatabase(settings);
    // Opening would create an empty database, and a mistyped path would serve empty results.
    if (settings.backend === 'duckdb' && settings.dbPath !== ':memory:' && !existsSync(settings.dbPath)) {
      throw new Error(`no DuckDB database at ${settings.dbPath}: create one with \`cannery seed\` or \`cannery import\`, or run \`cannery serve --demo\``);
    }
    const { access, generatedKey, keysReload } = await openAccess(settings, (line) => console.error(`cannery: ${line}`), demo?.demoKeyFile(settings.dbPath));
    const metrics = createMetrics();
    const load = await loadOptionsFor(settings);
    const declared = await projectSources(settings);
    if (settings.ingest && settings.backend !== 'duckdb') throw new Error('CANNERY_INGEST=true takes events into the embedded DuckDB database; with CANNERY_BACKEND=bigquery, load BigQuery itself');
    // A live demo database, and one that takes events, stays writable: this process is the one that writes to it.
    const stagingDirectory = settings.ingest ? await createStagingFolder(tmpdir()) : undefined;
    const writer = (demo && demoMarker && settings.demoLive) || settings.ingest ? await openDuckDbBackend(settings, true, declared, stagingDirectory) : undefined;
    const live = demo && demoMarker && settings.demoLive && writer ? { demo, marker: demoMarker, backend: writer } : undefined;
    // Contracts are described, and events taken, over the sources served: after a source file changes, the new ones.
    let served: readonly SourceDeclaration[] = declared;
    const ingest = writer && stagingDirectory !== undefined ? openIngest(writer, stagingDirectory, () => served, settings, metrics) : undefined;
    // `cannery import` beside this server hands its file over (import-handoff.ts).
    const handoff = ingest && settings.dbPath !== ':memory:' ? await listenForImports(settings.dbPath, ingest.target, (line) => console.error(`cannery: ${line}`)) : undefined;
    // The HTTP side loads while the database opens (time otherwise spent waiting on it).
    const opening = openService(settings, { observer: metrics.engine, load, declared, backend: writer });
    const httpSide = loadHttpSide();
    httpSide.catch(() => undefined); // awaited below, once the service is open
    const service = await opening;
    const { createApp, listen, loadConsoleAssets, createContractBook, duckDbScratchEngine, startHotReload } = await httpSide;
    let scratch = duckDbScratchEngine(BUILT_IN_SOURCES, declared);
    const contractsEngine: ScratchEngine = {
      get dialect() {
        return scratch.dialect;
      },
      open: (events) => scratch.open(events),
    };
    const liveFeed = live ? await live.demo.keepDemoCurrent(live.backend, live.marker, settings.now) : undefined;
    for (const problem of service.registry.problems) console.error(`cannery: ${problem.file}:${problem.line}: ${problem.message}`);
    const consoleAssets = settings.console ? loadConsoleAssets() : undefined;
    if (settings.console && !consoleAssets) console.error('cannery: the console is not built (`npm run build` builds it into dist/console/); / answers 404');
    const app = createApp({
      service,
      access,
      metrics,
      logger: createLogger(settings.logLevel),
      metricsPublic: settings.metricsPublic,
      corsOrigins: settings.corsOrigins,
      console: consoleAssets,
      contracts: createContractBook(contractsEngine),
      declaredSources: () => served,
      ingest: ingest?.options,
    });
    const server = await listen(app, settings);
    // DuckDB's threads and the libuv pool that runs its queries exist by now (thread-priority.ts).
    lowerOtherThreads();
    // So a command that finds the file held (by this process, when it writes) can ask here instead.
    if (settings.backend === 'duckdb' && settings.dbPath !== ':memory:') {
      const keyFile = generatedKey && demo ? resolve(demo.demoKeyFile(settings.dbPath)) : undefined;
      keepServerRecord(settings.dbPath, { pid: process.pid, url: reachableUrl(server.url), endpoints: resolve(settings.endpointsDir), ...(keyFile ? { keyFile } : {}) });
    }

    console.log(`cannery: serving ${service.registry.endpoints.length} endpoint(s) from ${settings.endpointsDir} on ${server.url} (${service.backend.name})`);
    // On demo data, the page opens with the demo project filled in (`#?name=value` fills fields; never the key).
    if (consoleAssets) console.log(`cannery: console: ${server.url}/${flags.demo ? `#?project=${MAIN_DEMO_PROJECT}` : ''} (CANNERY_CONSOLE=false turns it off)`);
    if (generatedKey) {
      const kept = demo ? `kept in ${demo.demoKeyFile(settings.dbPath)}` : 'for this run';
      console.log(`cannery: CANNERY_API_KEYS is unset; generated API key ${kept}: ${generatedKey}`);
    }
    const key = generatedKey ?? '<your key>';
    const { endpoints } = service.registry;
    for (const endpoint of endpoints.slice(0, CURL_EXAMPLES)) console.log(curlExample(server.url, key, endpoint));
    if (ingest) console.log(`cannery: taking events at ${server.url}${SOURCES_PATH}<source>/events and ${server.url}${LOGS_PATH}?source_name=<source> (or ?source=<uuid>: cannery sources list) (docs/ingest.md)`);
    // A folder of hundreds of endpoints would otherwise scroll everything above out of sight.
    if (endpoints.length > CURL_EXAMPLES) console.log(`  ... and ${endpoints.length - CURL_EXAMPLES} more endpoints: ${server.url}/openapi.json lists them all`);

    const reload = startHotReload({
      service,
      dir: settings.endpointsDir,
      context: () => compileContextFor(service.backend),
      load,
      log: (line) => console.error(`cannery: ${line}`),
      sources: { dir: sourcesDirOf(settings), declared },
      onSources: (next) => {
        served = next;
        scratch = duckDbScratchEngine(BUILT_IN_SOURCES, next);
        ingest?.takeSources(next);
      },
    });

    const stop = async (signal: string) => {
      console.error(`cannery: ${signal}: no new connections; finishing requests in flight (at most ${settings.shutdownGraceMs} ms)`);
      reload.close();
      keysReload?.close();
      await liveFeed?.close();
      await server.close(settings.shutdownGraceMs);
      // Events queued and files handed over are committed (and their senders answered) before the database closes.
      await handoff?.close();
      await ingest?.options.queue.close();
      await ingest?.options.stager.close();
      // Past the grace, queries still running (a request's, a cache refresh's) are interrupted,
      // not waited for: warming stops and its refreshes in flight end as the backend closes.
      await Promise.all([service.close(), service.backend.close()]);
      // A start's compile cache entries are written after it serves; a quick stop keeps them.
      await load.cache?.settled();
      console.error('cannery: stopped');
      process.exit(0);
    };
    process.once('SIGINT', () => void stop('SIGINT'));
    process.once('SIGTERM', () => void stop('SIGTERM'));
    return -1;
  },
};

/** The writer of events sent over HTTP: every log source and declared source takes them (docs/ingest.md). */
function openIngest(
  backend: DuckDbBackend,
  stagingDirectory: string,
  declared: () => readonly SourceDeclaration[],
  settings: Settings,
  metrics: Metrics,
): { options: IngestOptions; target: DuckDbIngestTarget; takeSources: (next: readonly SourceDeclaration[]) => void } {
  const target = duckDbIngestTarget({ connect: () => backend.connect(), stagingDirectory, logSources: BUILT_IN_SOURCES, declared });
  const sources = new Map<string, IngestSource>();
  // The routes read this map at each request: a hot reload refills it with the sources now served.
  const takeSources = (next: readonly SourceDeclaration[]) => {
    sources.clear();
    for (const declaration of BUILT_IN_DECLARATIONS) sources.set(declaration.name, { declaration, log: true });
    for (const declaration of next) sources.set(declaration.name, { declaration, log: false });
  };
  takeSources(declared());
  const queue = createIngestQueue({ target, maxQueuedEvents: settings.ingestQueueEvents, observer: metrics.ingest });
  return { target, takeSources, options: { queue, stager: createEventStager(), sources, maxBytes: settings.ingestMaxBytes, ...(settings.now ? { clock: () => new Date(settings.now!.getTime()) } : {}) } };
}

/** What serving needs beyond the service: the app, its server, its console, contracts and reloads. */
async function loadHttpSide() {
  const [app, server, consolePage, contracts, scratch, reload] = await Promise.all([
    import('../http/app.js'),
    import('../http/server.js'),
    import('../http/console.js'),
    import('../engine/contracts/contract.js'),
    import('../backends/duckdb/scratch.js'),
    import('../engine/serve/hot-reload.js'),
  ]);
  return {
    createApp: app.createApp,
    listen: server.listen,
    loadConsoleAssets: consolePage.loadConsoleAssets,
    createContractBook: contracts.createContractBook,
    duckDbScratchEngine: scratch.duckDbScratchEngine,
    startHotReload: reload.startHotReload,
  };
}

/** How many endpoints a start prints a curl line for. */
const CURL_EXAMPLES = 10;

/** A ready-to-paste call with plausible values for the required parameters. */
function curlExample(baseUrl: string, key: string, endpoint: CompiledEndpoint): string {
  const query = new URLSearchParams();
  for (const [name, spec] of Object.entries(endpoint.definition.params)) {
    if (!spec.required) continue;
    query.set(name, spec.enum?.[0] ?? (name === 'project' ? MAIN_DEMO_PROJECT : `<${name}>`));
  }
  const url = `${baseUrl}${QUERY_PATH}${endpoint.definition.name}?${query}`;
  return `  curl -H 'X-API-KEY: ${key}' '${url}'`;
}
