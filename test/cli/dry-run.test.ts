/**
 * `cannery check --dry-run`, as CI runs it (the built CLI in a child process), against a local
 * server that speaks BigQuery's REST API. `npm test` builds dist/ first (pretest).
 */
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { cannery as runCli, CLI, type Run } from '../support/cannery-cli.js';
import { startFakeBigQuery, type FakeBigQuery } from '../support/bigquery-server.js';
import { SHIPPED_ENDPOINTS as SHIPPED } from '../support/shipped-endpoints.js';

function cannery(args: string[], env: Record<string, string>): Promise<Run> {
  return runCli(args, { env });
}

let fake: FakeBigQuery;
let env: Record<string, string>;
beforeAll(async () => {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run npm run build first`);
  fake = await startFakeBigQuery();
  env = { CANNERY_BQ_PROJECT: 'test-proj', CANNERY_BQ_DATASET: 'logs', CANNERY_BQ_API_ENDPOINT: fake.url };
});
afterAll(() => fake?.close());
beforeEach(() => {
  fake.requests.length = 0;
});

describe('cannery check --dry-run', () => {
  it('prints the bytes each endpoint would scan, from a BigQuery dry run of its compiled SQL', async () => {
    fake.answer((body) => ({ dryRunBytes: body.query.includes('bucketed') ? 52_428_800 : 1_288_490_188 }));
    const run = await cannery(['check', '--dry-run', '--endpoints', SHIPPED], env);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout.trim().split('\n').sort()).toEqual([
      expect.stringMatching(/logs\.all\.yaml: logs\.all would scan 1\.2 GiB \(1288490188 bytes\)$/),
      expect.stringMatching(/usage\.api-counts\.yaml: usage\.api-counts would scan 50\.0 MiB \(52428800 bytes\)$/),
    ]);
    expect(run.stderr).toContain('ok: 2 endpoint(s)');
    const sent = fake.queries();
    expect(sent).toHaveLength(2);
    for (const body of sent) {
      expect(body).toMatchObject({ dryRun: true, useLegacySql: false, parameterMode: 'NAMED' });
      expect(body.query).toContain('`test-proj.logs.cloudflare_logs_prod`');
      for (const parameter of body.queryParameters) expect(parameter.parameterValue).toEqual({ value: null });
    }
  });

  it('exits 1 naming the endpoint BigQuery refuses, in source names', async () => {
    fake.answer((body) =>
      body.query.includes('bucketed')
        ? { error: { status: 400, reason: 'invalidQuery', message: 'Unrecognized name: pathh at [1:30]; in test-proj:logs.cloudflare_logs_prod' } }
        : { dryRunBytes: 10 },
    );
    const run = await cannery(['check', '--dry-run', '--endpoints', SHIPPED], env);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('logs.all would scan 10 bytes (10 bytes)');
    expect(run.stdout).toMatch(
      /usage\.api-counts\.yaml: BigQuery dry run failed: usage\.api-counts: BigQuery could not run the query \(invalidQuery\): Unrecognized name: pathh; in cloudflare\.logs\.prod$/m,
    );
    expect(run.stderr).toContain('1 endpoint(s) failed the BigQuery dry run');
  });

  it('needs the BigQuery project and dataset', async () => {
    const run = await cannery(['check', '--dry-run', '--endpoints', SHIPPED], { CANNERY_BQ_API_ENDPOINT: fake.url });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('CANNERY_BQ_PROJECT must be set for BigQuery');
    expect(fake.requests).toEqual([]);
  });
});
