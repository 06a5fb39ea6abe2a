/** Where endpoints are run: `${QUERY_PATH}<endpoint UUID or name>`. */
export const QUERY_PATH = '/api/endpoints/query/';
