import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { testFiles } from './test/support/tiers.js';

const ROOT = fileURLToPath(new URL('./', import.meta.url));

/**
 * Tests import src/ (`../../src/x.js`, so the type checker follows the sources) and run the built
 * dist/ (`../../dist/x.js`), which Node loads itself: nothing of src/ is transformed per file or
 * per worker, and the threads the code starts (compiling, sandbox SQL) load plain JavaScript.
 * test/support/built.ts builds first when src/ is newer than dist/.
 *
 * Two tiers (test/support/tiers.ts): `unit` (no server, no process, no database file) and
 * `service`; `npm test` runs both, `npm run test:unit` the first alone.
 *
 * The shipped endpoints are tested from a copy of their files (test/support/shipped-copy.ts), so
 * a user's own files in endpoints/ never fail the suite.
 */
export default defineConfig({
  resolve: {
    alias: [{ find: /^((?:\.\.\/)+)src\/(.*)\.js$/, replacement: '$1dist/$2.js' }],
  },
  test: {
    globalSetup: ['test/support/built.ts', 'test/support/shipped-copy.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Each service-tier file starts its own DuckDB and server; two cores run two files at a time well.
    maxWorkers: 2,
    server: { deps: { external: [/\/dist\//] } },
    // Stack traces of the built code point into src/.
    execArgv: ['--enable-source-maps'],
    projects: [
      { extends: true, test: { name: 'unit', include: testFiles(ROOT, 'unit') } },
      // A service test runs the real thing (processes, a build, DuckDB files, Chromium) on two cores
      // other work shares: its time is sized for a loaded machine, 5 to 10 times an idle one's. A
      // test that waits for something that never comes still fails, later.
      { extends: true, test: { name: 'service', include: testFiles(ROOT, 'service'), testTimeout: 240_000, hookTimeout: 300_000 } },
    ],
  },
});
