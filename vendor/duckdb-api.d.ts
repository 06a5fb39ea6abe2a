// `#duckdb-api` (dist/vendor/duckdb-api.js, vendor/build.mjs) is @duckdb/node-api bundled: the same API.
export * from '@duckdb/node-api';
