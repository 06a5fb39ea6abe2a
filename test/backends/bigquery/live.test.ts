/**
 * Against real BigQuery, only when asked: CANNERY_BQ_LIVE=1 with CANNERY_BQ_PROJECT,
 * CANNERY_BQ_DATASET (holding the nine source tables, see docs/bigquery.md) and credentials by
 * Application Default Credentials (GOOGLE_APPLICATION_CREDENTIALS or `gcloud auth
 * application-default login`). Other CANNERY_BQ_* settings apply as in the service.
 *
 *   CANNERY_BQ_LIVE=1 CANNERY_BQ_PROJECT=my-project CANNERY_BQ_DATASET=logs npx vitest run test/backends/bigquery/live.test.ts
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bigQueryBackendOptions, createBigQueryBackend, type BigQueryBackend } from '../../../src/backends/bigquery/backend.js';
import type { QueryRequest } from '../../../src/engine/backend.js';
import { readSettings } from '../../../src/config/settings.js';
import { BUILT_IN_SOURCES, sourceNames } from '../../../src/config/sources.js';
import type { ParamSpec } from '../../../src/core/types.js';
import { loadRegistry, type Registry } from '../../../src/engine/serve/registry.js';
import { generate } from '../../../src/sql/generator/generate.js';
import { parseQuery } from '../../../src/sql/parse/to-tree.js';
import { SHIPPED_ENDPOINTS } from '../../support/service.js';

const LIVE = process.env.CANNERY_BQ_LIVE === '1' && Boolean(process.env.CANNERY_BQ_PROJECT) && Boolean(process.env.CANNERY_BQ_DATASET);
const TITLE = LIVE
  ? `live BigQuery (project ${process.env.CANNERY_BQ_PROJECT}, dataset ${process.env.CANNERY_BQ_DATASET})`
  : 'live BigQuery: skipped, set CANNERY_BQ_LIVE=1, CANNERY_BQ_PROJECT, CANNERY_BQ_DATASET and credentials to run';

describe.skipIf(!LIVE)(TITLE, () => {
  let backend: BigQueryBackend;
  let registry: Registry;

  beforeAll(async () => {
    const settings = readSettings({ ...process.env, CANNERY_BACKEND: 'bigquery' });
    backend = createBigQueryBackend(bigQueryBackendOptions(settings.bigquery, sourceNames(BUILT_IN_SOURCES)));
    registry = await loadRegistry(SHIPPED_ENDPOINTS, { dialect: backend.dialect, sources: sourceNames(BUILT_IN_SOURCES) });
  });
  afterAll(() => backend?.close());

  function adHoc(sql: string, specs: Record<string, ParamSpec>, values: QueryRequest['values']): QueryRequest {
    const compiled = generate(parseQuery(sql), backend.dialect, { rowCap: 10 });
    return { sql: compiled.sql, parameters: compiled.parameters, values, specs, now: new Date(), maxRows: 10, maxBytes: 32 * 1024 * 1024, timeoutMs: 60_000, endpointName: 'live.test' };
  }

  it("decodes BigQuery's own result formats to the wire format", async () => {
    const request = adHoc(
      `select timestamp_micros(1714557600123456) as ts, datetime(timestamp_micros(1714557600123456), 'UTC') as dt,
              date(timestamp_micros(1714557600123456)) as d, cast(@n as int64) + 1 as n, @s as s, @missing is null as missing,
              split('a,b', ',') as parts, cast(null as string) as nothing`,
      { n: { type: 'integer', required: true }, s: { type: 'string', required: true }, missing: { type: 'string', required: false } },
      { n: 42, s: "it's {{projectId}}", missing: null },
    );
    const { rows } = await backend.run(request);
    expect(rows).toEqual([
      { ts: 1714557600123456, dt: '2024-05-01T10:00:00.123456', d: '2024-05-01', n: 43, s: "it's {{projectId}}", missing: true, parts: ['a', 'b'], nothing: null },
    ]);
  });

  it('maps an invalid regular expression in a value to invalid_parameter', async () => {
    const request = adHoc("select regexp_contains('abc', @pattern) as m", { pattern: { type: 'string', required: true, format: 'regex' } }, { pattern: '(' });
    await expect(backend.run(request)).rejects.toMatchObject({ code: 'invalid_parameter', param: 'pattern' });
  });

  it('dry-runs and runs both shipped endpoints on the dataset', async () => {
    expect(registry.problems).toEqual([]);
    const values: Record<string, QueryRequest['values']> = {
      'logs.all': { project: 'cannery-live-test', iso_timestamp_start: null, iso_timestamp_end: null },
      'usage.api-counts': { interval: 'hourly', project: 'cannery-live-test' },
    };
    for (const endpoint of registry.endpoints) {
      const request: QueryRequest = {
        sql: endpoint.sql,
        parameters: endpoint.sqlParameters,
        values: values[endpoint.definition.name]!,
        specs: endpoint.definition.params,
        now: new Date(),
        maxRows: endpoint.definition.max_rows,
        maxBytes: 32 * 1024 * 1024,
        timeoutMs: 60_000,
        endpointName: endpoint.definition.name,
      };
      const { totalBytesProcessed } = await backend.dryRun(request);
      expect(totalBytesProcessed).toBeGreaterThanOrEqual(0);
      const { rows } = await backend.run(request);
      expect(Array.isArray(rows)).toBe(true);
    }
  });
});
