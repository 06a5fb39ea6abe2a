import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Each file starts its own DuckDB and server; two cores run two files at a time well.
    maxWorkers: 2,
    // Worker threads started by the code under test (compile and sandbox threads) inherit these
    // flags, and with them a loader for src/'s TypeScript.
    execArgv: ['--import', new URL('./test/support/typescript-hooks.mjs', import.meta.url).href],
  },
});
