/**
 * Bundles @duckdb/node-api into one ES module, dist/vendor/duckdb-api.js, which cannery imports
 * as `#duckdb-api` (package.json `imports`). The package is some 190 CommonJS files: node took
 * about 150 ms of every process's start (`serve`, `check`, `run`, each test's CLI) to find, read
 * and compile them one by one, and to scan them for an ES module's named exports; the bundle loads
 * in about 45 ms (docs/operations.md). The native part stays the package's own:
 * `@duckdb/node-bindings` is required from node_modules at run time, as the package does.
 * Runs before tsc in `npm run build` and before transpile.mjs in `npm run build:start`.
 */
import { mkdir } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('../', import.meta.url));
const require = createRequire(import.meta.url);
// Named exports, as the ES module must state them: the package's own, read from it.
const names = Object.keys(require('@duckdb/node-api')).filter((name) => name !== 'default' && name !== '__esModule');
if (!names.includes('DuckDBInstance')) throw new Error('vendor build: @duckdb/node-api exports no DuckDBInstance');

await mkdir(new URL('../dist/vendor/', import.meta.url), { recursive: true });
await build({
  stdin: { contents: `import api from '@duckdb/node-api';\nexport const { ${names.join(', ')} } = api;\n`, resolveDir: root, loader: 'js' },
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'es2022',
  outfile: fileURLToPath(new URL('../dist/vendor/duckdb-api.js', import.meta.url)),
  external: ['@duckdb/node-bindings'],
  // The bundled CommonJS requires the bindings; an ES module has no `require` of its own.
  banner: { js: "import { createRequire } from 'node:module';\nconst require = createRequire(import.meta.url);" },
  logLevel: 'warning',
});
