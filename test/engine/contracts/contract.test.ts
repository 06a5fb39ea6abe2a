/**
 * Contracts of real endpoint files, described on a real scratch DuckDB: the shipped two, and
 * what the book remembers.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { duckDbScratchEngine } from '../../../src/backends/duckdb/scratch.js';
import { loadOfflineRegistry } from '../../../src/cli/offline-registry.js';
import type { ScratchEngine } from '../../../src/engine/backend.js';
import { typeText } from '../../../src/engine/contracts/column-types.js';
import { createContractBook } from '../../../src/engine/contracts/contract.js';
import { endpointText } from '../../support/endpoint-text.js';
import { SHIPPED_ENDPOINTS, writeEndpoints } from '../../support/service.js';

const made: string[] = [];
afterAll(() => Promise.all(made.map((dir) => rm(dir, { recursive: true, force: true }))));

async function registryOf(files: Record<string, string>) {
  const dir = await mkdtemp(join(tmpdir(), 'cannery-contract-'));
  made.push(dir);
  return loadOfflineRegistry(await writeEndpoints(dir, files));
}

/** A scratch engine that counts the databases it opens. */
function counting(): ScratchEngine & { opened: number } {
  const engine = duckDbScratchEngine();
  const counted = {
    dialect: engine.dialect,
    opened: 0,
    open: (events: Parameters<ScratchEngine['open']>[0]) => {
      counted.opened += 1;
      return engine.open(events);
    },
  };
  return counted;
}

const columnsOf = (contract: { columns: { name: string; type: Parameters<typeof typeText>[0] }[] }) => contract.columns.map((column) => `${column.name} ${typeText(column.type, 1)}`);

describe('the shipped endpoints', () => {
  it('logs.all returns id, a TIMESTAMP, event_message and metadata as a repeated record', async () => {
    const registry = await loadOfflineRegistry(SHIPPED_ENDPOINTS);
    const logs = registry.find('logs.all')!;
    const { contract } = (await createContractBook(duckDbScratchEngine()).of([logs])).get(logs)!;
    expect(columnsOf(contract!)).toEqual(['id STRING', 'timestamp TIMESTAMP', 'event_message STRING', 'metadata ARRAY<STRUCT<load_balancer_redirect_identifier STRING, logflare_worker ARRAY<STRUCT>, request ARRAY<STRUCT>, response ARRAY<STRUCT>>>']);
    expect(contract!.params).toEqual({
      project: { type: 'string', required: true },
      iso_timestamp_start: { type: 'string', required: false, format: 'date-time' },
      iso_timestamp_end: { type: 'string', required: false, format: 'date-time' },
    });
  });

  it('usage.api-counts returns a DATETIME bucket and four INT64 counts', async () => {
    const registry = await loadOfflineRegistry(SHIPPED_ENDPOINTS);
    const usage = registry.find('usage.api-counts')!;
    const { contract } = (await createContractBook(duckDbScratchEngine()).of([usage])).get(usage)!;
    expect(columnsOf(contract!)).toEqual([
      'timestamp DATETIME',
      'total_rest_requests INT64',
      'total_storage_requests INT64',
      'total_auth_requests INT64',
      'total_realtime_requests INT64',
    ]);
    expect(contract!.params.interval).toEqual({ type: 'string', required: true, enum: ['minutely', 'hourly', 'daily'] });
  });
});

describe('createContractBook', () => {
  it('types a parameter selected as is by its declared type, even when optional', async () => {
    const registry = await registryOf({
      'echo.yaml': endpointText('contract.echo', ['s: {type: string}', 'n: {type: number}', 'i: {type: integer}', 'since: {type: string, format: date-time}'], [
        'select @s as s, @n as n, @i as i, cast(@since as timestamp) as since',
      ]),
    });
    const echo = registry.endpoints[0]!;
    const { contract } = (await createContractBook(duckDbScratchEngine()).of([echo])).get(echo)!;
    expect(columnsOf(contract!)).toEqual(['s STRING', 'n FLOAT64', 'i INT64', 'since TIMESTAMP']);
  });

  it('describes each version once, in one scratch database per batch', async () => {
    const engine = counting();
    const book = createContractBook(engine);
    const first = await registryOf({ 'a.yaml': endpointText('contract.a', [], ['select 1 as n']), 'b.yaml': endpointText('contract.b', [], ["select 'x' as s"]) });
    await book.of(first.endpoints);
    await book.of(first.endpoints);
    expect(engine.opened).toBe(1);
    // The same definitions loaded again are the same versions; a changed one is new.
    const again = await registryOf({ 'a.yaml': endpointText('contract.a', [], ['select 1 as n']).replace(/^id: .+$/m, `id: ${first.endpoints[0]!.definition.id}`) });
    const changed = await registryOf({ 'a.yaml': endpointText('contract.a', [], ["select 'one' as n"]) });
    const outcomes = await book.of([...again.endpoints, ...changed.endpoints]);
    expect(engine.opened).toBe(2);
    expect(columnsOf(outcomes.get(again.endpoints[0]!)!.contract!)).toEqual(['n INT64']);
    expect(columnsOf(outcomes.get(changed.endpoints[0]!)!.contract!)).toEqual(['n STRING']);
  });

  it('gives the reason when a query cannot be described', async () => {
    // A column of a subquery whose columns the static check cannot list (a star with EXCEPT), so
    // only DuckDB finds it missing.
    const registry = await registryOf({ 'bad.yaml': endpointText('contract.bad', [], ['select x.no_such_column from (select * except (id) from `postgres.logs`) as x']) });
    const bad = registry.endpoints[0]!;
    const outcome = (await createContractBook(duckDbScratchEngine()).of([bad])).get(bad)!;
    expect(outcome.contract).toBeUndefined();
    expect(outcome.problem).toContain('no_such_column');
  });
});
