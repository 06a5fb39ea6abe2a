/**
 * An endpoint test's database holds its own events, and they decide how each record is stored
 * (docs/storage.md): the endpoint's SQL is written for that database, so events with several
 * objects in a record give BigQuery's answer too.
 */
import { describe, expect, it } from 'vitest';
import { duckDbScratchEngine } from '../../../src/backends/duckdb/scratch.js';
import { loadOfflineRegistry } from '../../../src/cli/offline-registry.js';
import type { EndpointTest } from '../../../src/config/endpoint-tests-file.js';
import { answerTest } from '../../../src/engine/testing/run.js';
import { SHIPPED_ENDPOINTS } from '../../support/service.js';

describe('answerTest', () => {
  it('runs the endpoint on a test database whose events store a record as a list', async () => {
    const counts = (await loadOfflineRegistry(SHIPPED_ENDPOINTS)).find('usage.api-counts')!;
    const test: EndpointTest = {
      name: 'two requests in one event',
      line: 1,
      now: '2024-05-01T12:00:00Z',
      events: {
        'cloudflare.logs.prod': [
          { id: 'a', timestamp: '2024-05-01T11:30:10Z', event_message: 'GET', metadata: { request: [{ path: '/rest/v1/a', url: 'https://x.dev/rest/v1/a' }, { path: '/auth/v1/b', url: 'https://x.dev/auth/v1/b' }] } },
          { id: 'b', timestamp: '2024-05-01T11:30:20Z', event_message: 'GET', metadata: { request: { path: '/storage/v1/c', url: 'https://x.dev/storage/v1/c' } } },
        ],
      },
      eventLines: {},
      request: { params: { interval: 'minutely', project: 'x\\.dev' }, redactPii: false },
      expect: { kind: 'rows', rows: [] },
    };
    // Each of a's two requests is counted, as BigQuery's UNNEST of the record counts them.
    expect(await answerTest(counts, test, duckDbScratchEngine())).toEqual({
      rows: [{ timestamp: '2024-05-01T11:30:00', total_rest_requests: 1, total_storage_requests: 1, total_auth_requests: 1, total_realtime_requests: 0 }],
    });
  });
});
