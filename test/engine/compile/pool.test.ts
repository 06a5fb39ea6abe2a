/** Compiling on worker threads gives exactly what compiling on the main thread gives. */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BUILT_IN_SOURCES, sourceNames } from '../../../src/config/sources.js';
import { compileFile } from '../../../src/engine/compile/file.js';
import { compileSettings } from '../../../src/engine/compile/settings.js';
import { availableParallelism } from 'node:os';
import { compileInWorkers, threadsFor } from '../../../src/engine/compile/pool.js';
import { bigQueryDialect } from '../../../src/sql/dialects/bigquery/dialect.js';
import { sourceTables } from '../../../src/sql/dialects/bigquery/tables.js';
import { duckDbDialect } from '../../../src/sql/dialects/duckdb/dialect.js';
import { sourceColumnsLookup } from '../../../src/sql/analyse/shapes.js';
import { endpointText } from '../../support/endpoint-text.js';
import { SHIPPED_ENDPOINTS } from '../../support/service.js';
import { THREAD_THAT_CANNOT_START } from '../../support/threads.js';

const sources = sourceNames(BUILT_IN_SOURCES);
const context = {
  dialect: duckDbDialect(sources, { sourceColumns: sourceColumnsLookup(BUILT_IN_SOURCES), strictNames: true }),
  alsoCheck: [bigQueryDialect(sourceTables(sources, { project: 'p', dataset: 'd' }))],
  sources,
};

async function files() {
  const shipped = await Promise.all((await readdir(SHIPPED_ENDPOINTS)).filter((name) => name.endsWith('.yaml')).map(async (name) => ({ file: join(SHIPPED_ENDPOINTS, name), text: await readFile(join(SHIPPED_ENDPOINTS, name), 'utf8') })));
  return [
    ...shipped,
    { file: 'broken.yaml', text: 'id: [' },
    { file: 'unknown-source.yaml', text: endpointText('workers.unknown', [], ['select 1 as n from `no.such.source`']) },
    ...Array.from({ length: 20 }, (_, i) => ({ file: `n${i}.yaml`, text: endpointText(`workers.n${i}`, [], [`select ${i} as n, t.id from \`postgres.logs\` as t`]) })),
  ];
}

describe('compileInWorkers', () => {
  it('gives each file the result compileFile gives it on this thread, problems included', async () => {
    const texts = await files();
    const results = new Array(texts.length);
    await compileInWorkers(texts, compileSettings(context), 2, (index, result) => (results[index] = result));
    expect(results).toEqual(texts.map(({ file, text }) => compileFile(file, text, context)));
    expect(results.filter((result) => result.outcome?.endpoint)).toHaveLength(22);
  });

  it('rejects when a thread cannot start', async () => {
    // The caller is told, and compiles here.
    await expect(compileInWorkers((await files()).slice(0, 2), compileSettings(context), 2, () => undefined, { execArgv: THREAD_THAT_CANNOT_START })).rejects.toThrow();
  });
});

describe('threadsFor', () => {
  it('starts no thread for a few files, and no more threads than cores or than the files pay for', () => {
    expect(threadsFor(5, { max: 8 })).toBe(0);
    expect(threadsFor(64, { max: 8 })).toBe(2);
    expect(threadsFor(500, { max: 2 })).toBe(2);
    expect(threadsFor(500, { max: 1 })).toBe(1);
  });

  it('leaves the event loop a core: at most one thread fewer than the cores, and never none', () => {
    expect(threadsFor(100_000)).toBe(Math.max(1, availableParallelism() - 1));
  });
});
