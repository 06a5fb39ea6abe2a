/**
 * Bundles the CommonJS packages every start loads into one ES module each, in dist/vendor/, which
 * cannery imports under the names of package.json's `imports` (`#duckdb-api` is @duckdb/node-api).
 * A package of many CommonJS files costs node a read, a compile and a scan for an ES module's
 * named exports per file: @duckdb/node-api's ~190 files took about 150 ms of every `serve`,
 * `run` and `import`, the bundle about 45 ms; prom-client's (with @opentelemetry/api, some 100
 * files) 38 ms against 19, yaml's 84 files 33 ms against 16 (docs/development.md). The code is
 * the packages' own, of the versions package-lock.json installs; DuckDB's native part stays its
 * package's (`@duckdb/node-bindings` is required from node_modules at run time, as the package
 * does). Runs before tsc in `npm run build` and before transpile.mjs in `npm run build:start`.
 */
import { mkdir } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

/** dist/vendor/<file>.js: the package it bundles, and a name it must export (a check the build is whole). */
export const BUNDLES = {
  'duckdb-api': { pkg: '@duckdb/node-api', exports: 'DuckDBInstance', external: ['@duckdb/node-bindings'] },
  'prom-client': { pkg: 'prom-client', exports: 'Registry', external: [] },
  yaml: { pkg: 'yaml', exports: 'parseDocument', external: [] },
};

const root = fileURLToPath(new URL('../', import.meta.url));
const require = createRequire(import.meta.url);
await mkdir(new URL('../dist/vendor/', import.meta.url), { recursive: true });

await Promise.all(
  Object.entries(BUNDLES).map(([file, { pkg, exports, external }]) => {
    // Named exports, as an ES module must state them: the package's own, read from it.
    const names = Object.keys(require(pkg)).filter((name) => name !== 'default' && name !== '__esModule');
    if (!names.includes(exports)) throw new Error(`vendor build: ${pkg} exports no ${exports}`);
    return build({
      stdin: { contents: `import api from '${pkg}';\nexport const { ${names.join(', ')} } = api;\n`, resolveDir: root, loader: 'js' },
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'es2022',
      outfile: fileURLToPath(new URL(`../dist/vendor/${file}.js`, import.meta.url)),
      external,
      // Bundled CommonJS may require what stays outside; an ES module has no `require` of its own.
      banner: { js: "import { createRequire } from 'node:module';\nconst require = createRequire(import.meta.url);" },
      logLevel: 'warning',
    });
  }),
);
