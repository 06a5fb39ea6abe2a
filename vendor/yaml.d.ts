// `#yaml` (dist/vendor/yaml.js, vendor/build.mjs) is yaml bundled: the same API.
export * from 'yaml';
