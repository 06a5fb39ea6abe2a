/** Where endpoints are run: `${QUERY_PATH}<endpoint UUID or name>`. */
export const QUERY_PATH = '/api/endpoints/query/';
/** The endpoints served, with their parameter specs, settings and sandbox CTEs (engine/serve/catalog.ts). */
export const CATALOG_PATH = '/api/endpoints';
