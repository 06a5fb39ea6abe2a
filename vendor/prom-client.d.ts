// `#prom-client` (dist/vendor/prom-client.js, vendor/build.mjs) is prom-client bundled: the same API.
export * from 'prom-client';
