/** Where endpoints are run: `${QUERY_PATH}<endpoint UUID or name>`. */
export const QUERY_PATH = '/api/endpoints/query/';
/** The endpoints served, with their parameter specs, settings and sandbox CTEs (engine/serve/catalog.ts). */
export const CATALOG_PATH = '/api/endpoints';
/** Events are sent to `${SOURCES_PATH}<source name>/events` (docs/ingest.md). */
export const SOURCES_PATH = '/api/sources/';
/** Logflare's ingest route, `?source_name=<source name>`, for its clients and shippers. */
export const LOGS_PATH = '/api/logs';
/** Logflare's other spelling of it, which its JavaScript clients (logflare-transport-core: pino-logflare) post to. */
export const LOGS_SHORT_PATH = '/logs';
