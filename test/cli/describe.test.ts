/** `cannery describe`: an endpoint's contract, as the built CLI prints it. */
import { describe, expect, it } from 'vitest';
import { cannery } from '../support/cannery-cli.js';
import { SHIPPED_ENDPOINTS } from '../support/service.js';

describe('cannery describe', () => {
  it('prints the parameters, and each column with its BigQuery type and wire form', async () => {
    const run = await cannery(['describe', 'usage.api-counts', '--endpoints', SHIPPED_ENDPOINTS]);
    expect(run.code).toBe(0);
    expect(run.stdout.trimEnd().split('\n')).toEqual([
      'usage.api-counts (90ea8432-727f-4399-8617-f3fe240ba64a)',
      `${SHIPPED_ENDPOINTS}usage.api-counts.yaml`,
      '',
      'parameters:',
      '  interval string required one of minutely, hourly, daily',
      '  project string required format regex',
      '',
      '  column                   type      on the wire (JSON)',
      '  timestamp                DATETIME  string (YYYY-MM-DDTHH:MM:SS[.ffffff])',
      '  total_rest_requests      INT64     integer',
      '  total_storage_requests   INT64     integer',
      '  total_auth_requests      INT64     integer',
      '  total_realtime_requests  INT64     integer',
      '',
      'settings: max_rows 1000; cache 900 s, warmed every 300 s; sandbox on; redact_pii off',
    ]);
  });

  it('finds an endpoint by its id, and shows the fields of records indented under them', async () => {
    const run = await cannery(['describe', 'B699A50C-0586-48FA-95E6-6041369C6C05', '--endpoints', SHIPPED_ENDPOINTS]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('  timestamp                            TIMESTAMP      integer (Unix microseconds)\n');
    expect(run.stdout).toContain(
      '  metadata                             ARRAY<STRUCT>  array of objects (repeated record)\n' +
        '    load_balancer_redirect_identifier  STRING         string\n' +
        '    logflare_worker                    ARRAY<STRUCT>  array of objects (repeated record)\n' +
        '      worker_id                        STRING         string\n' +
        '    request                            ARRAY<STRUCT>  array of objects (repeated record)\n',
    );
    expect(run.stdout).toContain('          detectionIds                 ARRAY<INT64>   array of integer\n');
  });

  it('--format json gives the contract with each column type and its JSON Schema on the wire', async () => {
    const run = await cannery(['describe', 'logs.all', '--endpoints', SHIPPED_ENDPOINTS, '--format', 'json']);
    expect(run.code).toBe(0);
    const contract = JSON.parse(run.stdout);
    expect(contract).toMatchObject({ name: 'logs.all', id: 'b699a50c-0586-48fa-95e6-6041369c6c05', settings: { max_rows: 1000, cache: false, sandbox: true, redact_pii: false } });
    expect(contract.columns.slice(0, 3)).toEqual([
      { name: 'id', type: 'STRING', wire: { type: ['string', 'null'] } },
      { name: 'timestamp', type: 'TIMESTAMP', wire: { type: ['integer', 'null'], description: 'TIMESTAMP: Unix microseconds' } },
      { name: 'event_message', type: 'STRING', wire: { type: ['string', 'null'] } },
    ]);
    expect(contract.columns[3].type).toMatch(/^ARRAY<STRUCT<load_balancer_redirect_identifier STRING, logflare_worker ARRAY<STRUCT<worker_id STRING>>, request ARRAY<STRUCT<cf ARRAY<STRUCT</);
  });

  it('suggests a close name for one that does not exist', async () => {
    const run = await cannery(['describe', 'logs.al', '--endpoints', SHIPPED_ENDPOINTS]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('no endpoint "logs.al"');
    expect(run.stderr).toContain('(did you mean "logs.all"?)');
  });
});
